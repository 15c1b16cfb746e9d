package io.schedlens.streams;

import io.schedlens.common.config.AppConfig;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.common.config.DurationSetting;
import io.schedlens.common.http.BearerToken;
import io.schedlens.common.http.HttpSettings;
import io.schedlens.common.http.HttpTls;
import io.schedlens.common.http.PeerCalls;
import io.schedlens.common.http.Secrets;
import io.schedlens.common.http.ServerTls;
import io.schedlens.serving.pages.PagesAccess;
import io.schedlens.timeline.TimelineSettings;
import io.schedlens.topology.metrics.StreamsMetrics;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import javax.net.ssl.SSLContext;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/** Settings of {@code ./schedlens streams}; each is documented in the README's table. */
public final class StreamsAppConfig extends AppConfig {

  public static final String APPLICATION_ID = "application.id";
  public static final String STATE_DIR = "state.dir";
  public static final String TOPIC_PREFIX = "topic.prefix";
  public static final String GRACE = "grace.period";
  public static final String EMIT_INTERVAL = "emit.interval";
  public static final String GPU_SAMPLE_INTERVAL = "gpu.sample.interval";
  public static final String GPU_MAX_GAP = "gpu.max.gap";
  public static final String SLO = "slo";
  public static final String STARVATION_PENDING = "starvation.pending";
  public static final String STARVATION_PREEMPTIONS = "starvation.preemptions";
  public static final String EXPERIMENT_LABEL = "label.experiment";
  public static final String ARM_LABEL = "label.arm";
  public static final String REPEAT_LABEL = "label.repeat";
  public static final String APPLICATION_LABEL = "label.application";
  public static final String CHECKPOINT_ANNOTATION = "annotation.checkpoint";
  public static final String DEDUP_WINDOW = "dedup.window";
  public static final String ORPHAN_TIMEOUT = "orphan.timeout";
  public static final String API_RETENTION = "api.final.retention";
  public static final String HTTP_HOST = "http.host";
  public static final String HTTP_PORT = "http.port";
  public static final String API_AUTH = "api.auth";
  public static final String HTTP_TLS_CERT = HttpSettings.TLS_CERT;
  public static final String HTTP_PROBE_PORT = HttpSettings.PROBE_PORT;
  public static final String HTTP_TLS_KEY = HttpSettings.TLS_KEY;
  public static final String HTTP_TLS_CA = "http.tls.ca";
  public static final String API_TOKEN = "api.token";
  public static final String API_PEER_TOKEN = "api.peer.token";
  public static final String API_SESSION_KEY = "api.session.key";
  public static final String API_SESSION_TTL = "api.session.ttl";
  public static final String API_CLIENT_ADDRESS_HEADER = "api.client.address.header";
  public static final String METRICS_ARMS = "metrics.arm.values.max";
  public static final String METRICS_REPEATS = "metrics.repeat.values.max";
  public static final String ADVERTISED = "application.server";
  public static final String THREADS = "num.stream.threads";
  public static final String STANDBYS = "num.standby.replicas";
  public static final String COMMIT_INTERVAL = "commit.interval";
  public static final String ROCKSDB_MEMORY = "rocksdb.memory.mb";
  public static final String REPLICATION = "replication.factor";
  public static final String TOPICS_CREATE = "topics.create";
  public static final String TOPICS_PARTITIONS = "topics.partitions";

