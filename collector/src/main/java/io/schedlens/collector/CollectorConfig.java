package io.schedlens.collector;

import io.schedlens.base.GpuShares;
import io.schedlens.collector.k8s.OwnerKind;
import io.schedlens.common.config.AppConfig;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.common.config.DurationSetting;
import io.schedlens.common.http.BearerToken;
import io.schedlens.common.http.HttpSettings;
import io.schedlens.common.http.ServerTls;
import io.schedlens.projections.InputBounds;
import io.schedlens.projections.k8s.PodProjection;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/** Settings of {@code ./schedlens collector}; each is documented in the README's table. */
public final class CollectorConfig extends AppConfig {

  public static final String KUBERNETES_ENABLED = "kubernetes.enabled";
  public static final String KUBERNETES_MASTER = "kubernetes.master";
  public static final String KUBECONFIG = "kubernetes.kubeconfig";
  public static final String NAMESPACES = "namespaces";
  public static final String LABEL_SELECTOR = "label.selector";
  public static final String EVENTS_APIS = "events.apis";
  public static final String POD_LABELS = "pod.labels";
  public static final String POD_ANNOTATIONS = "pod.annotations";
  public static final String GPU_SHARED_RESOURCES = "gpu.shared-resources";
  public static final String GPU_NODE_LABELS = "gpu.node-labels";
  public static final String READBACK = "startup.readback";
  public static final String WORKLOADS_WATCH = "workloads.watch";
  public static final String OWNERS_KINDS = "owners.kinds";
  public static final String QUEUES_WATCH = "queues.watch";
  public static final String QUEUES_DISCOVERY_INTERVAL = "queues.discovery.interval";
  public static final String EXPERIMENTS_WATCH = "experiments.watch";
  public static final String EXPERIMENTS_NAMESPACES = "experiments.namespaces";
  public static final String DCGM_TARGETS = "dcgm.targets";
  public static final String DCGM_DISCOVERY = "dcgm.discovery";
  public static final String DCGM_SERVICE_SELECTOR = "dcgm.service.selector";
  public static final String DCGM_NAMESPACES = "dcgm.namespaces";
  public static final String DCGM_PORT_NAME = "dcgm.port.name";
  public static final String DCGM_PATH = "dcgm.path";
  public static final String SCRAPE_INTERVAL = "scrape.interval";
  public static final String SCRAPE_TIMEOUT = "scrape.timeout";
  public static final String SCRAPE_BACKOFF_MAX = "scrape.backoff.max";
  public static final String SCRAPE_MAX_BYTES = "scrape.max.bytes";
  public static final String SCRAPE_FORGET_AFTER = "scrape.forget.after";
  public static final String HTTP_HOST = "http.host";
  public static final String HTTP_TLS_CERT = HttpSettings.TLS_CERT;
  public static final String HTTP_PROBE_PORT = HttpSettings.PROBE_PORT;
  public static final String HTTP_TLS_KEY = HttpSettings.TLS_KEY;
  public static final String HTTP_PORT = "http.port";
  public static final String INTAKE_TOKEN = "intake.token";
  public static final String INTAKE_AUTH = "intake.auth";
  public static final String INTAKE_MAX_BODY = "intake.max.body.bytes";
  public static final String INTAKE_MAX_LINE = "intake.max.line.bytes";
  public static final String INTAKE_FIELD_MAPPING = "intake.field.mapping";
  public static final String INTAKE_ACK_TIMEOUT = "intake.ack.timeout";
  public static final String INTAKE_RESEND_WINDOW = "intake.resend.window";
  public static final String INTAKE_MAX_INFLIGHT = "intake.max.inflight.bytes";
  public static final String INTAKE_MAX_ITEMS = "intake.max.items";
  public static final String BUFFER_RECORDS = "buffer.records";
  public static final String BUFFER_BYTES = "buffer.bytes";
  public static final String TOPIC_PREFIX = "topic.prefix";
  public static final String DLQ_MAX_BYTES = "dlq.max.value.bytes";
  public static final String PROGRESS_INTERVAL = "progress.interval";
  public static final String PROGRESS_ALLOWANCE = "progress.allowance";
  public static final String TIME_MAX_FUTURE = "time.max.future";
  public static final String TIME_MAX_AGE = "time.max.age";
  public static final String LATENCY_MAX = "latency.max.ms";

