package io.schedlens.bench;

import io.schedlens.avro.ChangeType;
import io.schedlens.avro.ClusterEvent;
import io.schedlens.avro.ContainerStatus;
import io.schedlens.avro.GpuSample;
import io.schedlens.avro.ObjectReference;
import io.schedlens.avro.OwnerReference;
import io.schedlens.avro.PodCondition;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.RequestLog;
import io.schedlens.projections.records.Outgoing;
import io.schedlens.projections.records.Records;
import io.schedlens.schemas.ProgressMarks;
import io.schedlens.schemas.Topics;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * What the load commands send: pod lives as a GPU cluster's collector would record them, in
 * event-time order, with the collector's progress marks a second of event time apart. Each life is
 * 4 observations and 2 scheduler events; two in three pods go away at the end; pods belong to 25
 * Deployments, their requests (one in twenty a 503, latencies around the 800 ms SLO) to services
 * with and without an SLO of their own. Two shapes: a serving fleet ({@link #fleet}: requests at a
 * rate per pod, a DCGM sample a second; what a cluster of inference servers sends), and the sparse
 * backlog of the first releases ({@link #backlog}: 100 requests and 40 samples per ten-minute life,
 * kept to compare with earlier figures).
 */
final class LoadShape {

  static final int DEPLOYMENTS = 25;

  private final Records records;

  LoadShape(Topics topics) {
    this.records = new Records(topics, 64 * 1024);
  }

  /**
   * A serving fleet, second by second in event-time order, with a progress mark on every input
   * topic after each second: {@code pods} lives, one started every {@code spacingMs} from {@code
   * t0}, each serving {@code rps} requests a second from Ready to its end and sampled by DCGM once
   * a second (GPU samples and requests are 99 % of the inputs); {@code sink} takes each record.
   */
  long fleet(int pods, long t0, long spacingMs, int rps, Consumer<Outgoing> sink) {
    long lifeMs = 600_000;
    long end = t0 + (pods - 1) * spacingMs + lifeMs + 1_000;
    long n = 0;
    List<Outgoing> second = new ArrayList<>();
    Map<Integer, List<Outgoing>> lifeEvents = new HashMap<>();
    for (long s = t0; s < end; s += 1000) {
      second.clear();
      int first = (int) Math.max(0, (s - t0 - lifeMs) / spacingMs);
      int last = (int) Math.min(pods - 1, (s - t0) / spacingMs);
      for (int p = first; p <= last; p++) {
        long born = t0 + p * spacingMs;
        if (s < born || s >= born + lifeMs + 1000) {
          continue;
        }
        List<Outgoing> mine =
            lifeEvents.computeIfAbsent(
                p,
                k -> {
                  List<Outgoing> all = new ArrayList<>();
                  life(k, born, true, all);
                  all.removeIf(
                      o -> !o.source().equals(Records.PODS) && !o.source().equals(Records.EVENTS));
                  return all;
                });
        for (Outgoing o : mine) {
          if (o.eventTime() >= s && o.eventTime() < s + 1000) {
            second.add(o);
          }
        }
        if (s >= born + lifeMs) {
          lifeEvents.remove(p);
        }
        long since = s - born;
        if (since >= 20_000 && since < lifeMs) {
          String name = name(p);
          second.add(
              records.gpuSample(
                  "ai-lab/" + name,
                  // one a second; the first of a pod has no predecessor
                  gpu(p, s + 500, (int) (since / 1000), since == 20_000 ? null : 1_000L)));
          for (int r = 0; r < rps; r++) {
            long at = s + (r * 1000L) / rps + (p % 7);
            second.add(records.requestLog(request(p, at, (int) (since / 1000) * rps + r), null));
          }
        }
      }
      second.sort(Comparator.comparingLong(Outgoing::eventTime));
      for (Outgoing o : second) {
        sink.accept(o);
        n++;
      }
      List<Outgoing> marks = new ArrayList<>();
      marks(s + 999, t0, marks);
      marks.forEach(sink);
      n += marks.size();
    }
    List<Outgoing> marks = new ArrayList<>();
    marks(ProgressMarks.END, t0, marks);
    marks.forEach(sink);
    return n + marks.size();
  }

  /** Pod {@code p}'s GPU sample number {@code i}, standing for {@code intervalMs} before it. */
  private static GpuSample gpu(int p, long at, int i, Long intervalMs) {
    return GpuSample.newBuilder()
        .setTime(at)
        .setIntervalMs(intervalMs)
        .setNode("gpu-node-" + (p % 4))
        .setGpu("0")
        .setUuid("GPU-u-" + p)
        .setModelName("NVIDIA H100 80GB HBM3")
        .setNamespace("ai-lab")
        .setPod(name(p))
        .setContainer("model")
        .setFields(
            Map.of(
                "DCGM_FI_DEV_GPU_UTIL",
                (double) (i * 7 % 100),
                "DCGM_FI_DEV_FB_USED",
                70000.0,
                "DCGM_FI_DEV_POWER_USAGE",
                300.0,
                "DCGM_FI_DEV_GPU_TEMP",
                60.0))
        .build();
  }

  private static RequestLog request(int p, long at, int i) {
    return RequestLog.newBuilder()
        .setTime(at)
        .setNamespace("ai-lab")
        .setPod(name(p))
        .setService(i % 2 == 0 ? "chat" : "embed")
        .setRoute("/v1/chat/completions")
        .setStatus(i % 20 == 0 ? 503 : 200)
        .setLatencyMs(100.0 + (i * 37 % 900))
        .setRequestId("r-" + p + "-" + i)
        .setReceivedAt(at)
        .build();
  }

  /** {@code pods} lives, one started every {@code spacingMs} from {@code t0}; marks included. */
  List<Outgoing> backlog(int pods, long t0, long spacingMs) {
    List<Outgoing> all = new ArrayList<>(pods * 150);
    for (int p = 0; p < pods; p++) {
      life(p, t0 + p * spacingMs, true, all);
    }
    all.sort(Comparator.comparingLong(Outgoing::eventTime));
    List<Outgoing> marked = new ArrayList<>(all.size() + all.size() / 50);
    long lastMark = Long.MIN_VALUE;
    for (Outgoing o : all) {
      if (o.eventTime() - 1000 > lastMark + 1000) {
        lastMark = o.eventTime() - 1000;
        marks(lastMark, t0, marked);
      }
      marked.add(o);
    }
    marks(ProgressMarks.END, t0, marked);
    return marked;
  }

  /** A mark of {@code time} for every input topic. */
  void marks(long time, long now, List<Outgoing> out) {
    for (String topic : records.markedTopics()) {
      out.add(records.mark(topic, time, now, "load"));
    }
  }

  static String name(int p) {
    return "chat-" + (p % DEPLOYMENTS) + "-5d8f7-" + p;
  }

  /** One pod's life from {@code t}: its records, in no particular order. */
  void life(int p, long t, boolean end, List<Outgoing> out) {
    String uid = "u-" + p;
    String name = name(p);
    String deployment = "chat-" + (p % DEPLOYMENTS);
    PodObservation.Builder b =
        PodObservation.newBuilder()
            .setUid(uid)
            .setNamespace("ai-lab")
            .setName(name)
            .setChangeType(ChangeType.ADDED)
            .setObservedAt(t)
            .setCreatedAt(t)
            .setGpus(1)
            .setPriorityClassName(p % 3 == 0 ? "interactive" : "batch-low")
            .setPriority(p % 3 == 0 ? 100000 : 1000)
            .setOwner(new OwnerReference("ReplicaSet", deployment + "-5d8f7", "rs-" + deployment))
            .setPhase("Pending")
            .setResourceVersion(Integer.toString(p * 10))
            .setLabels(
                Map.of(
                    "pod-template-hash",
                    "5d8f7",
                    "schedlens.io/arm",
                    p % 2 == 0 ? "control" : "treatment"))
            .setConditions(
                List.of(new PodCondition("PodScheduled", "False", "Unschedulable", null, t)));
    out.add(records.pod(b.build()));
    out.add(
        records.event(
            event(
                "fs-" + uid,
                uid,
                name,
                "FailedScheduling",
                "0/4 nodes are available: 4 Insufficient nvidia.com/gpu. preemption: 0/4 nodes are available: 4 No preemption victims found for incoming pod.",
                t + 1000,
                t + 1000)));
    b.setChangeType(ChangeType.MODIFIED)
        .setObservedAt(t + 5000)
        .setNodeName("gpu-node-" + (p % 4))
        .setResourceVersion(Integer.toString(p * 10 + 1))
        .setConditions(List.of(new PodCondition("PodScheduled", "True", null, null, t + 5000)));
    out.add(records.pod(b.build()));
    out.add(
        records.event(
            event(
                "sc-" + uid,
                uid,
                name,
                "Scheduled",
                "Successfully assigned ai-lab/" + name + " to gpu-node-" + (p % 4),
                t + 5000,
                t + 4900)));
    b.setObservedAt(t + 20_000)
        .setPhase("Running")
        .setResourceVersion(Integer.toString(p * 10 + 2))
        .setConditions(
            List.of(
                new PodCondition("PodScheduled", "True", null, null, t + 5000),
                new PodCondition("Ready", "True", null, null, t + 20_000)))
        .setContainers(
            List.of(
                ContainerStatus.newBuilder()
                    .setName("model")
                    .setReady(true)
                    .setRunningStartedAt(t + 8000)
                    .build()));
    out.add(records.pod(b.build()));
    served(p, t, name, out);
    if (end && p % 3 != 0) {
      out.add(records.pod(gone(b, p, t)));
    }
  }

  /** The pod deleted 620 s after its creation, its container ended then. */
  private static PodObservation gone(PodObservation.Builder b, int p, long t) {
    long gone = t + 620_000;
    b.setChangeType(ChangeType.DELETED)
        .setObservedAt(gone)
        .setResourceVersion(Integer.toString(p * 10 + 3))
        .setContainers(
            List.of(
                ContainerStatus.newBuilder()
                    .setName("model")
                    .setTerminatedStartedAt(t + 8000)
                    .setTerminatedFinishedAt(gone)
                    .setTerminatedExitCode(0)
                    .build()));
    return b.build();
  }

  /** 100 requests 5 s apart from 21 s, and a DCGM sample every 15 s for the first 40. */
  private void served(int p, long t, String name, List<Outgoing> out) {
    for (int i = 0; i < 100; i++) {
      long at = t + 21_000 + i * 5_000L;
      if (i < 40) {
        long st = t + 15_000 + i * 15_000L;
        out.add(records.gpuSample("ai-lab/" + name, gpu(p, st, i, i == 0 ? null : 15_000L)));
      }
      out.add(records.requestLog(request(p, at, i), null));
    }
  }

  /** An event about the pod {@code uid}, seen at {@code observedAt}. */
  private static ClusterEvent event(
      String eventUid,
      String uid,
      String name,
      String reason,
      String note,
      long observedAt,
      long eventTime) {
    return ClusterEvent.newBuilder()
        .setUid(eventUid)
        .setApiVersion("events.k8s.io/v1")
        .setChangeType(ChangeType.ADDED)
        .setObservedAt(observedAt)
        .setReason(reason)
        .setNote(note)
        .setRegarding(
            ObjectReference.newBuilder()
                .setKind("Pod")
                .setUid(uid)
                .setNamespace("ai-lab")
                .setName(name)
                .build())
        .setEventTime(eventTime)
        .build();
  }
}
