package io.schedlens.common.config;

import io.schedlens.base.Durations;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * Base of every command's typed configuration: Kafka's {@link ConfigDef} parses and validates each
 * setting (a bad value fails at start with a message naming the setting), plus duration accessors
 * and the Kafka client settings that pass through.
 */
public abstract class AppConfig extends AbstractConfig {

  /** Default bootstrap servers when none are configured. */
  public static final String DEFAULT_BOOTSTRAP = "127.0.0.1:9092";

  private final Map<String, Object> kafka;

  protected AppConfig(ConfigDef def, Map<String, Object> values, Map<String, Object> kafka) {
    super(def, values, false);
    Map<String, Object> k = new LinkedHashMap<>(kafka);
    k.putIfAbsent(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG, DEFAULT_BOOTSTRAP);
    this.kafka = Map.copyOf(k);
  }

  /** A duration-valued setting (validated by {@link Durations#atLeast}). */
  public Duration getDuration(String name) {
    String value = getString(name);
    try {
      return Durations.parse(value);
    } catch (IllegalArgumentException e) {
      throw new ConfigException(name, value, e.getMessage());
    }
  }

  /** Kafka client settings common to every client of this command (bootstrap, security, ...). */
  public Map<String, Object> kafkaClientSettings() {
    return kafka;
  }

  /** The bootstrap servers the clients connect to. */
  public String bootstrapServers() {
    return kafka.get(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG).toString();
  }
}
