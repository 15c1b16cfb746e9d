package io.schedlens.cli.probe;

import io.schedlens.common.config.AppConfig;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.common.config.DurationSetting;
import io.schedlens.common.http.HttpTls;
import io.schedlens.common.http.Secrets;
import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * {@code ./schedlens probe --collector-url URL --streams-url URL}: checks an installed schedlens as
 * a client in the cluster would (the chart's {@code helm test} pod runs it): both apps ready, and
 * the API's pending-pods list answered with the API token. Retries until every check passes or
 * {@code --wait} ends (pods may still be starting); exit 0 when all pass, 1 otherwise.
 */
public final class ProbeCommand {

  public static final String COLLECTOR_URL = "collector.url";
  public static final String STREAMS_URL = "streams.url";
  public static final String API_TOKEN = "api.token";
  public static final String TLS_CA = "http.tls.ca";
  public static final String WAIT = "wait";
  public static final String TIMEOUT = "timeout";

  public static final ConfigDef DEF =
      Secrets.define(
              new ConfigDef()
                  .define(
                      COLLECTOR_URL,
                      Type.STRING,
                      "",
                      Importance.HIGH,
                      "Base URL of the collector, e.g. http://schedlens-collector.schedlens.svc:9470: its /readyz must answer 200.")
                  .define(
                      STREAMS_URL,
                      Type.STRING,
                      "",
                      Importance.HIGH,
                      "Base URL of the streams app, e.g. http://schedlens-streams.schedlens.svc:9471: its /readyz must answer 200, and /api/pods?state=pending a pod list."),
              API_TOKEN,
              "The bearer token of the streams app's /api (the Secret it reads).")
          .define(
              TLS_CA,
              Type.STRING,
              "",
              Importance.MEDIUM,
              "PEM CA to trust for https URLs (the TLS Secret's ca.crt). Empty: the JVM's trust store.")
          .define(
              WAIT,
              Type.STRING,
              "2m",
              DurationSetting.atLeast(Duration.ZERO),
              Importance.MEDIUM,
              "How long to retry until every check passes (pods may still be starting). 0: one try.")
          .define(
              TIMEOUT,
              Type.STRING,
              "10s",
              DurationSetting.atLeast(Duration.ofMillis(100)),
              Importance.LOW,
              "Time for each request to connect and answer.");

  private static final Duration RETRY_EVERY = Duration.ofSeconds(3);

  private static final class Config extends AppConfig {
    Config(Map<String, Object> values, Map<String, Object> kafka) {
      super(DEF, values, kafka);
    }
  }

  private ProbeCommand() {}

  /** The checks' lines to {@code out}, progress while retrying to {@code err}. */
  public static int run(
      List<String> args, Map<String, String> env, PrintStream out, PrintStream err)
      throws InterruptedException {
    CommandLineSettings settings = CommandLineSettings.load(DEF, args, env);
    if (settings.help()) {
      out.println(
          "usage: ./schedlens probe --collector-url URL --streams-url URL"
              + " [--api-token-file FILE] [--http-tls-ca FILE]\n");
      out.print(CommandLineSettings.helpText(DEF));
      return 0;
    }
    Config config = new Config(settings.values(), settings.kafka());
    String collector = url(config, COLLECTOR_URL);
    String streams = url(config, STREAMS_URL);
    String token = Secrets.read(config, API_TOKEN);
    if (token == null) {
      throw new ConfigException(
          "give the API token: SCHEDLENS_API_TOKEN_FILE (a mounted Secret) or --api-token-file");
    }
    SSLContext tls;
    try {
      tls = HttpTls.clientContext(config.getString(TLS_CA));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(TLS_CA + ": " + e.getMessage());
    }
    InstallProbe probe =
        new InstallProbe(collector, streams, token, tls, config.getDuration(TIMEOUT));
    long deadline = System.nanoTime() + config.getDuration(WAIT).toNanos();
    List<InstallProbe.Result> results = probe.run();
    while (!allPassed(results) && System.nanoTime() < deadline) {
      long left = Duration.ofNanos(deadline - System.nanoTime()).toSeconds();
      err.println(
          "probe: "
              + results.stream().filter(r -> !r.passed()).count()
              + " of "
              + results.size()
              + " checks failing, retrying for "
              + left
              + " s more: "
              + results.stream().filter(r -> !r.passed()).findFirst().orElseThrow().line());
      Thread.sleep(RETRY_EVERY.toMillis());
      results = probe.run();
    }
    results.forEach(r -> out.println("probe: " + r.line()));
    if (allPassed(results)) {
      out.println("probe: schedlens answers as installed");
      return 0;
    }
    out.println(
        "probe: schedlens does not answer as installed; docs/operators/install.md (steps 3 and 7,"
            + " helm test) says how to look");
    return 1;
  }

  private static boolean allPassed(List<InstallProbe.Result> results) {
    return results.stream().allMatch(InstallProbe.Result::passed);
  }

  private static String url(Config config, String name) {
    String url = config.getString(name);
    if (url.isBlank()) {
      throw new ConfigException("give --" + name.replace('.', '-') + " (http:// or https://)");
    }
    try {
      URI uri = URI.create(url);
      if (!List.of("http", "https").contains(uri.getScheme()) || uri.getHost() == null) {
        throw new IllegalArgumentException("not an http:// or https:// URL");
      }
    } catch (IllegalArgumentException e) {
      throw new ConfigException(name + " " + url + ": " + e.getMessage());
    }
    return url;
  }
}
