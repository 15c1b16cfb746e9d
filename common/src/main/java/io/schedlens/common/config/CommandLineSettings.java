package io.schedlens.common.config;

import java.io.IOException;
import java.io.Reader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * Collects the raw settings of one command from, in rising precedence: a properties file ({@code
 * --config FILE}), environment variables and flags. A setting {@code grace.period} is read from
 * {@code SCHEDLENS_GRACE_PERIOD} and {@code --grace-period VALUE} (or {@code
 * --grace-period=VALUE}); list settings accumulate when a flag is repeated. Kafka client settings
 * pass through untouched: {@code KAFKA_SECURITY_PROTOCOL=SSL}, {@code --kafka
 * security.protocol=SSL}, or {@code kafka.security.protocol=SSL} in the file.
 *
 * <p>Flags are derived from the command's {@link ConfigDef} rather than declared a second time in a
 * CLI library, so flags, environment variables, files and the README table cannot drift apart.
 */
public final class CommandLineSettings {

  public static final String ENV_PREFIX = "SCHEDLENS_";
  public static final String KAFKA_ENV_PREFIX = "KAFKA_";
  public static final String KAFKA_FILE_PREFIX = "kafka.";

  /** Kafka's own launcher variables, which are not client settings. */
  private static final Set<String> KAFKA_SCRIPT_VARIABLES =
      Set.of(
          "KAFKA_HEAP_OPTS",
          "KAFKA_OPTS",
          "KAFKA_JMX_OPTS",
          "KAFKA_LOG4J_OPTS",
          "KAFKA_JVM_PERFORMANCE_OPTS",
          "KAFKA_DEBUG",
          "KAFKA_HOME");

  private final Map<String, Object> values;
  private final Map<String, Object> kafka;
  private final boolean help;

  private CommandLineSettings(Map<String, Object> values, Map<String, Object> kafka, boolean help) {
    this.values = values;
    this.kafka = kafka;
    this.help = help;
  }

  /**
   * Reads settings for {@code def} from the given arguments and environment.
   *
   * @throws ConfigException naming the offending flag, variable or file when one cannot be used
   */
  public static CommandLineSettings load(
      ConfigDef def, List<String> args, Map<String, String> env) {
    return load(def, args, env, true);
  }

  /**
   * Reads settings for {@code def}; a command that is no Kafka client ({@code kafkaClient} false:
   * it runs its own embedded broker, or none) refuses {@code --kafka} and {@code kafka.} settings
   * instead of ignoring them, and ignores KAFKA_* variables of the environment.
   */
  public static CommandLineSettings load(
      ConfigDef def, List<String> args, Map<String, String> env, boolean kafkaClient) {
    if (kafkaClient) {
      return read(def, args, env);
    }
    Map<String, String> ownEnv = new TreeMap<>(env);
    ownEnv.keySet().removeIf(v -> v.startsWith(KAFKA_ENV_PREFIX));
    CommandLineSettings s = read(def, args, ownEnv);
    if (!s.kafka.isEmpty()) {
      throw new ConfigException(
          "this command uses no Kafka cluster of yours (it runs its own embedded broker, or none):"
              + " remove the Kafka client settings "
              + s.kafka.keySet()
              + " (--kafka, or kafka. in the --config file)");
    }
    return new CommandLineSettings(s.values, Map.of(), s.help);
  }

