package io.schedlens.streams;

import io.schedlens.avro.ChangeType;
import io.schedlens.avro.WorkloadObservation;
import io.schedlens.testsupport.InputProducer;
import io.schedlens.testsupport.Inputs;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * A day of a busy cluster's churn, as the collector would produce it: Deployments whose replicas
 * are replaced every half hour and which are deleted at the end of the day and created again the
 * next under the same name; Jobs (one name used again every day, the others new) whose pods run
 * half an hour and which are deleted an hour after; a StatefulSet whose two pods come back under
 * the same names every six hours. Every pod is created, Ready, serves a request and goes within its
 * day, so that at the end of each day no pod lives.
 */
final class SoakInputs {

  static final long DAY_S = 86_400;

  /** Seconds from {@link Inputs#T0} of the first day's start (event times must be in the past). */
  private final double base;

  private final int scale;

  /**
   * @param startMs epoch ms of the first day's start
   * @param scale multiplies the number of workloads (1: about 150 pod lives a day)
   */
  SoakInputs(long startMs, int scale) {
    this.base = (startMs - Inputs.T0) / 1000.0;
    this.scale = scale;
  }

  /** The inputs of day {@code d} (0-based), in event-time order. */
  List<Object> day(int d) {
    List<Object> in = new ArrayList<>();
    double day = base + d * DAY_S;
    for (int k = 0; k < 4 * scale; k++) {
      String name = "serve-" + k;
      in.add(workload("Deployment", name, "u-dep-" + k + "-" + d, ChangeType.ADDED, day + 1, 2));
      for (int slot = 0; slot < 40; slot++) {
        for (int r = 0; r < 2; r++) {
          double t = day + 60 + slot * 1_800 + r * 30;
          String uid = "u-" + name + "-" + d + "-" + slot + "-" + r;
          in.addAll(
              life(uid, name + "-5d8f7-" + d + slot + r, "ReplicaSet", name + "-5d8f7", t, 1_700));
        }
      }
      in.add(
          workload(
              "Deployment", name, "u-dep-" + k + "-" + d, ChangeType.DELETED, day + DAY_S - 10, 0));
    }
    for (int j = 0; j < 20 * scale + 1; j++) {
      String name = j == 0 ? "nightly" : "batch-" + d + "-" + j;
      String jobUid = "u-job-" + d + "-" + j;
      double t = day + 300 + j * 600.0 % 60_000;
      in.add(workload("Job", name, jobUid, ChangeType.ADDED, t, 2));
      for (int p = 0; p < 2; p++) {
        in.addAll(life("u-" + jobUid + "-" + p, name + "-" + p + "x", "Job", name, t + 5, 1_800));
      }
      in.add(workload("Job", name, jobUid, ChangeType.DELETED, t + 1_800 + 3_600, 0));
    }
    for (int s = 0; s < scale; s++) {
      String name = "asr-" + s;
      String stsUid = "u-sts-" + s;
      if (d == 0) {
        in.add(workload("StatefulSet", name, stsUid, ChangeType.ADDED, day + 1, 2));
      }
      for (int round = 0; round < 4; round++) {
        for (int r = 0; r < 2; r++) {
          double t = day + 120 + round * 18_000;
          in.addAll(
              life(
                  "u-" + name + "-" + d + "-" + round + "-" + r,
                  name + "-" + r,
                  "StatefulSet",
                  name,
                  t,
                  17_500));
        }
      }
    }
    in.sort(Comparator.comparingLong(InputProducer::timestampOf));
    return in;
  }

  /** Seconds into a day by which every pod of the day has gone. */
  static final long QUIET_FROM_S = 20 * 3_600 + 600;

  /** Pod lives of a day. */
  int livesPerDay() {
    return 4 * scale * 80 + (20 * scale + 1) * 2 + scale * 8;
  }

  private static List<Object> life(
      String uid, String name, String ownerKind, String owner, double t, double lifeS) {
    Inputs.Pod p =
        new Inputs.Pod(uid, "soak", name, ownerKind, owner, "interactive", 100000, 1)
            .created(t)
            .condition("PodScheduled", "True", t + 1, null, null)
            .node("gpu-node-" + Math.floorMod(uid.hashCode(), 4));
    if (ownerKind.equals("ReplicaSet")) {
      p.label("pod-template-hash", "5d8f7");
    }
    List<Object> in = new ArrayList<>();
    in.add(p.seen(ChangeType.ADDED, t + 0.2));
    p.phase("Running")
        .running("main", t + 2, 0, true)
        .condition("Ready", "True", t + 10, null, null);
    in.add(p.seen(ChangeType.MODIFIED, t + 10.2));
    in.add(Inputs.request("soak", name, "chat", Inputs.at(t + 20), 200, 120));
    p.terminated("main", t + 2, t + lifeS, 0, "Completed").phase("Succeeded");
    in.add(p.seen(ChangeType.DELETED, t + lifeS + 0.5));
    return in;
  }

  private static WorkloadObservation workload(
      String kind, String name, String uid, ChangeType change, double at, int desired) {
    return WorkloadObservation.newBuilder()
        .setNamespace("soak")
        .setKind(kind)
        .setName(name)
        .setUid(uid)
        .setChangeType(change)
        .setObservedAt(Inputs.at(at))
        .setDesired(change == ChangeType.DELETED ? 0 : desired)
        .build();
  }
}
