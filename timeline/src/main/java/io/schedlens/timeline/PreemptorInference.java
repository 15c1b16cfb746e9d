package io.schedlens.timeline;

import io.schedlens.avro.PodRef;
import io.schedlens.avro.internal.NodeFact;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * Names the preemptor of a victim that no Kubernetes object named (the Preempted event expires
 * after an hour and a core/v1 event has no related object; a collector restart loses events): the
 * pod the scheduler nominated to the victim's node when it preempted (it sets the preemptor's
 * {@code status.nominatedNodeName} in the same scheduling cycle), else the next pod bound to that
 * node within the grace period. A preemptor has a higher priority than its victim. The answer is
 * marked inferred. Pure: decided once every nomination and binding up to the preemption plus the
 * grace period is known.
 */
public final class PreemptorInference {

  private PreemptorInference() {}

  /**
   * The victim's preemptor among the node's candidates, or empty.
   *
   * @param candidates the pods nominated to or bound to the victim's node
   * @param victim the victim's fact: its node, its preemption time, itself
   * @param toleranceMs how much before the preemption a nomination may have been seen
   * @param graceMs how long after the preemption the preemptor may be seen
   */
  public static Optional<PodRef> preemptorOf(
      List<NodeFact> candidates, NodeFact victim, long toleranceMs, long graceMs) {
    String victimUid = victim.getPod().getUid();
    if (victim.getPreemptorUid() != null) {
      Optional<NodeFact> named =
          candidates.stream()
              .filter(c -> victim.getPreemptorUid().equals(c.getPod().getUid()))
              .findFirst();
      if (named.isPresent()) {
        return Optional.of(inferred(named.get().getPod()));
      }
    }
    long at = victim.getAt();
    Comparator<NodeFact> first =
        Comparator.comparingLong(NodeFact::getAt).thenComparing(c -> c.getPod().getUid());
    Optional<NodeFact> nominated =
        candidates.stream()
            .filter(c -> "nominated".equals(c.getKind()))
            .filter(c -> c.getAt() >= at - toleranceMs && c.getAt() <= at + graceMs)
            .filter(c -> outranks(c.getPod(), victim.getPod(), victimUid))
            .min(first);
    if (nominated.isPresent()) {
      return Optional.of(inferred(nominated.get().getPod()));
    }
    return candidates.stream()
        .filter(c -> "bound".equals(c.getKind()))
        .filter(c -> c.getAt() > at && c.getAt() <= at + graceMs)
        .filter(c -> outranks(c.getPod(), victim.getPod(), victimUid))
        .min(first)
        .map(c -> inferred(c.getPod()));
  }

  private static boolean outranks(PodRef candidate, PodRef victim, String victimUid) {
    if (candidate.getUid() == null || candidate.getUid().equals(victimUid)) {
      return false;
    }
    return candidate.getPriority() == null
        || victim.getPriority() == null
        || candidate.getPriority() > victim.getPriority();
  }

  private static PodRef inferred(PodRef p) {
    return PodRef.newBuilder(p).setInferred(true).build();
  }
}