  private static CommandLineSettings read(
      ConfigDef def, List<String> args, Map<String, String> env) {
    Map<String, String> byEnvName = new TreeMap<>();
    Map<String, String> byFlag = new TreeMap<>();
    for (String name : def.names()) {
      byEnvName.put(envName(name), name);
      byFlag.put(flagName(name), name);
    }
    // Flags are parsed first to find --config, but applied last (highest precedence).
    Flags flags = flags(def, byFlag, args);
    Map<String, Object> values = new LinkedHashMap<>();
    Map<String, Object> kafka = new LinkedHashMap<>();
    if (flags.configFile != null) {
      configFile(def, flags.configFile, values, kafka);
    }
    for (Map.Entry<String, String> e : new TreeMap<>(env).entrySet()) {
      String var = e.getKey();
      if (var.startsWith(ENV_PREFIX) && byEnvName.containsKey(var)) {
        values.put(byEnvName.get(var), e.getValue());
      } else if (var.startsWith(KAFKA_ENV_PREFIX) && !KAFKA_SCRIPT_VARIABLES.contains(var)) {
        kafka.put(
            var.substring(KAFKA_ENV_PREFIX.length()).toLowerCase(Locale.ROOT).replace('_', '.'),
            e.getValue());
      }
    }

    values.putAll(flags.values);
    kafka.putAll(flags.kafka);
    return new CommandLineSettings(values, kafka, flags.help);
  }

  /** What the command line says, before the file and the environment under it. */
  private static final class Flags {
    final Map<String, Object> values = new LinkedHashMap<>();
    final Map<String, Object> kafka = new LinkedHashMap<>();
    Path configFile;
    boolean help;
  }

  private static Flags flags(ConfigDef def, Map<String, String> byFlag, List<String> args) {
    Flags flags = new Flags();
    for (int i = 0; i < args.size(); i++) {
      String arg = args.get(i);
      if (arg.equals("--help") || arg.equals("-h")) {
        flags.help = true;
        continue;
      }
      if (!arg.startsWith("--")) {
        throw new ConfigException(
            "unexpected argument '"
                + arg
                + "': every setting is given as --name value (see --help)");
      }
      String flag = arg.substring(2);
      String inline = null;
      int eq = flag.indexOf('=');
      if (eq >= 0) {
        inline = flag.substring(eq + 1);
        flag = flag.substring(0, eq);
      }
      if (flag.equals("config") || flag.equals("kafka")) {
        String value = inline != null ? inline : valueAfter(args, i++, arg);
        if (flag.equals("config")) {
          flags.configFile = Path.of(value);
        } else {
          int kv = value.indexOf('=');
          if (kv <= 0) {
            throw new ConfigException(
                "--kafka expects NAME=VALUE with a Kafka client setting, e.g. --kafka security.protocol=SSL; got '"
                    + value
                    + "'");
          }
          flags.kafka.put(value.substring(0, kv), value.substring(kv + 1));
        }
        continue;
      }
      String name = byFlag.get(flag);
      if (name == null) {
        throw new ConfigException(
            "unknown option --"
                + flag
                + "; known options: "
                + String.join(", ", byFlag.keySet().stream().map(f -> "--" + f).toList()));
      }
      ConfigDef.ConfigKey key = def.configKeys().get(name);
      String value;
      if (inline != null) {
        value = inline;
      } else if (key.type == ConfigDef.Type.BOOLEAN
          && (i + 1 >= args.size() || args.get(i + 1).startsWith("--"))) {
        value = "true";
      } else {
        value = valueAfter(args, i++, arg);
      }
      put(flags.values, name, key, value, true);
    }
    return flags;
  }

  /**
   * The settings of a --config file (a Java properties file) into {@code values} and {@code kafka}.
   */
  private static void configFile(
      ConfigDef def, Path configFile, Map<String, Object> values, Map<String, Object> kafka) {
    Properties props = new Properties();
    try (Reader reader = Files.newBufferedReader(configFile)) {
      props.load(reader);
    } catch (IOException e) {
      throw new ConfigException(
          "cannot read --config file "
              + configFile
              + ": "
              + e.getMessage()
              + " (it must be a Java properties file)");
    }
    for (String fileKey : props.stringPropertyNames()) {
      String value = props.getProperty(fileKey);
      if (def.names().contains(fileKey)) {
        values.put(fileKey, value);
      } else if (fileKey.startsWith(KAFKA_FILE_PREFIX)) {
        kafka.put(fileKey.substring(KAFKA_FILE_PREFIX.length()), value);
      } else {
        throw new ConfigException(
            "unknown setting '"
                + fileKey
                + "' in "
                + configFile
                + "; Kafka client settings take the prefix 'kafka.'");
      }
    }
  }

