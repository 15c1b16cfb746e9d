package io.schedlens.simulator.cluster;

import java.util.List;

/**
 * The Deployment controller's rolling-update arithmetic, one reconcile step, as Kubernetes' {@code
 * pkg/controller/deployment/rolling.go} does it: the new ReplicaSet grows while all pods stay
 * within {@code desired + maxSurge}; old ReplicaSets shrink, their unready pods first ({@code
 * cleanupUnhealthyReplicas}), then ready ones while at least {@code desired - maxUnavailable} stay
 * available ({@code scaleDownOldReplicaSetsForRollingUpdate}); a new ReplicaSet's pods that are not
 * ready yet count against what may go down. Pure: replica counts in, replica counts out.
 */
final class RollingUpdate {

  private RollingUpdate() {}

  /**
   * A ReplicaSet as the step sees it.
   *
   * @param desired the replicas it is told to have
   * @param ready those of its pods that are Ready
   */
  record Replicas(int desired, int ready) {}

  /**
   * The desired replicas of every ReplicaSet after one step.
   *
   * @param want the Deployment's replicas (0 once it is deleted)
   * @param maxSurge how many pods over {@code want} may exist
   * @param maxUnavailable how many of {@code want} may be unavailable
   * @param sets the Deployment's ReplicaSets, oldest first, the current one last
   * @return their desired replicas, in the same order
   */
  static int[] step(int want, int maxSurge, int maxUnavailable, List<Replicas> sets) {
    int n = sets.size();
    int fresh = n - 1;
    int[] d = new int[n];
    int available = 0;
    boolean rolling = false;
    for (int i = 0; i < n; i++) {
      d[i] = sets.get(i).desired();
      available += sets.get(i).ready();
      rolling |= i < fresh && d[i] > 0;
    }
    if (!rolling || want == 0) {
      for (int i = 0; i < fresh; i++) {
        d[i] = 0;
      }
      d[fresh] = want;
      return d;
    }
    int maxTotal = want + maxSurge;
    int total = sum(d);
    if (total < maxTotal && d[fresh] < want) {
      d[fresh] = Math.min(want, d[fresh] + (maxTotal - total));
      total = sum(d);
    }
    int minAvailable = want - maxUnavailable;
    int newUnavailable = Math.max(0, d[fresh] - sets.get(fresh).ready());
    int canDown = total - minAvailable - newUnavailable;
    // Unready old pods first: they cost no availability.
    for (int i = 0; i < fresh; i++) {
      int unready = Math.max(0, d[i] - sets.get(i).ready());
      int down = Math.min(Math.max(0, canDown), unready);
      d[i] -= down;
      canDown -= down;
    }
    int byAvailability = Math.min(canDown, available - minAvailable);
    for (int i = 0; i < fresh; i++) {
      int down = Math.min(Math.max(0, byAvailability), d[i]);
      d[i] -= down;
      byAvailability -= down;
    }
    if (sum(d) < maxTotal && d[fresh] < want) {
      d[fresh] = Math.min(want, d[fresh] + maxTotal - sum(d));
    }
    return d;
  }

  private static int sum(int[] d) {
    int s = 0;
    for (int x : d) {
      s += x;
    }
    return s;
  }
}
