package io.schedlens.check;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * The pre-flight check: what must be consistent before workloads and a priority policy go to a
 * cluster. Pure: manifests (and, optionally, facts of the live cluster) in, findings out.
 */
public final class PreflightCheck {

  private final CheckSettings settings;

  public PreflightCheck(CheckSettings settings) {
    this.settings = settings;
  }

  public List<Finding> check(List<Manifest> manifests) {
    return check(manifests, Optional.empty());
  }

  public List<Finding> check(List<Manifest> manifests, Optional<ClusterFacts> cluster) {
    Inventory inv = new Inventory(manifests, settings, cluster);
    List<Finding> out = new ArrayList<>();
    ResourceRules.check(inv, out);
    PriorityRules.check(inv, out);
    ServingRules.check(inv, out);
    BudgetRules.check(inv, out);
    CheckpointRules.check(inv, out);
    KueueRules.check(inv, out);
    ClusterRules.check(inv, out);
    out.sort(
        Comparator.comparing(Finding::severity)
            .thenComparing(Finding::object)
            .thenComparing(Finding::rule)
            .thenComparing(Finding::field));
    return out;
  }
}
