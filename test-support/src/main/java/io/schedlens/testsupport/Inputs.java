package io.schedlens.testsupport;

import io.schedlens.avro.ChangeType;
import io.schedlens.avro.ClusterEvent;
import io.schedlens.avro.ContainerStatus;
import io.schedlens.avro.GpuSample;
import io.schedlens.avro.ObjectReference;
import io.schedlens.avro.OwnerReference;
import io.schedlens.avro.PodCondition;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.RequestLog;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Builds inputs as the collector projects them from what Kubernetes writes: condition and metadata
 * times with second granularity, event times with microseconds (truncated to ms), container start
 * and finish times with seconds.
 */
public final class Inputs {

  public static final long T0 = Instant.parse("2026-11-29T10:00:00Z").toEpochMilli();

  private Inputs() {}

  public static long at(double seconds) {
    return T0 + Math.round(seconds * 1000);
  }

  /** Truncates to the second, as Kubernetes' metav1.Time does. */
  public static long sec(double seconds) {
    return at(seconds) / 1000 * 1000;
  }

  /**
   * The namespace/name of every pod built here, by UID: an event regards its pod by UID, namespace
   * and name, as a real one does.
   */
  static final Map<String, String[]> NAMES = new ConcurrentHashMap<>();

  /** A pod projection under construction. */
  public static final class Pod {
    final PodObservation.Builder b;
    final List<PodCondition> conditions = new ArrayList<>();
    final List<ContainerStatus> containers = new ArrayList<>();
    final Map<String, String> labels = new HashMap<>();
    final Map<String, String> annotations = new HashMap<>();
    int version;

    public Pod(
        String uid,
        String namespace,
        String name,
        String ownerKind,
        String ownerName,
        String priorityClass,
        int priority,
        int gpus) {
      b =
          PodObservation.newBuilder()
              .setUid(uid)
              .setNamespace(namespace)
              .setName(name)
              .setChangeType(ChangeType.ADDED)
              .setObservedAt(sec(0))
              .setCreatedAt(sec(0))
              .setPriorityClassName(priorityClass)
              .setPriority(priority)
              .setGpus(gpus)
              .setPhase("Pending");
      if (ownerKind != null) {
        b.setOwner(new OwnerReference(ownerKind, ownerName, ownerName + "-uid"));
      }
      NAMES.put(uid, new String[] {namespace, name});
    }

    /** The owner's UID (by default its name and "-uid"): a Job created again under its name. */
    public Pod ownerUid(String uid) {
      b.setOwner(new OwnerReference(b.getOwner().getKind(), b.getOwner().getName(), uid));
      return this;
    }

    public Pod created(double s) {
      b.setCreatedAt(sec(s));
      return this;
    }

    public Pod label(String k, String v) {
      labels.put(k, v);
      return this;
    }

    public Pod annotation(String k, String v) {
      annotations.put(k, v);
      return this;
    }

    public Pod condition(String type, String status, double s, String reason, String message) {
      conditions.removeIf(c -> c.getType().equals(type));
      conditions.add(new PodCondition(type, status, reason, message, sec(s)));
      return this;
    }

    public Pod node(String node) {
      b.setNodeName(node);
      return this;
    }

    public Pod nominated(String node) {
      b.setNominatedNodeName(node);
      return this;
    }

    public Pod phase(String phase) {
      b.setPhase(phase);
      return this;
    }

    public Pod running(String container, double startedAt, int restarts, boolean ready) {
      containers.removeIf(c -> c.getName().equals(container));
      containers.add(
          ContainerStatus.newBuilder()
              .setName(container)
              .setReady(ready)
              .setRestartCount(restarts)
              .setRunningStartedAt(sec(startedAt))
              .build());
      return this;
    }

