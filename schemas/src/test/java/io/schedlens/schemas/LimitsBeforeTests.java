package io.schedlens.schemas;

import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Avro's limits set before any test of this module decodes a record, as the apps set them first
 * thing (the other modules' tests get the same from test-support's {@code AvroLimitsFirst}).
 */
public final class LimitsBeforeTests implements LauncherSessionListener {

  @Override
  public void launcherSessionOpened(LauncherSession session) {
    AvroLimits.install();
  }
}