  private static void put(
      Map<String, Object> into,
      String name,
      ConfigDef.ConfigKey key,
      String value,
      boolean accumulate) {
    if (accumulate && key.type == ConfigDef.Type.LIST && into.containsKey(name)) {
      into.put(name, into.get(name) + "," + value);
    } else {
      into.put(name, value);
    }
  }

  private static String valueAfter(List<String> args, int i, String flag) {
    if (i + 1 >= args.size()) {
      throw new ConfigException("option " + flag + " needs a value");
    }
    return args.get(i + 1);
  }

  /** {@code grace.period} to {@code SCHEDLENS_GRACE_PERIOD}. */
  public static String envName(String name) {
    return ENV_PREFIX + name.toUpperCase(Locale.ROOT).replace('.', '_').replace('-', '_');
  }

  /** {@code grace.period} to {@code grace-period}. */
  public static String flagName(String name) {
    return name.replace('.', '-');
  }

  /** The schedlens settings, to be parsed and validated by the command's config class. */
  public Map<String, Object> values() {
    return values;
  }

  /** Kafka client settings to pass through to every client of the command. */
  public Map<String, Object> kafka() {
    return kafka;
  }

  /** Whether --help was asked for. */
  public boolean help() {
    return help;
  }

  /** A plain-text table of a command's settings for --help, with the Kafka client settings. */
  public static String helpText(ConfigDef def) {
    return helpText(def, true);
  }

  /**
   * A plain-text table of a command's settings for --help; the Kafka client settings only for a
   * command that is a Kafka client.
   */
  public static String helpText(ConfigDef def, boolean kafkaClient) {
    StringBuilder sb = new StringBuilder();
    List<ConfigDef.ConfigKey> keys = new ArrayList<>(def.configKeys().values());
    for (ConfigDef.ConfigKey key : keys) {
      sb.append("  --")
          .append(flagName(key.name))
          .append(" (")
          .append(envName(key.name))
          .append(")\n");
      sb.append("      ").append(key.documentation).append('\n');
      sb.append("      default: ").append(defaultText(key));
      if (key.validator != null) {
        sb.append("; valid: ").append(key.validator);
      }
      sb.append('\n');
    }
    if (!kafkaClient) {
      sb.append(
          "  --config FILE   Java properties file with any of the settings above (by name)\n");
      return sb.toString();
    }
    sb.append("  --config FILE   Java properties file with any of the settings above (by name),\n");
    sb.append("                  and Kafka client settings prefixed 'kafka.'\n");
    sb.append(
        "  --kafka NAME=VALUE   a Kafka client setting (also KAFKA_NAME=VALUE in the environment)\n");
    return sb.toString();
  }

  /** A Markdown table of a command's settings, as the README shows them. */
  public static String markdownTable(ConfigDef def) {
    StringBuilder sb =
        new StringBuilder(
            "| setting | flag | environment | default | meaning |\n|---|---|---|---|---|\n");
    for (ConfigDef.ConfigKey key : def.configKeys().values()) {
      sb.append("| `")
          .append(key.name)
          .append("` | `--")
          .append(flagName(key.name))
          .append("` | `")
          .append(envName(key.name))
          .append("` | `")
          .append(defaultText(key))
          .append("` | ")
          .append(key.documentation.replace("|", "\\|"))
          .append(" |\n");
    }
    return sb.toString();
  }

  private static String defaultText(ConfigDef.ConfigKey key) {
    if (!key.hasDefault()) {
      return "(required)";
    }
    Object d = key.defaultValue;
    if (d == null) {
      return "(none)";
    }
    if (d instanceof List<?> list) {
      return String.join(",", list.stream().map(Object::toString).toList());
    }
    return d.toString();
  }
}
