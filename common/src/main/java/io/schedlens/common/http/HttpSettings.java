package io.schedlens.common.http;

import java.util.function.Supplier;
import javax.net.ssl.SSLContext;
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

  private HttpSettings() {}

  /**
   * Adds the shared settings to a command's.
   *
   * @param serves what the port serves, for the settings' documentation
   */
  public static ConfigDef define(ConfigDef def, String serves) {
    return def.define(
            PROBE_PORT,
            ConfigDef.Type.INT,
            -1,
            ConfigDef.Range.between(-1, 65535),
            ConfigDef.Importance.MEDIUM,
            "A port of their own for /healthz and /readyz, with threads of their own, so that"
                + " clients of http.port (however many or slow) cannot keep the kubelet's probes"
                + " from an answer; the manifests point the probes at it. -1: the probes only on"
                + " http.port.")
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
                + " PKCS8).");
  }

  /**
   * The server context of {@code http.tls.cert} and {@code http.tls.key}, or null for plain HTTP;
   * files that cannot be used are a {@link ConfigException} naming them.
   */
  public static SSLContext serverTls(AbstractConfig config) {
    try {
      return HttpTls.serverContext(config.getString(TLS_CERT), config.getString(TLS_KEY));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
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
