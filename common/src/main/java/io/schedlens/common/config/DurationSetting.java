package io.schedlens.common.config;

import io.schedlens.base.Durations;
import java.time.Duration;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * Duration-valued settings in a Kafka {@code ConfigDef}, written as {@link Durations} reads them.
 */
public final class DurationSetting {

  private DurationSetting() {}

  /** A ConfigDef validator for duration-valued settings, optionally with a lower bound. */
  public static ConfigDef.Validator atLeast(Duration min) {
    return new ConfigDef.Validator() {
      @Override
      public void ensureValid(String name, Object value) {
        if (value == null) {
          return;
        }
        Duration d;
        try {
          d = Durations.parse(value.toString());
        } catch (IllegalArgumentException e) {
          throw new ConfigException(name, value, e.getMessage());
        }
        if (d.compareTo(min) < 0) {
          throw new ConfigException(name, value, "must be at least " + Durations.format(min));
        }
      }

      @Override
      public String toString() {
        return "duration >= " + Durations.format(min) + " (e.g. 500ms, 15s, 2m, 1h)";
      }
    };
  }
}
