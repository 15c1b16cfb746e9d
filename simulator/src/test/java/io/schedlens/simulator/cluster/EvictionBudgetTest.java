package io.schedlens.simulator.cluster;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * PodDisruptionBudget semantics as kubernetes.io documents them ("Specifying a Disruption Budget",
 * "Unhealthy Pod Eviction Policy"): an eviction needs {@code disruptionsAllowed >= 1}, except for a
 * pod that is not Ready while the budget is met.
 */
class EvictionBudgetTest {

  @Test
  void shouldAllowEveryEvictionWithoutABudget() {
    assertThat(EvictionBudget.allows(0, true, null)).isTrue();
  }

  @Test
  void shouldAllowEvictingAReadyPodOnlyWhileOneDisruptionIsAllowed() {
    // minAvailable 2 of 3 Ready: one may go; of 2 Ready: none
    assertThat(EvictionBudget.allows(3, true, 2)).isTrue();
    assertThat(EvictionBudget.allows(2, true, 2)).isFalse();
  }

  @Test
  void shouldAllowEvictingAnUnreadyPodWhileTheBudgetIsMet() {
    // IfHealthyBudget: 2 Ready of minAvailable 2, the third not Ready: it may go, it serves nothing
    assertThat(EvictionBudget.allows(2, false, 2)).isTrue();
    assertThat(EvictionBudget.allows(1, false, 2)).as("budget not met").isFalse();
  }

  @Test
  void shouldRefuseEveryVoluntaryEvictionWithMinAvailableEqualToReplicas() {
    // the documented way to block drains: minAvailable = replicas
    assertThat(EvictionBudget.allows(3, true, 3)).isFalse();
  }
}
