package io.schedlens.cli;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * {@code --log-format text|json} (anywhere on the command line) or {@code SCHEDLENS_LOG_FORMAT}:
 * which logback configuration the process starts with. Must run before the first logger is made.
 */
final class LogFormat {

  static final String FLAG = "--log-format";
  static final String ENV = "SCHEDLENS_LOG_FORMAT";

  private static final String JSON_CONFIGURATION = "logback-json.xml";

  private LogFormat() {}

  /** Whether the process logs JSON lines. */
  static boolean json() {
    return JSON_CONFIGURATION.equals(System.getProperty("logback.configurationFile"));
  }

  /**
   * Selects the configuration and returns the arguments without the flag.
   *
   * @throws IllegalArgumentException for a format other than text or json
   */
  static List<String> select(List<String> args, Map<String, String> env) {
    String format = env.getOrDefault(ENV, "text");
    List<String> rest = new ArrayList<>();
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (a.equals(FLAG) && i + 1 < args.size()) {
        format = args.get(++i);
      } else if (a.startsWith(FLAG + "=")) {
        format = a.substring(FLAG.length() + 1);
      } else {
        rest.add(a);
      }
    }
    switch (format) {
      case "text" -> {}
      case "json" -> {
        if (System.getProperty("logback.configurationFile") == null) {
          System.setProperty("logback.configurationFile", JSON_CONFIGURATION);
        }
      }
      default ->
          throw new IllegalArgumentException(
              FLAG + " (or " + ENV + ") must be text or json, not '" + format + "'");
    }
    return rest;
  }
}
