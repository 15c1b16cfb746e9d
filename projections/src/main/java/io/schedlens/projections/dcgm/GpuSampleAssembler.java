package io.schedlens.projections.dcgm;

import io.schedlens.avro.GpuSample;
import io.schedlens.schemas.GpuSampleKey;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.IdentityHashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Turns the samples of one dcgm-exporter scrape (or of a recorded file holding several) into one
 * {@link GpuSample} per GPU, or per MIG instance, per pod, per sample time, each carrying every
 * DCGM field reported for it. Sentinel values ("not supported" and the other DCGM blanks) and NaN
 * are dropped and counted; series that are not DCGM fields are ignored.
 */
public final class GpuSampleAssembler {

  /** Why a value was not used. */
  public static final String DROPPED_SENTINEL = "dcgm-sentinel";

  public static final String DROPPED_NAN = "nan";
  public static final String IGNORED_NOT_DCGM = "not-dcgm";

  /** A sample and its Kafka key: {@code namespace/pod}, or {@code node/gpu} when unattributed. */
  public record KeyedGpuSample(String key, GpuSample sample) {}

  /** The assembled samples and the counts of values not used, by reason. */
  public record Result(List<KeyedGpuSample> samples, Map<String, Integer> notUsed) {}

  private record Identity(
      String node,
      String gpu,
      String uuid,
      String migInstance,
      String namespace,
      String pod,
      String container,
      long time) {}

  /** What a label block says about the GPU, computed once per distinct block. */
  private record Described(
      String node,
      String gpu,
      String uuid,
      String device,
      String model,
      String migProfile,
      String migInstance,
      String namespace,
      String pod,
      String container,
      String podUid,
      Map<String, String> otherLabels) {}

  private GpuSampleAssembler() {}

  /**
   * Assembles samples.
   *
   * @param scrapeTimeMs time of the scrape, used for samples without their own timestamp
   * @param target the scrape target (URL or file name), recorded on every sample
   * @param targetNode the node the target runs on when known from discovery; preferred over the
   *     Hostname label, which older exporters set to their own pod name
   */
  public static Result assemble(
      List<ExpositionSample> samples, long scrapeTimeMs, String target, String targetNode) {
    Map<Map<String, String>, Described> described = new IdentityHashMap<>();
    Map<Identity, GpuSample.Builder> builders = new LinkedHashMap<>();
    Map<Identity, Map<String, Double>> fields = new HashMap<>();
    Map<String, Integer> notUsed = new TreeMap<>();
    Map<String, String> fieldNames = new HashMap<>();

    for (ExpositionSample s : samples) {
      String field = fieldNames.computeIfAbsent(s.name(), n -> n.toUpperCase(Locale.ROOT));
      if (!field.startsWith("DCGM_")) {
        notUsed.merge(IGNORED_NOT_DCGM, 1, Integer::sum);
        continue;
      }
      if (DcgmSentinels.isSentinel(s.rawValue(), s.value())) {
        notUsed.merge(DROPPED_SENTINEL, 1, Integer::sum);
        continue;
      }
      if (Double.isNaN(s.value())) {
        notUsed.merge(DROPPED_NAN, 1, Integer::sum);
        continue;
      }
      Described d = described.computeIfAbsent(s.labels(), l -> describe(l, targetNode));
      long time = s.timestampMs() != null ? s.timestampMs() : scrapeTimeMs;
      Identity id =
          new Identity(d.node, d.gpu, d.uuid, d.migInstance, d.namespace, d.pod, d.container, time);
      GpuSample.Builder b = builders.get(id);
      if (b == null) {
        b =
            GpuSample.newBuilder()
                .setTime(time)
                .setNode(d.node)
                .setGpu(d.gpu)
                .setUuid(d.uuid)
                .setDevice(d.device)
                .setModelName(d.model)
                .setMigProfile(d.migProfile)
                .setMigInstanceId(d.migInstance)
                .setNamespace(d.namespace)
                .setPod(d.pod)
                .setContainer(d.container)
                .setPodUid(d.podUid)
                .setLabels(new TreeMap<>(d.otherLabels))
                .setTarget(target);
        builders.put(id, b);
        fields.put(id, new TreeMap<>());
      } else if (!d.otherLabels.isEmpty()) {
        Map<String, String> labels = b.getLabels();
        d.otherLabels.forEach(labels::putIfAbsent);
      }
      fields.get(id).put(field, s.value());
    }

    Map<Device, Holders> holders = holders(builders.keySet(), fields);
    List<KeyedGpuSample> out = new ArrayList<>(builders.size());
    builders.forEach(
        (id, b) -> {
          if (id.pod != null) {
            Holders h = holders.get(Device.of(id));
            b.setHolders(h.pods.size())
                .setOwnUtilisation(h.deviceUtil && fields.get(id).containsKey(GPU_UTIL));
          }
          GpuSample sample = b.setFields(fields.get(id)).build();
          out.add(new KeyedGpuSample(keyOf(sample), sample));
        });
    return new Result(out, notUsed);
  }

