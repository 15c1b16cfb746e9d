package io.schedlens.simulator.cluster;

/**
 * The Eviction API's answer under a PodDisruptionBudget with {@code minAvailable}, as the
 * disruption controller computes it: {@code disruptionsAllowed = currentHealthy - desiredHealthy};
 * a healthy (Ready) pod may be evicted while that is at least 1; an unhealthy one while the budget
 * is met ({@code unhealthyPodEvictionPolicy: IfHealthyBudget}, the default), since evicting it
 * costs no availability. Otherwise the API answers 429 and {@code kubectl drain} tries again. Pure.
 */
final class EvictionBudget {

  private EvictionBudget() {}

  /**
   * Whether the eviction of one pod is allowed.
   *
   * @param healthy the workload's Ready pods that are not gone, this one included if Ready
   * @param podReady whether the pod to evict is Ready
   * @param minAvailable the budget's minAvailable, or null: no budget, always allowed
   */
  static boolean allows(long healthy, boolean podReady, Integer minAvailable) {
    if (minAvailable == null) {
      return true;
    }
    long disruptionsAllowed = healthy - minAvailable;
    return podReady ? disruptionsAllowed >= 1 : disruptionsAllowed >= 0;
  }
}
