package io.schedlens.streams;

import static io.schedlens.testsupport.Inputs.at;

import io.schedlens.avro.ChangeType;
import io.schedlens.avro.ClusterEvent;
import io.schedlens.avro.GpuSample;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.RequestLog;
import io.schedlens.schemas.EventTimes;
import io.schedlens.schemas.Topics;
import io.schedlens.testsupport.InputProducer;
import io.schedlens.testsupport.Inputs;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A cluster's worth of inputs for the end-to-end tests: interactive pods that each preempt two
 * batch Job pods, with events, GPU samples and requests, as the collector would produce them.
 */
final class ScenarioInputs {

  private ScenarioInputs() {}

  /** {@code rounds} interactive pods, each preempting two jobs, {@code t0} seconds apart. */
  static List<Object> cluster(int rounds) {
    List<Object> in = new ArrayList<>();
    for (int k = 0; k < rounds; k++) {
      double t0 = k * 60;
      String chat = "u-chat-" + k;
      String chatName = "chat-5d8f7-" + k;
      in.addAll(job("u-asr-" + k + "-a", "asr-batch-" + k + "a", chat, chatName, t0));
      in.addAll(job("u-asr-" + k + "-b", "asr-batch-" + k + "b", chat, chatName, t0));
      in.addAll(interactive(chat, chatName, t0 + 90));
    }
    in.sort(Comparator.comparingLong(ScenarioInputs::timestampOf));
    return in;
  }

  static List<Object> job(
      String uid, String name, String preemptorUid, String preemptorName, double t0) {
    Inputs.Pod p =
        new Inputs.Pod(
                uid,
                "ai-lab",
                name,
                "Job",
                name.substring(0, name.length() - 1),
                "batch-low",
                1000,
                1)
            .label("schedlens.io/arm", "treatment")
            .created(t0)
            .condition("PodScheduled", "True", t0 + 1, null, null)
            .node("gpu-node-1");
    List<Object> in = new ArrayList<>();
    in.add(p.seen(ChangeType.ADDED, t0 + 0.5));
    p.phase("Running")
        .running("asr", t0 + 10, 0, true)
        .condition("Ready", "True", t0 + 11, null, null);
    in.add(p.seen(ChangeType.MODIFIED, t0 + 11.2));
    p.annotation(
        "schedlens.io/last-checkpoint", java.time.Instant.ofEpochMilli(at(t0 + 60)).toString());
    in.add(p.seen(ChangeType.MODIFIED, t0 + 60.5));
    for (int i = 1; i <= 8; i++) {
      in.add(Inputs.gpu("GPU-" + uid, "ai-lab", name, at(t0 + 10 + 15 * i), 80));
    }
    p.condition(
            "DisruptionTarget",
            "True",
            t0 + 100,
            "PreemptionByScheduler",
            "default-scheduler: preempting to accommodate a higher priority pod")
        .deleting(t0 + 100, 30);
    in.add(p.seen(ChangeType.MODIFIED, t0 + 100.7));
    in.add(
        Inputs.preempted(
            "ev-pre-" + uid,
            uid,
            preemptorUid,
            "ai-lab",
            preemptorName,
            "gpu-node-1",
            at(t0 + 100.5)));
    p.terminated("asr", t0 + 10, t0 + 130, 137, "Error").phase("Failed");
    in.add(p.seen(ChangeType.MODIFIED, t0 + 130.4));
    in.add(p.seen(ChangeType.DELETED, t0 + 131));
    return in;
  }

