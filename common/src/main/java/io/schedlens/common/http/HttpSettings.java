package io.schedlens.common.http;

import io.schedlens.base.Durations;
import io.schedlens.common.config.AppConfig;
import io.schedlens.common.config.DurationSetting;
import java.time.Duration;
import java.util.function.Supplier;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * The HTTP settings the collector and the streams app share, beside their own host and port: the
 * probes' own port ({@code http.probe.port}) and TLS from a TLS Secret's files ({@code
 * http.tls.cert}, {@code http.tls.key}), defined and read in one place.
 */
public final class HttpSettings {

  public static final String PROBE_PORT = "http.probe.port";
  public static final String TLS_CERT = "http.tls.cert";
  public static final String TLS_KEY = "http.tls.key";
  public static final String TLS_RELOAD = "http.tls.reload.interval";
  public static final String THREADS = "http.threads";
  public static final String MAX_CONNECTIONS = "http.max.connections";
  public static final String IDLE_TIMEOUT = "http.idle.timeout";
  public static final String BODY_DEADLINE = "http.body.deadline";

  static final int DEFAULT_MAX_CONNECTIONS = 4096;
  static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(30);

  /** A request body up to this size is read before its handler gets a thread. */
  static final int DEFAULT_EAGER_BODY = 1 << 20;

  /** Bodies read so, all requests of a port together. */
  static final int DEFAULT_EAGER_BUDGET = 32 << 20;

  static final Duration DEFAULT_BODY_DEADLINE = Duration.ofSeconds(60);

  private HttpSettings() {}

  /**
   * Adds the shared settings to a command's.
   *
   * @param serves what the port serves, for the settings' documentation
   */
  public static ConfigDef define(ConfigDef def, String serves, int threads) {
    return def.define(
            THREADS,
            ConfigDef.Type.INT,
            threads,
            ConfigDef.Range.between(1, 1024),
            ConfigDef.Importance.LOW,
            "Requests handled at once on http.port (besides /metrics and the probes, which have"
                + " threads of their own); more wait, holding no thread, up to 5 s and are then"
                + " answered 503. Idle and half-sent connections hold no thread, and a request"
                + " body up to 1 MiB is read before a thread is given to its request (32 MiB of"
                + " such bodies at most, all requests together).")
        .define(
            MAX_CONNECTIONS,
            ConfigDef.Type.INT,
            DEFAULT_MAX_CONNECTIONS,
            ConfigDef.Range.atLeast(16),
            ConfigDef.Importance.LOW,
            "Open connections http.port takes at once; further ones wait in the listen queue"
                + " until one closes. Keep it below the process's file descriptor limit.")
        .define(
            IDLE_TIMEOUT,
            ConfigDef.Type.STRING,
            Durations.format(DEFAULT_IDLE_TIMEOUT),
            DurationSetting.atLeast(Duration.ofSeconds(1)),
            ConfigDef.Importance.LOW,
            "A connection of http.port that sends nothing for this long, idle between requests or"
                + " stalled inside one (a header or body sent in part), is closed. Keep it above"
                + " the log shipper's keep-alive idle time (Fluent Bit net.keepalive_idle_timeout,"
                + " 30 s by default) or let the shipper close first.")
        .define(
            BODY_DEADLINE,
            ConfigDef.Type.STRING,
            Durations.format(DEFAULT_BODY_DEADLINE),
            DurationSetting.atLeast(Duration.ofSeconds(1)),
            ConfigDef.Importance.LOW,
            "A request body that has not come whole this long after its request started is cut"
                + " off (408, the connection closed): a client sending a few bytes every few"
                + " seconds is never idle for http.idle.timeout, and would otherwise hold its"
                + " request for as long as it liked. A log shipper's batch of 16 MiB takes well"
                + " under a second on a cluster's network.")
        .define(
            PROBE_PORT,
            ConfigDef.Type.INT,
            -1,
            ConfigDef.Range.between(-1, 65535),
            ConfigDef.Importance.MEDIUM,
            "A port of their own for /healthz and /readyz, with a server and threads of their own;"
                + " the manifests point the kubelet's probes at it. -1: the probes only on"
                + " http.port (where they are served from threads the other requests cannot take).")
        .define(
            TLS_CERT,
            ConfigDef.Type.STRING,
            "",
            ConfigDef.Importance.MEDIUM,
            "PEM certificate chain for serving "
                + serves
                + " over HTTPS (a TLS Secret's tls.crt, mounted). Empty: plain HTTP.")
        .define(
            TLS_KEY,
            ConfigDef.Type.STRING,
            "",
            ConfigDef.Importance.MEDIUM,
            "PEM PKCS#8 private key of http.tls.cert (tls.key; cert-manager: privateKey.encoding"
                + " PKCS8).")
        .define(
            TLS_RELOAD,
            ConfigDef.Type.STRING,
            "10s",
            DurationSetting.atLeast(Duration.ofSeconds(1)),
            ConfigDef.Importance.LOW,
            "How often http.tls.cert and http.tls.key are checked for a renewed certificate"
                + " (cert-manager renews it in the same Secret, and the kubelet updates the mounted"
                + " files within a minute or so): new connections then get it, without a"
                + " restart.");
  }

  /**
   * The server TLS of {@code http.tls.cert} and {@code http.tls.key}, or null for plain HTTP; files
   * that cannot be used are a {@link ConfigException} naming them.
   */
  public static ServerTls serverTls(AbstractConfig config) {
    try {
      return ServerTls.of(config.getString(TLS_CERT), config.getString(TLS_KEY));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
  }

  /** Has the endpoint serve a renewed certificate as its files change. Returns the endpoint. */
  public static HttpEndpoint reloadingTls(HttpEndpoint endpoint, AppConfig config, ServerTls tls) {
    return endpoint.reloadingTls(tls, config.getDuration(TLS_RELOAD));
  }

  /** The limits of http.port from the settings. */
  public static HttpEndpoint.Limits limits(AppConfig config) {
    HttpEndpoint.Limits d = HttpEndpoint.Limits.of(config.getInt(THREADS));
    return new HttpEndpoint.Limits(
        d.threads(),
        config.getInt(MAX_CONNECTIONS),
        config.getDuration(IDLE_TIMEOUT),
        d.queueWait(),
        d.eagerBodyBytes(),
        d.eagerBudgetBytes(),
        d.stopGrace(),
        d.peerThreads(),
        config.getDuration(BODY_DEADLINE));
  }

  /**
   * Starts the probes' own port on the endpoint when {@code http.probe.port} asks for one.
   *
   * @return the endpoint
   */
  public static HttpEndpoint withProbes(
      HttpEndpoint endpoint,
      AbstractConfig config,
      String host,
      Supplier<HttpEndpoint.Readiness> readiness) {
    int port = config.getInt(PROBE_PORT);
    return port < 0 ? endpoint : endpoint.withProbesOn(host, port, readiness);
  }
}