  public static final ConfigDef DEF =
      new ConfigDef()
          .define(
              KUBERNETES_ENABLED,
              Type.BOOLEAN,
              true,
              Importance.HIGH,
              "Watch Pods and Events of a Kubernetes API. Off: only the scraper and the intake run.")
          .define(
              KUBERNETES_MASTER,
              Type.STRING,
              "",
              Importance.HIGH,
              "Kubernetes API server URL. Empty: from the kubeconfig, or in-cluster service account.")
          .define(
              KUBECONFIG,
              Type.STRING,
              "",
              Importance.MEDIUM,
              "Path of a kubeconfig file. Empty: $KUBECONFIG, ~/.kube/config, or in-cluster.")
          .define(
              NAMESPACES,
              Type.LIST,
              List.of(),
              Importance.HIGH,
              "Namespaces to watch. Empty: all namespaces.")
          .define(
              LABEL_SELECTOR,
              Type.STRING,
              "",
              Importance.MEDIUM,
              "Label selector restricting the watched pods, e.g. 'schedlens.io/experiment'. Empty: all pods.")
          .define(
              EVENTS_APIS,
              Type.LIST,
              List.of("events.k8s.io/v1", "v1"),
              ConfigDef.ValidList.in(true, "events.k8s.io/v1", "v1"),
              Importance.LOW,
              "Event APIs to watch: events.k8s.io/v1 (the scheduler writes these) and v1 (the kubelet writes these). Both views of one event are sent once.")
          .define(
              POD_LABELS,
              Type.LIST,
              List.of(
                  "schedlens.io/experiment",
                  "schedlens.io/arm",
                  "schedlens.io/repeat",
                  "pod-template-hash",
                  "rollouts-pod-template-hash",
                  "app.kubernetes.io/name",
                  "app",
                  "leaderworkerset.sigs.k8s.io/group-index"),
              Importance.MEDIUM,
              "Pod labels carried on each observation: the experiment, arm and repeat keys, the template hashes of Deployments and Argo Rollouts (a pod whose ReplicaSet is not read is rolled up by them), the application labels (app.kubernetes.io/name, app), a LeaderWorkerSet pod's group (each group is a gang of its own), plus any extras.")
          .define(
              POD_ANNOTATIONS,
              Type.LIST,
              List.of("schedlens.io/last-checkpoint"),
              Importance.MEDIUM,
              "Pod annotations carried on each observation.")
          .define(
              GPU_SHARED_RESOURCES,
              Type.LIST,
              GpuShares.DEFAULT_SHARED,
              Importance.MEDIUM,
              "Extended resources that are time-sliced or MPS replicas of a GPU (the NVIDIA device plugin's sharing with renameByDefault: true names them nvidia.com/gpu.shared): GPU requests whose pods may share one GPU. nvidia.com/gpu and every nvidia.com/mig-* are GPU requests always.")
          .define(
              GPU_NODE_LABELS,
              Type.BOOLEAN,
              true,
              Importance.MEDIUM,
              "Read (list and watch) the nodes' NVIDIA labels that GPU feature discovery sets: <resource>.replicas and <resource>.sharing-strategy give a time-sliced or MPS replica's part of its GPU (1/replicas), <resource>.product or nvidia.com/gpu.product the model a MIG slice is counted on. Needs RBAC to list nodes (the chart's collector.nodeLabels); without it a shared replica counts as a whole GPU, marked assumed.")
          .define(
              READBACK,
              Type.BOOLEAN,
              true,
              Importance.LOW,
              "At start, read back which pods were last reported live, so that pods deleted while the collector was down are reported deleted.")
          .define(
              WORKLOADS_WATCH,
              Type.BOOLEAN,
              true,
              Importance.MEDIUM,
              "Also watch (read-only) Deployments, StatefulSets and Jobs in the namespaces, for the replicas each wants (schedlens.workloads); without it, the streams app infers them from the pods.")
          .define(
              OWNERS_KINDS,
              Type.LIST,
              List.of(
                  "apps/v1/ReplicaSet",
                  "apps/v1/Deployment",
                  "apps/v1/StatefulSet",
                  "batch/v1/Job",
                  "jobset.x-k8s.io/v1alpha2/JobSet",
                  "ray.io/v1/RayCluster"),
              OwnerKind.LIST,
              Importance.MEDIUM,
              "Kinds a pod's controller chain is followed through to its workload, the object no controller owns (group/version/Kind; v1/Kind for the core group), watched read-only with only their metadata kept. The default reaches Deployments and Argo Rollouts (through ReplicaSets), KServe InferenceServices in raw deployment mode (through Deployments), LeaderWorkerSets (through StatefulSets and leader pods), JobSets and Kubeflow TrainJobs (through Jobs and JobSets) and RayJobs (through RayClusters); a CronJob's Jobs stay workloads of their own. A kind the cluster does not serve is skipped. Empty: a pod's workload is its own controller (a ReplicaSet named by its pods' template hash is its Deployment or Rollout).")
          .define(
              QUEUES_WATCH,
              Type.BOOLEAN,
              true,
              Importance.MEDIUM,
              "Also watch (read-only) Kueue's Workloads (workloads.kueue.x-k8s.io, v1beta2 or v1beta1 as the cluster serves), for each Job's queue wait, admissions and Kueue's preemptions (schedlens.workloads). A cluster without Kueue is asked again every queues.discovery.interval; nothing is watched until it serves the API.")
          .define(
              QUEUES_DISCOVERY_INTERVAL,
              Type.STRING,
              "1m",
              DurationSetting.atLeast(Duration.ofSeconds(1)),
              Importance.LOW,
              "How often a cluster that does not serve Kueue's Workload API is asked again, so that the watch starts once Kueue is installed.")
          .define(
              EXPERIMENTS_WATCH,
              Type.BOOLEAN,
              true,
              Importance.LOW,
              "Also watch (read-only) the ConfigMaps labelled schedlens.io/experiment in the namespaces, whose data (change, fixed, metrics, repeats) heads the report (schedlens.experiments).")
          .define(
              EXPERIMENTS_NAMESPACES,
              Type.LIST,
              "",
              Importance.MEDIUM,
              "Namespaces whose experiment ConfigMaps are watched. Empty: the namespaces of the pod watch (all when that is empty). Give them where the collector may read ConfigMaps only there (a namespaced Role each, as deploy/ does).")
          .define(
              DCGM_TARGETS,
              Type.LIST,
              List.of(),
              Importance.HIGH,
              "Static dcgm-exporter URLs to scrape, e.g. http://10.0.0.5:9400/metrics.")
          .define(
              DCGM_DISCOVERY,
              Type.BOOLEAN,
              true,
              Importance.MEDIUM,
              "Discover dcgm-exporter endpoints from the EndpointSlices of Services matching dcgm.service.selector.")
          .define(
              DCGM_NAMESPACES,
              Type.LIST,
              "gpu-operator",
              Importance.MEDIUM,
              "Namespaces where dcgm-exporter's Service runs (the GPU Operator's: gpu-operator). Discovery looks only there: anywhere else, any tenant could publish a Service with the label and have its numbers taken for other people's GPU samples.")
          .define(
              DCGM_SERVICE_SELECTOR,
              Type.STRING,
              "app=nvidia-dcgm-exporter;app.kubernetes.io/name=dcgm-exporter",
              Importance.MEDIUM,
              "Label selectors of the dcgm-exporter Service, alternatives separated by ';' (a comma inside one selector means 'and'). EndpointSlices carry their Service's labels. The default finds both the NVIDIA GPU Operator's Service (app=nvidia-dcgm-exporter) and the standalone dcgm-exporter chart's (app.kubernetes.io/name=dcgm-exporter).")
          .define(
              DCGM_PORT_NAME,
              Type.LIST,
              "gpu-metrics,metrics",
              Importance.LOW,
              "Names of the metrics port in the EndpointSlice, in order of preference (the GPU Operator's is gpu-metrics, the dcgm-exporter chart's metrics). Empty: the first port.")
          .define(
              DCGM_PATH,
              Type.STRING,
              "/metrics",
              Importance.LOW,
              "HTTP path of discovered targets.")
          .define(
              SCRAPE_INTERVAL,
              Type.STRING,
              "15s",
              DurationSetting.atLeast(Duration.ofMillis(50)),
              Importance.MEDIUM,
              "Time between scrapes of each dcgm-exporter target.")
          .define(
              SCRAPE_TIMEOUT,
              Type.STRING,
              "10s",
              DurationSetting.atLeast(Duration.ofMillis(50)),
              Importance.LOW,
              "Time a scrape may take.")
          .define(
              SCRAPE_BACKOFF_MAX,
              Type.STRING,
              "2m",
              DurationSetting.atLeast(Duration.ZERO),
              Importance.LOW,
              "Longest pause after repeated failures of a target (doubling from one interval).")
          .define(
              SCRAPE_FORGET_AFTER,
              Type.STRING,
              "1m",
              DurationSetting.atLeast(Duration.ZERO),
              Importance.LOW,
              "A dcgm-exporter target that discovery no longer names (its node left the cluster) is forgotten after this long: its state and its series (schedlens_collector_scrape_up, ...), so that SchedlensDcgmScrapeFailing stops.")
          .define(
              SCRAPE_MAX_BYTES,
              Type.INT,
              32 << 20,
              Range.atLeast(1024),
              Importance.LOW,
              "Largest scrape body read, bytes.")
          .define(
              HTTP_HOST,
              Type.STRING,
              "127.0.0.1",
              Importance.MEDIUM,
              "Address of /metrics, /healthz, /readyz and the intake. Use 0.0.0.0 in a pod.")
          .define(
              HTTP_PORT,
              Type.INT,
              9470,
              Range.between(0, 65535),
              Importance.MEDIUM,
              "Port of /metrics, /healthz, /readyz and POST /v1/request-logs (0: any free port).")
          .define(
              INTAKE_MAX_BODY,
              Type.INT,
              16 << 20,
              Range.atLeast(1024),
              Importance.LOW,
              "Largest request-log body (after gzip decoding), bytes; larger bodies get 413.")
          .define(
              INTAKE_MAX_LINE,
              Type.INT,
              64 << 10,
              Range.atLeast(128),
              Importance.LOW,
              "Largest request-log line, bytes; longer lines go to the dead-letter topic.")
          .define(
              INTAKE_FIELD_MAPPING,
              Type.LIST,
              List.of(),
              Importance.MEDIUM,
              "Where request-log fields are in the JSON, as FIELD=PATH entries, e.g. pod=kubernetes.pod_name,latency_ms=duration_ms.")
          .define(
              INTAKE_ACK_TIMEOUT,
              Type.STRING,
              "10s",
              DurationSetting.atLeast(Duration.ofMillis(100)),
              Importance.LOW,
              "How long the intake waits for Kafka to acknowledge a batch. Past it the lines stay in the send buffer, to be delivered, and the answer is 202 with delivered=false: a 503 would make the shipper send them again.")
          .define(
              INTAKE_MAX_INFLIGHT,
              Type.INT,
              48 << 20,
              Range.atLeast(1024),
              Importance.LOW,
              "Bytes the intake holds at once, across all requests: bodies as their bytes arrive (after gzip decoding), then the records parsed from them (their keys and values, plus 128 each) until the send buffer takes them. A request that finds no room is answered 503 and sends nothing on, so that the shipper sends it again; one that needs more than the whole of it, 413. At least intake.max.body.bytes is used; the default holds a 16 MiB body of the smallest lines with their records.")
          .define(
              INTAKE_MAX_ITEMS,
              Type.INT,
              100_000,
              Range.atLeast(1),
              Importance.LOW,
              "Items one request may carry: JSON lines or array elements, or OTLP spans and log records with the resource and scope entries that hold them. A request with more is answered 413 and sends nothing on.")
          .define(
              INTAKE_RESEND_WINDOW,
              Type.STRING,
              "5m",
              DurationSetting.atLeast(Duration.ZERO),
              Importance.LOW,
              "After the intake held a log shipper up (answered 503, or took longer than progress.allowance to answer), the request topic's progress marks stay at the oldest line it was holding until no batch has been refused, slow or behind (lines older than the trouble) for this long, so that the lines the shipper sends late are not late data. Set it to at least the shipper's longest wait between retries (Fluent Bit scheduler.cap, Vector retry_max_duration_secs).")
          .define(
              PROGRESS_INTERVAL,
              Type.STRING,
              "1s",
              DurationSetting.atLeast(Duration.ofMillis(10)),
              Importance.LOW,
              "How often the collector writes a progress mark to every partition of its input topics: the streams app attributes samples and requests, and sends final timelines, as these marks advance.")
          .define(
              PROGRESS_ALLOWANCE,
              Type.STRING,
              "2s",
              DurationSetting.atLeast(Duration.ZERO),
              Importance.LOW,
              "How far behind its clock the collector's progress marks stay: the time the Kubernetes watch may take to deliver a change (a mark says that every pod created up to its time has been sent).")
          .define(
              TIME_MAX_FUTURE,
              Type.STRING,
              "5m",
              DurationSetting.atLeast(Duration.ZERO),
              Importance.LOW,
              "An input (request-log line, GPU sample, event) whose time is further ahead of the collector's clock is rejected on its own, to the dead-letter topic (Kafka refuses records over an hour ahead, and would fail the whole batch).")
          .define(
              TIME_MAX_AGE,
              Type.STRING,
              "7d",
              DurationSetting.atLeast(Duration.ofMinutes(1)),
              Importance.LOW,
              "An input whose time is further behind the collector's clock is rejected on its own, to the dead-letter topic.")
          .define(
              LATENCY_MAX,
              Type.DOUBLE,
              3_600_000.0,
              Range.atLeast(1),
              Importance.LOW,
              "The largest latency_ms or ttft_ms believed; a request-log line over it is rejected on its own (one absurd value would poison its pod's latency quantiles).")
          .define(
              BUFFER_RECORDS,
              Type.INT,
              200_000,
              Range.atLeast(100),
              Importance.MEDIUM,
              "Records that may wait for Kafka in the send buffer.")
          .define(
              BUFFER_BYTES,
              Type.LONG,
              64L << 20,
              Range.atLeast(1L << 20),
              Importance.MEDIUM,
              "Bytes (keys and values, plus 128 per record) that may wait for Kafka in the send buffer: a bound on its memory whatever the size of the lines (200,000 lines of 64 KiB would be 12 GiB); keep it well under the heap. Past 90 % of it or of buffer.records the intake answers 503 with Retry-After before it takes a line.")
          .define(
              TOPIC_PREFIX,
              Type.STRING,
              "schedlens.",
              Importance.LOW,
              "Prefix of every topic name.")
          .define(
              DLQ_MAX_BYTES,
              Type.INT,
              64 << 10,
              Range.atLeast(0),
              Importance.LOW,
              "Raw input bytes kept in a dead letter.");