  public static final ConfigDef DEF =
      new ConfigDef()
          .define(
              APPLICATION_ID,
              Type.STRING,
              "schedlens-streams",
              Importance.HIGH,
              "Kafka Streams application id: consumer group, prefix of changelog topics. Instances with the same id share the work.")
          .define(
              STATE_DIR,
              Type.STRING,
              System.getProperty("java.io.tmpdir") + "/schedlens-streams",
              Importance.HIGH,
              "Directory of the local state stores (RocksDB). Keep it on a persistent volume to restart fast.")
          .define(
              TOPIC_PREFIX,
              Type.STRING,
              "schedlens.",
              Importance.LOW,
              "Prefix of every topic name.")
          .define(
              GRACE,
              Type.STRING,
              "2m",
              DurationSetting.atLeast(Duration.ZERO),
              Importance.HIGH,
              "How late an input may arrive and still count as if on time; also how long a gone pod's final timeline waits.")
          .define(
              EMIT_INTERVAL,
              Type.STRING,
              "5s",
              DurationSetting.atLeast(Duration.ofMillis(10)),
              Importance.MEDIUM,
              "How often timelines whose counters changed (GPU samples, requests) are re-emitted. Lifecycle changes emit at once.")
          .define(
              GPU_SAMPLE_INTERVAL,
              Type.STRING,
              "15s",
              DurationSetting.atLeast(Duration.ofMillis(1)),
              Importance.MEDIUM,
              "The dcgm-exporter scrape interval: the span the first sample of a GPU stands for.")
          .define(
              GPU_MAX_GAP,
              Type.STRING,
              "60s",
              DurationSetting.atLeast(Duration.ofMillis(1)),
              Importance.LOW,
              "The longest span one GPU sample stands for; a longer gap is missing data, not busy or idle time.")
          .define(
              SLO,
              Type.LIST,
              List.of(),
              Importance.HIGH,
              "Latency SLOs as NAME=MILLIS, NAME a service or a priority class (the service's wins), e.g. chat=800,interactive=1000.")
          .define(
              STARVATION_PENDING,
              Type.STRING,
              "10m",
              DurationSetting.atLeast(Duration.ZERO),
              Importance.MEDIUM,
              "A pod pending longer than this is starving.")
          .define(
              STARVATION_PREEMPTIONS,
              Type.INT,
              3,
              Range.atLeast(1),
              Importance.MEDIUM,
              "A workload preempted this many times without completing is starving.")
          .define(
              EXPERIMENT_LABEL,
              Type.STRING,
              "schedlens.io/experiment",
              Importance.LOW,
              "Pod label naming the experiment.")
          .define(
              ARM_LABEL,
              Type.STRING,
              "schedlens.io/arm",
              Importance.LOW,
              "Pod label naming the experiment arm.")
          .define(
              REPEAT_LABEL,
              Type.STRING,
              "schedlens.io/repeat",
              Importance.LOW,
              "Pod label naming the repeat.")
          .define(
              APPLICATION_LABEL,
              Type.LIST,
              List.of("app.kubernetes.io/name", "app"),
              Importance.LOW,
              "Pod labels naming the application (the experiment report's rows), the first a pod carries wins; a pod with none belongs to the application named after its workload.")
          .define(
              CHECKPOINT_ANNOTATION,
              Type.STRING,
              "schedlens.io/last-checkpoint",
              Importance.LOW,
              "Pod annotation with the RFC 3339 time of the last durable checkpoint.")
          .define(
              DEDUP_WINDOW,
              Type.STRING,
              "10m",
              DurationSetting.atLeast(Duration.ofSeconds(1)),
              Importance.LOW,
              "How long a request id is remembered per pod and second: a request-log line sent again within it (a shipper's retry) counts once. At least the grace period (a shorter value is raised to it). Lines without request_id count as they come.")
          .define(
              ORPHAN_TIMEOUT,
              Type.STRING,
              "1h",
              DurationSetting.atLeast(Duration.ofSeconds(1)),
              Importance.LOW,
              "Inputs for a pod UID that is never observed are given up after this (dead-lettered as unknown-pod). Also how long the state of a deleted workload (or of one never observed) is kept after its last pod ended, for late facts; then it is freed.")
          .define(
              API_RETENTION,
              Type.STRING,
              "6h",
              DurationSetting.atLeast(Duration.ZERO),
              Importance.LOW,
              "How long final timelines stay queryable in the API after the pod is gone.")
          .define(
              HTTP_HOST,
              Type.STRING,
              "127.0.0.1",
              Importance.MEDIUM,
              "Address of /metrics, /healthz, /readyz and /api. Use 0.0.0.0 in a pod.")
          .define(
              HTTP_PORT,
              Type.INT,
              9471,
              Range.between(0, 65535),
              Importance.MEDIUM,
              "Port of /metrics, probes and /api.")
          .define(
              HTTP_TLS_CA,
              Type.STRING,
              "",
              Importance.MEDIUM,
              "PEM CA bundle the instances trust when they call each other over HTTPS (a TLS Secret's ca.crt). Empty: the JVM's trust store.")
          .define(
              ADVERTISED,
              Type.STRING,
              "",
              Importance.MEDIUM,
              "host:port other instances use to reach this one's /api (Kafka Streams application.server). Empty: http.host:http.port.")
          .define(
              THREADS, Type.INT, 1, Range.atLeast(1), Importance.MEDIUM, "Kafka Streams threads.")
          .define(
              STANDBYS,
              Type.INT,
              0,
              Range.atLeast(0),
              Importance.MEDIUM,
              "Standby replicas of each state store, for fast fail-over.")
          .define(
              COMMIT_INTERVAL,
              Type.STRING,
              "100ms",
              DurationSetting.atLeast(Duration.ofMillis(10)),
              Importance.LOW,
              "Transaction commit interval; bounds the latency each stage adds.")
          .define(
              ROCKSDB_MEMORY,
              Type.INT,
              256,
              Range.atLeast(32),
              Importance.MEDIUM,
              "Memory of all RocksDB stores of this instance together, MiB: half write buffers, half block cache. Under a high input rate allow about 32 MiB per partition the instance works on; with much less the write buffers flush so often that RocksDB stalls the stream threads.")
          .define(
              REPLICATION,
              Type.INT,
              -1,
              Range.atLeast(-1),
              Importance.LOW,
              "Replication factor of changelog topics and of topics this app creates; -1: the broker's default.")
          .define(
              TOPICS_CREATE,
              Type.BOOLEAN,
              true,
              Importance.MEDIUM,
              "Create missing schedlens topics with their settings at start. Off where topics are managed elsewhere (Strimzi KafkaTopic resources in deploy/).")
          .define(
              TOPICS_PARTITIONS,
              Type.INT,
              6,
              Range.atLeast(1),
              Importance.MEDIUM,
              "Partitions of topics this app creates; when some of the joined topics exist, their count is used so that all stay co-partitioned.");

