package io.schedlens.testsupport;

import static io.schedlens.testsupport.Inputs.at;

import io.schedlens.avro.ChangeType;
import java.util.ArrayList;
import java.util.List;

/**
 * Scripted lives of pods, as the collector would project them: the inputs a test feeds to the
 * reducer (pure) or to the topology (on the test driver) alike.
 */
public final class PodLives {

  private PodLives() {}

  /** An interactive serving pod: Pending, scheduled, Ready, serving requests, its GPU busy. */
  public static List<Object> interactiveLife() {
    Inputs.Pod p =
        new Inputs.Pod(
                "u-chat-0",
                "ai-lab",
                "chat-5d8f7-abcde",
                "ReplicaSet",
                "chat-5d8f7",
                "interactive",
                100000,
                1)
            .label("pod-template-hash", "5d8f7")
            .label("schedlens.io/arm", "treatment")
            .condition(
                "PodScheduled",
                "False",
                0,
                "Unschedulable",
                "0/1 nodes are available: 1 Insufficient nvidia.com/gpu.");
    List<Object> in = new ArrayList<>();
    in.add(p.seen(ChangeType.ADDED, 0.2));
    in.add(
        Inputs.event(
            "ev-fs",
            "u-chat-0",
            "FailedScheduling",
            "0/1 nodes are available: 1 Insufficient nvidia.com/gpu. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
            at(1.234),
            3));
    p.condition("PodScheduled", "True", 5.123, null, null).node("gpu-node-1");
    in.add(p.seen(ChangeType.MODIFIED, 5.3));
    in.add(
        Inputs.event(
            "ev-sched",
            "u-chat-0",
            "Scheduled",
            "Successfully assigned ai-lab/chat-5d8f7-abcde to gpu-node-1",
            at(5.123),
            null));
    p.phase("Running").running("model", 8, 0, false);
    in.add(p.seen(ChangeType.MODIFIED, 8.4));
    p.running("model", 8, 0, true).condition("Ready", "True", 20, null, null);
    in.add(p.seen(ChangeType.MODIFIED, 20.2));
    in.add(Inputs.request("ai-lab", "chat-5d8f7-abcde", "chat", at(19.5), 200, 120));
    in.add(Inputs.request("ai-lab", "chat-5d8f7-abcde", "chat", at(21.25), 200, 300));
    in.add(Inputs.request("ai-lab", "chat-5d8f7-abcde", "chat", at(22), 503, 40));
    in.add(Inputs.request("ai-lab", "chat-5d8f7-abcde", "chat", at(23), null, 30000));
    in.add(Inputs.request("ai-lab", "chat-5d8f7-abcde", "chat", at(24), 200, 900));
    for (int i = 1; i <= 8; i++) {
      in.add(Inputs.gpu("GPU-1", "ai-lab", "chat-5d8f7-abcde", at(8 + 15 * i), 40));
    }
    return in;
  }

  /** A batch Job pod that checkpoints and is preempted for an interactive pod. */
  public static List<Object> preemptedJobLife(String uid, String name, String preemptorUid) {
    Inputs.Pod p =
        new Inputs.Pod(uid, "ai-lab", name, "Job", "asr-batch", "batch-low", 1000, 1)
            .condition("PodScheduled", "True", 1, null, null)
            .node("gpu-node-1");
    List<Object> in = new ArrayList<>();
    in.add(p.seen(ChangeType.ADDED, 0.5));
    p.phase("Running").running("asr", 10, 0, true).condition("Ready", "True", 11, null, null);
    in.add(p.seen(ChangeType.MODIFIED, 11.2));
    p.annotation("schedlens.io/last-checkpoint", "2026-11-29T10:01:00Z");
    in.add(p.seen(ChangeType.MODIFIED, 60.5));
    for (int i = 1; i <= 8; i++) {
      in.add(Inputs.gpu("GPU-1", "ai-lab", name, at(10 + 15 * i), 100));
    }
    p.condition(
            "DisruptionTarget",
            "True",
            100,
            "PreemptionByScheduler",
            "default-scheduler: preempting to accommodate a higher priority pod")
        .deleting(100, 30);
    in.add(p.seen(ChangeType.MODIFIED, 100.7));
    p.terminated("asr", 10, 130, 137, "Error")
        .phase("Failed")
        .condition("Ready", "False", 130, null, null);
    in.add(p.seen(ChangeType.MODIFIED, 130.4));
    in.add(p.seen(ChangeType.DELETED, 131));
    in.add(
        Inputs.preempted(
            "ev-pre-" + uid,
            uid,
            preemptorUid,
            "ai-lab",
            "chat-5d8f7-abcde",
            "gpu-node-1",
            at(100.5)));
    return in;
  }
}
