package io.schedlens.runs;

import io.schedlens.simulator.scenario.Scenario;
import io.schedlens.simulator.scenario.ScenarioException;
import io.schedlens.simulator.scenario.ScenarioLoader;
import org.apache.kafka.common.config.ConfigException;

/**
 * The {@code --scenario} setting of {@code demo} and {@code simulate}: a bundled scenario by name
 * or a scenario YAML file; its usage and help name every bundled scenario, and a scenario that
 * cannot be loaded is bad input (exit 2, one line), not a failure.
 */
public final class ScenarioSetting {

  public static final String NAME = "scenario";

  private ScenarioSetting() {}

  /** For a usage line: {@code day08|day08-disruptions|...|FILE}. */
  public static String choices() {
    return String.join("|", ScenarioLoader.BUNDLED) + "|FILE";
  }

  /** The setting's documentation. */
  public static String doc() {
    return "A bundled scenario ("
        + String.join(", ", ScenarioLoader.BUNDLED)
        + ") or a scenario YAML file.";
  }

  /**
   * Loads the scenario a setting names.
   *
   * @throws ConfigException naming the setting and what is wrong with the scenario
   */
  public static Scenario load(String value) {
    try {
      return ScenarioLoader.load(value);
    } catch (ScenarioException e) {
      throw new ConfigException("--" + NAME + ": " + e.getMessage());
    }
  }
}