  static {
    BearerToken.define(DEF, "api", "/api");
    Secrets.define(
        DEF,
        API_PEER_TOKEN,
        "Bearer token the instances present to each other (their calls for what each one holds),"
            + " apart from the clients' api.token, so that a client can neither pose as an"
            + " instance nor take the threads kept for them; at least 32 characters. Unset: one"
            + " derived from api.token, which every client holding api.token could derive too.");
    Secrets.define(
        DEF,
        API_SESSION_KEY,
        "Key that signs the pages' login sessions (the cookie holds a signed, expiring session,"
            + " never the token); every instance needs the same. Unset: derived from api.token,"
            + " so that a new token also ends every session. Change it to end every session.");
    DEF.define(
        API_SESSION_TTL,
        Type.STRING,
        "12h",
        DurationSetting.atLeast(Duration.ofMinutes(1)),
        Importance.MEDIUM,
        "How long a login to the pages lasts; /logout ends it sooner.");
    DEF.define(
        METRICS_ARMS,
        Type.INT,
        StreamsMetrics.DEFAULT_ARMS,
        Range.between(1, 1000),
        Importance.LOW,
        "Values of the metrics' arm label kept (from the pods' experiment label); further ones are"
            + " reported as _other and counted in schedlens_metric_label_overflow_total, so that"
            + " whoever may create pods cannot make unbounded series.");
    DEF.define(
        METRICS_REPEATS,
        Type.INT,
        StreamsMetrics.DEFAULT_REPEATS,
        Range.between(1, 10000),
        Importance.LOW,
        "Values of the metrics' repeat label kept, as metrics.arm.values.max.");
    DEF.define(
        API_CLIENT_ADDRESS_HEADER,
        Type.STRING,
        "",
        Importance.LOW,
        "The header a proxy in front (the pages' Ingress) writes the client's address in, e.g."
            + " X-Forwarded-For; its last value (the one the nearest proxy added) tells clients"
            + " apart for the back-off after failed logins. Empty: the connection's address.");
    HttpSettings.define(
        DEF,
        "/api, /metrics and the probes of every instance (which then call each other so; the certificate must name their application.server hosts)",
        // A list answer holds a page of timelines while it is written: more at once costs heap
        // (ApiLoad at -Xmx512m: 16 threads halved the pages served and stalled the probes in GC).
        4);
  }

