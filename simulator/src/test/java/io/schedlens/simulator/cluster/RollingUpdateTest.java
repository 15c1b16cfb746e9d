package io.schedlens.simulator.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.simulator.cluster.RollingUpdate.Replicas;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The rolling-update step against the Deployment controller's documented behaviour (kubernetes.io,
 * "Deployments", Rolling Update Deployment; {@code rolling.go}): the new ReplicaSet grows within
 * maxSurge, old ones shrink within maxUnavailable, unready old pods go first.
 */
class RollingUpdateTest {

  static List<Replicas> sets(int... desiredReady) {
    Replicas[] out = new Replicas[desiredReady.length / 2];
    for (int i = 0; i < out.length; i++) {
      out[i] = new Replicas(desiredReady[2 * i], desiredReady[2 * i + 1]);
    }
    return List.of(out);
  }

  @Test
  void shouldScaleTheOnlyReplicaSetToTheDeploymentsReplicasWhenNothingRolls() {
    assertThat(RollingUpdate.step(5, 1, 0, sets(3, 3))).containsExactly(5);
    assertThat(RollingUpdate.step(1, 1, 0, sets(3, 3))).containsExactly(1);
  }

  @Test
  void shouldSurgeOneNewPodAndKeepEveryOldOneWithMaxUnavailableZero() {
    // 3 replicas, maxSurge 1, maxUnavailable 0: at most 4 pods, at least 3 available
    assertThat(RollingUpdate.step(3, 1, 0, sets(3, 3, 0, 0))).containsExactly(3, 1);
  }

  @Test
  void shouldTakeOneOldPodDownOnlyOnceTheNewOneIsReady() {
    assertThat(RollingUpdate.step(3, 1, 0, sets(3, 3, 1, 0)))
        .as("the new pod not ready: nothing may go")
        .containsExactly(3, 1);
    assertThat(RollingUpdate.step(3, 1, 0, sets(3, 3, 1, 1))).containsExactly(2, 2);
  }

  @Test
  void shouldReplaceInPlaceWithoutSurge() {
    // maxSurge 0, maxUnavailable 1: one old pod goes first, its replacement after it
    assertThat(RollingUpdate.step(3, 0, 1, sets(3, 3, 0, 0))).containsExactly(2, 1);
  }

  @Test
  void shouldScaleDownUnreadyOldPodsFirstAtNoCostInAvailability() {
    // 3 replicas, 2 of the old ones unready: they go at once, the new set grows into the room
    assertThat(RollingUpdate.step(3, 1, 1, sets(3, 1, 1, 1))).containsExactly(1, 3);
  }

  @Test
  void shouldShrinkTheOldestReplicaSetFirstWhenSeveralRemain() {
    // two rollouts in a row: 2 + 1 old ready pods, the newest set's pod ready; the room the
    // oldest set leaves goes to the newest in the same step (Kubernetes takes it at its next sync)
    assertThat(RollingUpdate.step(3, 1, 0, sets(2, 2, 1, 1, 1, 1))).containsExactly(1, 1, 2);
  }

  @Test
  void shouldEndEveryReplicaSetWhenTheDeploymentWantsNone() {
    assertThat(RollingUpdate.step(0, 1, 0, sets(3, 3, 1, 1))).containsExactly(0, 0);
  }

  @Test
  void shouldNeverExceedSurgeNorFallBelowAvailabilityOverAWholeRollout() {
    int want = 10;
    int surge = 3;
    int unavailable = 2;
    int[] d = {10, 0};
    int[] ready = {10, 0};
    for (int round = 0; round < 50 && (d[0] > 0 || ready[1] < want); round++) {
      d = RollingUpdate.step(want, surge, unavailable, sets(d[0], ready[0], d[1], ready[1]));
      assertThat(d[0] + d[1]).as("round %d: pods", round).isLessThanOrEqualTo(want + surge);
      // old pods go at once, new ones become ready a round later
      ready[0] = Math.min(ready[0], d[0]);
      assertThat(ready[0] + ready[1])
          .as("round %d: available", round)
          .isGreaterThanOrEqualTo(want - unavailable);
      ready[1] = d[1];
    }
    assertThat(d).containsExactly(0, want);
  }
}