  static {
    HttpSettings.define(DEF, "the intake, /metrics and the probes", 16);
    BearerToken.define(DEF, "intake", "the request-log intake");
  }

  public CollectorConfig(Map<String, Object> values, Map<String, Object> kafka) {
    super(DEF, values, kafka);
    if (getList(DCGM_TARGETS).stream()
        .anyMatch(t -> !t.startsWith("http://") && !t.startsWith("https://"))) {
      throw new ConfigException(
          DCGM_TARGETS, getList(DCGM_TARGETS), "every target must be an http:// or https:// URL");
    }
  }

  /** Reads the settings from command-line arguments and the environment. */
  public static CollectorConfig from(CommandLineSettings settings) {
    CollectorConfig c = new CollectorConfig(settings.values(), settings.kafka());
    if (c.getBoolean(DCGM_DISCOVERY)
        && c.getBoolean(KUBERNETES_ENABLED)
        && c.getList(DCGM_NAMESPACES).isEmpty()) {
      throw new ConfigException(
          "dcgm.discovery needs the namespaces where dcgm-exporter runs (--dcgm-namespaces, e.g."
              + " gpu-operator), or --dcgm-discovery false with --dcgm-targets");
    }
    if (c.getBoolean(DCGM_DISCOVERY) && c.dcgmServiceSelectors().isEmpty()) {
      throw new ConfigException(
          DCGM_SERVICE_SELECTOR,
          c.getString(DCGM_SERVICE_SELECTOR),
          "give at least one label selector of the dcgm-exporter Service (e.g."
              + " app=nvidia-dcgm-exporter), or --dcgm-discovery false with --dcgm-targets");
    }
    c.httpTls(); // a certificate or key that cannot be used fails here, naming the file
    c.intakeToken(); // token mode without a token fails here: a missing Secret is no "none"
    return c;
  }

  /** The alternative selectors of dcgm.service.selector: a Service matching any is an exporter. */
  public List<String> dcgmServiceSelectors() {
    return Arrays.stream(getString(DCGM_SERVICE_SELECTOR).split(";"))
        .map(String::strip)
        .filter(s -> !s.isEmpty())
        .toList();
  }

  /** The server TLS of http.tls.cert and http.tls.key, or null for plain HTTP. */
  public ServerTls httpTls() {
    return HttpSettings.serverTls(this);
  }

  /** The intake token, or null when none is required (intake.auth none). */
  public String intakeToken() {
    return BearerToken.required(this, "intake", "the request-log intake");
  }

  /** The pods' projection, with the labels, annotations and shared GPU resources configured. */
  public PodProjection podProjection() {
    return new PodProjection(
        getList(POD_LABELS), getList(POD_ANNOTATIONS), getList(GPU_SHARED_RESOURCES));
  }

  /** What an input's time and latencies may be. */
  public InputBounds inputBounds() {
    return new InputBounds(
        getDuration(TIME_MAX_FUTURE), getDuration(TIME_MAX_AGE), getDouble(LATENCY_MAX));
  }
}