  public StreamsAppConfig(Map<String, Object> values, Map<String, Object> kafka) {
    super(DEF, values, kafka);
    slos();
  }

  /** The de-duplication window: as configured, but never shorter than the grace period. */
  public Duration dedupWindow() {
    Duration d = getDuration(DEDUP_WINDOW);
    return d.compareTo(getDuration(GRACE)) < 0 ? getDuration(GRACE) : d;
  }

  public static StreamsAppConfig from(CommandLineSettings s) {
    StreamsAppConfig c = new StreamsAppConfig(s.values(), s.kafka());
    c.httpTls(); // a certificate, key or CA that cannot be used fails here, naming the file
    c.httpTlsTrust();
    c.apiToken(); // token mode without a token fails here: a missing Secret is no "none"
    c.peerCalls();
    c.pagesAccess();
    return c;
  }

  /** The server TLS of http.tls.cert and http.tls.key, or null for plain HTTP. */
  public ServerTls httpTls() {
    return HttpSettings.serverTls(this);
  }

  /** What the calls to the other instances trust (http.tls.ca), or null for the JVM's store. */
  public SSLContext httpTlsTrust() {
    try {
      return HttpTls.clientContext(getString(HTTP_TLS_CA));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
  }

  /** The token /api requires, or null (api.auth none). */
  public String apiToken() {
    return BearerToken.required(this, "api", "/api (pod names, namespaces, labels of the cluster)");
  }

  /**
   * How the instances know each other's calls: api.peer.token, else a token derived from api.token;
   * without authentication, by their {@code local=true}.
   */
  public PeerCalls peerCalls() {
    String api = apiToken();
    if (api == null) {
      return PeerCalls.UNAUTHENTICATED;
    }
    String own = Secrets.read(this, API_PEER_TOKEN);
    if (own != null && own.length() < BearerToken.MIN_LENGTH) {
      throw new ConfigException(
          API_PEER_TOKEN + " is shorter than " + BearerToken.MIN_LENGTH + " characters");
    }
    if (own != null && own.equals(api)) {
      throw new ConfigException(
          API_PEER_TOKEN + " is api.token: give the instances a token of their own");
    }
    return PeerCalls.withToken(own != null ? own : Secrets.derive(api, "schedlens peer token v1"));
  }

  /** Who may see the pages and how a browser logs in. */
  public PagesAccess pagesAccess() {
    String token = apiToken();
    if (token == null) {
      return PagesAccess.open();
    }
    String key = Secrets.read(this, API_SESSION_KEY);
    String header = getString(API_CLIENT_ADDRESS_HEADER);
    return new PagesAccess(
        token,
        key != null ? key.getBytes(StandardCharsets.UTF_8) : null,
        getDuration(API_SESSION_TTL),
        header.isBlank() ? null : header.strip(),
        Clock.systemUTC());
  }

  /** The SLOs, by service or priority class, in milliseconds. */
  public Map<String, Double> slos() {
    Map<String, Double> slos = new LinkedHashMap<>();
    for (String entry : getList(SLO)) {
      int eq = entry.indexOf('=');
      try {
        if (eq <= 0) {
          throw new NumberFormatException();
        }
        double ms = Double.parseDouble(entry.substring(eq + 1).trim());
        if (!(ms > 0)) {
          throw new NumberFormatException();
        }
        slos.put(entry.substring(0, eq).trim(), ms);
      } catch (NumberFormatException e) {
        throw new ConfigException(
            SLO, entry, "expected NAME=MILLIS with a positive number, e.g. chat=800");
      }
    }
    return slos;
  }

  /** The timeline logic's settings. */
  public TimelineSettings timelineSettings() {
    return new TimelineSettings(
        getDuration(GRACE),
        getDuration(GPU_SAMPLE_INTERVAL),
        getDuration(GPU_MAX_GAP),
        slos(),
        getDuration(STARVATION_PENDING),
        getInt(STARVATION_PREEMPTIONS),
        getString(EXPERIMENT_LABEL),
        getString(ARM_LABEL),
        getString(REPEAT_LABEL),
        getList(APPLICATION_LABEL),
        getString(CHECKPOINT_ANNOTATION));
  }
}