    public Pod terminated(
        String container, double startedAt, double finishedAt, int exitCode, String reason) {
      containers.removeIf(c -> c.getName().equals(container));
      containers.add(
          ContainerStatus.newBuilder()
              .setName(container)
              .setTerminatedStartedAt(sec(startedAt))
              .setTerminatedFinishedAt(sec(finishedAt))
              .setTerminatedExitCode(exitCode)
              .setTerminatedReason(reason)
              .build());
      return this;
    }

    public Pod deleting(double requestedAt, long graceSeconds) {
      b.setDeletionTimestamp(sec(requestedAt) + graceSeconds * 1000)
          .setDeletionGracePeriodSeconds(graceSeconds);
      return this;
    }

    /** The observation as seen at {@code observedAt} with the given change type. */
    public PodObservation seen(ChangeType change, double observedAt) {
      version++;
      return PodObservation.newBuilder(b.build())
          .setChangeType(change)
          .setObservedAt(at(observedAt))
          .setResourceVersion(Integer.toString(1000 + version))
          .setConditions(new ArrayList<>(conditions))
          .setContainers(new ArrayList<>(containers))
          .setLabels(new HashMap<>(labels))
          .setAnnotations(new HashMap<>(annotations))
          .build();
    }
  }

  public static ClusterEvent event(
      String eventUid,
      String podUid,
      String reason,
      String note,
      Long eventTime,
      Integer seriesCount) {
    return ClusterEvent.newBuilder()
        .setUid(eventUid)
        .setApiVersion("events.k8s.io/v1")
        .setChangeType(ChangeType.ADDED)
        .setObservedAt(eventTime == null ? T0 : eventTime)
        .setReason(reason)
        .setNote(note)
        .setType("Normal")
        .setRegarding(
            ObjectReference.newBuilder()
                .setKind("Pod")
                .setUid(podUid)
                .setNamespace(NAMES.containsKey(podUid) ? NAMES.get(podUid)[0] : null)
                .setName(NAMES.containsKey(podUid) ? NAMES.get(podUid)[1] : null)
                .build())
        .setReportingController("default-scheduler")
        .setEventTime(eventTime)
        .setSeriesCount(seriesCount)
        .setSeriesLastObservedTime(seriesCount == null ? null : eventTime + 30_000L * seriesCount)
        .build();
  }

  public static ClusterEvent preempted(
      String eventUid,
      String victimUid,
      String preemptorUid,
      String preemptorNs,
      String preemptorName,
      String node,
      long at) {
    return ClusterEvent.newBuilder(
            event(
                eventUid,
                victimUid,
                "Preempted",
                "Preempted by pod " + preemptorUid + " on node " + node,
                at,
                null))
        .setAction("Preempting")
        .setRelated(
            ObjectReference.newBuilder()
                .setKind("Pod")
                .setUid(preemptorUid)
                .setNamespace(preemptorNs)
                .setName(preemptorName)
                .build())
        .build();
  }

  public static GpuSample gpu(
      String uuid, String namespace, String pod, long time, double utilPercent) {
    return gpu(uuid, namespace, pod, time, utilPercent, null);
  }

  /**
   * A sample as the collector sends it: {@code intervalMs} since the previous sample of the GPU
   * (null for the first since the collector started).
   */
  public static GpuSample gpu(
      String uuid, String namespace, String pod, long time, double utilPercent, Long intervalMs) {
    return GpuSample.newBuilder()
        .setIntervalMs(intervalMs)
        .setTime(time)
        .setNode("gpu-node-1")
        .setGpu("0")
        .setUuid(uuid)
        .setNamespace(namespace)
        .setPod(pod)
        .setFields(Map.of("DCGM_FI_DEV_GPU_UTIL", utilPercent))
        .build();
  }

  public static RequestLog request(
      String namespace, String pod, String service, long time, Integer status, double latencyMs) {
    return RequestLog.newBuilder()
        .setTime(time)
        .setNamespace(namespace)
        .setPod(pod)
        .setService(service)
        .setStatus(status)
        .setLatencyMs(latencyMs)
        .setReceivedAt(time + 5)
        .build();
  }
}
