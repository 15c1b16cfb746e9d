package io.schedlens.testsupport;

import io.schedlens.schemas.AvroLimits;
import org.junit.platform.launcher.LauncherSession;
import org.junit.platform.launcher.LauncherSessionListener;

/**
 * Sets Avro's decoding limits before any test decodes a record, as each app's {@code main} does
 * before it decodes one: Avro reads them once, when first used, so a test that decoded first would
 * leave every later one in the JVM without them. Registered as a JUnit launcher listener.
 */
public final class AvroLimitsFirst implements LauncherSessionListener {

  @Override
  public void launcherSessionOpened(LauncherSession session) {
    AvroLimits.install();
  }
}