  static List<Object> interactive(String uid, String name, double t0) {
    Inputs.Pod p =
        new Inputs.Pod(uid, "ai-lab", name, "ReplicaSet", "chat-5d8f7", "interactive", 100000, 1)
            .label("pod-template-hash", "5d8f7")
            .label("schedlens.io/arm", "treatment")
            .created(t0)
            .condition("PodScheduled", "False", t0, "Unschedulable", null);
    List<Object> in = new ArrayList<>();
    in.add(p.seen(ChangeType.ADDED, t0 + 0.2));
    in.add(
        Inputs.event(
            "ev-fs-" + uid,
            uid,
            "FailedScheduling",
            "0/1 nodes are available: 1 Insufficient nvidia.com/gpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
            at(t0 + 1.234),
            2));
    p.condition("PodScheduled", "True", t0 + 45, null, null).node("gpu-node-1");
    in.add(p.seen(ChangeType.MODIFIED, t0 + 45.3));
    in.add(
        Inputs.event(
            "ev-sched-" + uid,
            uid,
            "Scheduled",
            "Successfully assigned ai-lab/" + name + " to gpu-node-1",
            at(t0 + 45.123),
            null));
    p.phase("Running")
        .running("model", t0 + 48, 0, true)
        .condition("Ready", "True", t0 + 60, null, null);
    in.add(p.seen(ChangeType.MODIFIED, t0 + 60.2));
    for (int i = 0; i < 20; i++) {
      in.add(
          Inputs.request(
              "ai-lab", name, "chat", at(t0 + 61 + i * 3), i % 7 == 0 ? 503 : 200, 100 + i * 37));
    }
    for (int i = 1; i <= 6; i++) {
      in.add(Inputs.gpu("GPU-" + uid, "ai-lab", name, at(t0 + 48 + 15 * i), 60));
    }
    p.deleting(t0 + 150, 30);
    in.add(p.seen(ChangeType.MODIFIED, t0 + 150.1));
    p.terminated("model", t0 + 48, t0 + 160, 0, "Completed");
    in.add(p.seen(ChangeType.DELETED, t0 + 161));
    return in;
  }

  /**
   * {@code n} short serving lives (created, scheduled, Ready, one request, gone), one a second from
   * {@code t0} seconds, spread over {@code deployments} Deployments: many timelines, few inputs.
   */
  static List<Object> lives(int n, int deployments, double t0) {
    List<Object> in = new ArrayList<>();
    for (int k = 0; k < n; k++) {
      double t = t0 + k;
      String deployment = "serve-" + (k % deployments);
      String name = deployment + "-5d8f7-" + k;
      Inputs.Pod p =
          new Inputs.Pod(
                  "u-life-" + k,
                  "ai-lab",
                  name,
                  "ReplicaSet",
                  deployment + "-5d8f7",
                  k % 3 == 0 ? "interactive" : "batch-low",
                  k % 3 == 0 ? 100000 : 1000,
                  1)
              .label("pod-template-hash", "5d8f7")
              .created(t)
              .condition("PodScheduled", "True", t + 1, null, null)
              .node("gpu-node-" + (k % 4));
      in.add(p.seen(ChangeType.ADDED, t + 0.1));
      p.phase("Running")
          .running("model", t + 2, 0, true)
          .condition("Ready", "True", t + 5, null, null);
      in.add(p.seen(ChangeType.MODIFIED, t + 5.1));
      in.add(Inputs.request("ai-lab", name, "chat", at(t + 6), 200, 120));
      p.terminated("model", t + 2, t + 30, 0, "Completed").phase("Succeeded");
      in.add(p.seen(ChangeType.DELETED, t + 30.5));
    }
    in.sort(Comparator.comparingLong(ScenarioInputs::timestampOf));
    return in;
  }

  static long timestampOf(Object input) {
    if (input instanceof PodObservation o) {
      return o.getObservedAt();
    } else if (input instanceof ClusterEvent e) {
      return EventTimes.of(e);
    } else if (input instanceof GpuSample g) {
      return g.getTime();
    }
    return ((RequestLog) input).getTime();
  }

  /**
   * Produces inputs as the collector does (keys, partitions by pod name, event-time timestamps,
   * progress marks); {@code end}: then the mark that ends the input.
   */
  static void produce(String bootstrap, Topics topics, List<Object> inputs, boolean end) {
    produce(bootstrap, topics, 2, inputs, end);
  }

  /** As above, on topics of {@code partitions} partitions. */
  static void produce(
      String bootstrap, Topics topics, int partitions, List<Object> inputs, boolean end) {
    try (InputProducer producer = new InputProducer(bootstrap, topics, partitions)) {
      producer.produce(inputs);
      if (end) {
        producer.end();
      }
    }
  }
}
