package io.schedlens.topology;

import io.schedlens.avro.internal.WorkloadMember;
import io.schedlens.avro.internal.WorkloadState;
import io.schedlens.timeline.WorkloadContinuity;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Supplier;

/**
 * Finds the pods of a Deployment that a rollout deleted, each once. Kubernetes marks nothing on
 * such a pod, so the workload stage infers it from its pods' facts ({@link
 * WorkloadContinuity#rolledOut}).
 */
final class RolloutFinder {

  private static final int TEMPLATE_HASHES_KEPT = 10_000;

  /**
   * Per Deployment, the pod-template hashes its members were seen with (a superset: members that
   * left are not taken out). A rollout needs two, so a Deployment that never had a second is not
   * scanned for one on each pod fact (with 200 members, the scan and its decoding were 10 % of the
   * stream thread in StreamsLoad's sparse shape). Rebuilt from the members when missing (a new
   * task, an evicted entry); holds nothing the store does not.
   */
  private final Map<String, Set<String>> templateHashes =
      new LinkedHashMap<>(256, 0.75f, true) {
        private static final long serialVersionUID = 1L;

        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Set<String>> eldest) {
          return size() > TEMPLATE_HASHES_KEPT;
        }
      };

  /** A pod a rollout deleted, and when its deletion was asked for. */
  record RolledOut(WorkloadMember pod, long at) {}

  /**
   * The pods of the workload a rollout deleted that it was not told of before, after {@code
   * joined}'s fact; marks them told in {@code w}.
   */
  List<RolledOut> newlyRolledOut(
      String key, WorkloadState w, WorkloadMember joined, Supplier<List<WorkloadMember>> all) {
    if (!key.contains("/Deployment/")) {
      return List.of();
    }
    Set<String> hashes = templateHashes.get(key);
    List<WorkloadMember> members = null;
    if (hashes == null) {
      members = all.get();
      hashes = new HashSet<>();
      for (WorkloadMember m : members) {
        if (m.getTemplateHash() != null) {
          hashes.add(m.getTemplateHash());
        }
      }
      templateHashes.put(key, hashes);
    }
    if (joined.getTemplateHash() != null) {
      hashes.add(joined.getTemplateHash());
    }
    if (hashes.size() < 2) {
      return List.of(); // one ReplicaSet's pods only: no rollout to find
    }
    if (members == null) {
      members = all.get();
    }
    Map<String, Long> rolled = WorkloadContinuity.rolledOut(members);
    if (rolled.isEmpty()) {
      return List.of();
    }
    List<String> told = new ArrayList<>(w.getRolloutTold());
    List<RolledOut> out = new ArrayList<>();
    for (WorkloadMember p : members) {
      Long at = rolled.get(p.getUid());
      if (at != null && !told.contains(p.getUid())) {
        told.add(p.getUid());
        out.add(new RolledOut(p, at));
      }
    }
    w.setRolloutTold(told);
    return out;
  }

  /** The workload's state was freed. */
  void forget(String key) {
    templateHashes.remove(key);
  }
}