  private static final String GPU_UTIL = "DCGM_FI_DEV_GPU_UTIL";

  /** One GPU (or MIG instance) at one sample time, whoever holds it. */
  private record Device(String node, String gpu, String uuid, String migInstance, long time) {
    static Device of(Identity id) {
      return new Device(id.node, id.gpu, id.uuid, id.migInstance, id.time);
    }
  }

  /**
   * The pods a device was attributed to, and whether the scrape also gave its utilisation
   * unattributed beside them.
   */
  private static final class Holders {
    final Set<String> pods = new HashSet<>(2);
    boolean deviceUtil;
  }

  /**
   * Who holds each device. dcgm-exporter with virtual GPUs ({@code --kubernetes-virtual-gpus})
   * repeats a time-sliced or MPS GPU's series for every pod holding a replica of it, so a device
   * attributed to several pods at one time is shared by them. From 4.5.3-4.8.2 on it also writes
   * {@code DCGM_FI_DEV_GPU_UTIL} per pod from the pod's own processes and keeps the device's
   * unattributed series beside them (internal/pkg/transformation/kubernetes.go, {@code
   * createPerProcessMetrics}); without virtual GPUs a device's series is either attributed or not,
   * never both.
   */
  private static Map<Device, Holders> holders(
      Iterable<Identity> ids, Map<Identity, Map<String, Double>> fields) {
    Map<Device, Holders> holders = new HashMap<>();
    for (Identity id : ids) {
      Holders h = holders.computeIfAbsent(Device.of(id), d -> new Holders());
      if (id.pod != null) {
        h.pods.add(id.namespace + "/" + id.pod);
      } else if (fields.get(id).containsKey(GPU_UTIL)) {
        h.deviceUtil = true;
      }
    }
    return holders;
  }

  /** The sample's topic key ({@link GpuSampleKey}). */
  public static String keyOf(GpuSample s) {
    return GpuSampleKey.of(s);
  }

  private static Described describe(Map<String, String> labels, String targetNode) {
    boolean viaPrometheus = DcgmLabels.viaPrometheus(labels);
    String pod;
    String namespace;
    String container;
    String podUid;
    if (viaPrometheus) {
      pod = DcgmLabels.first(labels, DcgmLabels.POD_EXPORTED);
      namespace = DcgmLabels.first(labels, DcgmLabels.NAMESPACE_EXPORTED);
      container = DcgmLabels.first(labels, DcgmLabels.CONTAINER_EXPORTED);
      podUid = DcgmLabels.first(labels, DcgmLabels.POD_UID_EXPORTED);
    } else {
      pod = firstOf(labels, DcgmLabels.POD_EXPORTED, DcgmLabels.POD_DIRECT);
      namespace = firstOf(labels, DcgmLabels.NAMESPACE_EXPORTED, DcgmLabels.NAMESPACE_DIRECT);
      container = firstOf(labels, DcgmLabels.CONTAINER_EXPORTED, DcgmLabels.CONTAINER_DIRECT);
      podUid = firstOf(labels, DcgmLabels.POD_UID_EXPORTED, DcgmLabels.POD_UID_DIRECT);
    }
    if (pod == null || namespace == null) {
      // Half an attribution is none: a GPU belongs to namespace/pod or to nobody.
      pod = null;
      namespace = null;
      container = null;
      podUid = null;
    }
    String hostname = DcgmLabels.first(labels, DcgmLabels.NODE);
    Map<String, String> other = new TreeMap<>();
    labels.forEach(
        (k, v) -> {
          if (!v.isEmpty()
              && !DcgmLabels.INTERPRETED.contains(k)
              && !DcgmLabels.PROMETHEUS_TARGET_LABELS.contains(k)) {
            other.put(k, v);
          }
        });
    if (targetNode != null && hostname != null && !hostname.equals(targetNode)) {
      other.put("Hostname", hostname);
    }
    return new Described(
        targetNode != null ? targetNode : hostname,
        DcgmLabels.first(labels, DcgmLabels.GPU),
        DcgmLabels.first(labels, DcgmLabels.UUID),
        DcgmLabels.first(labels, DcgmLabels.DEVICE),
        DcgmLabels.first(labels, DcgmLabels.MODEL),
        DcgmLabels.first(labels, DcgmLabels.MIG_PROFILE),
        DcgmLabels.first(labels, DcgmLabels.MIG_INSTANCE),
        namespace,
        pod,
        container,
        podUid,
        other);
  }

  private static String firstOf(
      Map<String, String> labels, List<String> preferred, List<String> fallback) {
    String v = DcgmLabels.first(labels, preferred);
    return v != null ? v : DcgmLabels.first(labels, fallback);
  }
}
