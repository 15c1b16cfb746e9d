package io.schedlens.runs.replay;

import io.schedlens.collector.CollectorConfig;
import io.schedlens.common.config.AppConfig;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.report.Guardrails;
import io.schedlens.runs.PagesServer;
import io.schedlens.runs.RunExport;
import io.schedlens.streams.StreamsAppConfig;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;
import org.apache.kafka.common.config.ConfigException;

/**
 * Settings of {@code ./schedlens replay}: the recorded inputs and the output directory, plus the
 * streams app's timeline settings (SLOs, grace period, starvation, label keys) and the collector's
 * pod label and annotation keys, which mean the same as there.
 */
public final class ReplayConfig extends AppConfig {

  public static final String PODS = "pods";
  public static final String EVENTS = "events";
  public static final String OBJECTS = "objects";
  public static final String DCGM = "dcgm";
  public static final String REQUESTS = "requests";
  public static final String OUT = "out";
  public static final String PARTITIONS = "partitions";
  public static final String TIMEOUT = "timeout";
  public static final String GUARDRAILS = "guardrails";
  public static final String SHUFFLE = "shuffle.seed";
  public static final String ALLOW_DEAD_LETTERS = "allow.dead.letters";

  /** Streams app settings that shape the timelines, passed through unchanged. */
  public static final String SLICE = "slice";

  static final List<String> STREAMS_KEYS =
      List.of(
          StreamsAppConfig.GRACE,
          StreamsAppConfig.GPU_SAMPLE_INTERVAL,
          StreamsAppConfig.GPU_MAX_GAP,
          StreamsAppConfig.SLO,
          StreamsAppConfig.STARVATION_PENDING,
          StreamsAppConfig.STARVATION_PREEMPTIONS,
          StreamsAppConfig.EXPERIMENT_LABEL,
          StreamsAppConfig.ARM_LABEL,
          StreamsAppConfig.REPEAT_LABEL,
          StreamsAppConfig.APPLICATION_LABEL,
          StreamsAppConfig.CHECKPOINT_ANNOTATION,
          StreamsAppConfig.DEDUP_WINDOW,
          StreamsAppConfig.THREADS,
          StreamsAppConfig.COMMIT_INTERVAL);

  /** Collector settings of the pod projection, passed through unchanged. */
  static final List<String> COLLECTOR_KEYS =
      List.of(
          CollectorConfig.POD_LABELS,
          CollectorConfig.POD_ANNOTATIONS,
          CollectorConfig.GPU_SHARED_RESOURCES,
          CollectorConfig.INTAKE_FIELD_MAPPING);

  public static final ConfigDef DEF = RunExport.define(PagesServer.define(define()));

  private static ConfigDef define() {
    ConfigDef def =
        recordings(new ConfigDef())
            .define(
                PODS,
                Type.LIST,
                List.of(),
                Importance.HIGH,
                "Files of recorded Pods: JSON values or YAML documents, each a Pod, a watch event {\"type\",\"object\"} or a List (kubectl get pods -A --watch --output-watch-events -o json, or kubectl get pods -A -o json).")
            .define(
                EVENTS,
                Type.LIST,
                List.of(),
                Importance.HIGH,
                "Files of recorded Events (core/v1 or events.k8s.io/v1, mixed), in the same forms.")
            .define(
                OUT,
                Type.STRING,
                "replay-out",
                Importance.HIGH,
                "Directory for timelines.jsonl, report.md, report.json and replay-summary.json.")
            .define(
                PARTITIONS,
                Type.INT,
                3,
                Range.between(1, 64),
                Importance.LOW,
                "Partitions of every topic on the embedded broker.")
            .define(
                SLICE,
                Type.STRING,
                "0s",
                Importance.LOW,
                "Event time produced between two progress marks (0: one grace period). Changes how fast a replay runs, never what it says.")
            .define(
                SHUFFLE,
                Type.LONG,
                0L,
                Importance.LOW,
                "0: each slice is produced in event-time order. Any other number: in an order shuffled with this seed, across topics and partitions, as a collector and shippers may deliver it; the timelines must not change (a check of determinism).")
            .define(
                TIMEOUT,
                Type.STRING,
                "10m",
                Importance.LOW,
                "The longest the replay waits for the streams app to finish processing.")
            .define(
                ALLOW_DEAD_LETTERS,
                Type.BOOLEAN,
                false,
                Importance.MEDIUM,
                "false: when any recorded input could not be used or the streams app dead-lettered any, the replay still writes everything (report.md says what is missing at its top) but exits with code 4. true: partial results are acceptable, exit 0.")
            .define(
                GUARDRAILS,
                Type.LIST,
                Guardrails.DEFAULT,
                Importance.MEDIUM,
                "Rollback conditions for the report, each PASS or FAIL per arm: slo-breach-ratio<=control, no-starving, interruption<=control, batch-pending-p95<=DURATION, wasted-gpu-hours<=NUMBER.");
    for (String key : STREAMS_KEYS) {
      def.define(StreamsAppConfig.DEF.configKeys().get(key));
    }
    for (String key : COLLECTOR_KEYS) {
      def.define(CollectorConfig.DEF.configKeys().get(key));
    }
    return def;
  }

  /** The recorded inputs besides Pods and Events: owner objects, DCGM scrapes, request logs. */
  private static ConfigDef recordings(ConfigDef def) {
    return def.define(
            OBJECTS,
            Type.LIST,
            List.of(),
            Importance.MEDIUM,
            "Files of recorded objects pods' controller chains run through, of any kind and mixed, in the same forms (kubectl get replicasets,deployments,statefulsets,jobs,jobsets,rayclusters -A -o json): each pod is grouped under the top of its chain as the live collector groups it. Without them a pod's workload is its own controller (a ReplicaSet named by the pod's template hash is its Deployment or Rollout). Pods and Events in these files are read as from --pods and --events.")
        .define(
            DCGM,
            Type.LIST,
            List.of(),
            Importance.MEDIUM,
            "Files of recorded dcgm-exporter scrapes: exposition text whose samples carry millisecond timestamps, scrapes one after another.")
        .define(
            REQUESTS,
            Type.LIST,
            List.of(),
            Importance.MEDIUM,
            "Files of request logs: JSON lines with the intake's fields (time, namespace, pod, service, status, latency_ms, ...).");
  }

  public ReplayConfig(Map<String, Object> values, Map<String, Object> kafka) {
    super(DEF, values, kafka);
  }

  public static ReplayConfig from(CommandLineSettings s) {
    ReplayConfig c = new ReplayConfig(s.values(), s.kafka());
    if (c.getList(PODS).isEmpty() && c.getList(EVENTS).isEmpty()) {
      throw new ConfigException(
          "replay needs recorded Pods or Events: give --pods FILE and/or --events FILE");
    }
    c.getDuration(TIMEOUT);
    c.getDuration(SLICE);
    RunExport.validate(c.getString(RunExport.EXPORT));
    List<String> files = new ArrayList<>(c.getList(PODS));
    files.addAll(c.getList(EVENTS));
    files.addAll(c.getList(OBJECTS));
    files.addAll(c.getList(DCGM));
    files.addAll(c.getList(REQUESTS));
    try {
      HeapBudget.check(files, Runtime.getRuntime().maxMemory());
    } catch (IOException e) {
      throw new ConfigException("cannot read the size of a recorded file: " + e.getMessage());
    }
    try {
      Guardrails.validate(c.getList(GUARDRAILS));
    } catch (IllegalArgumentException e) {
      throw new ConfigException(e.getMessage());
    }
    return c;
  }
}
