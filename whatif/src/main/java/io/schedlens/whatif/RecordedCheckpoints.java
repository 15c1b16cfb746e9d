package io.schedlens.whatif;

import io.schedlens.avro.PodObservation;
import io.schedlens.avro.PodTimeline;
import io.schedlens.base.KubeTime;
import io.schedlens.report.PodFacts;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * How often each application checkpointed, as a recording shows it: a pod that checkpoints writes
 * the time of its latest durable checkpoint into an annotation ({@code
 * schedlens.io/last-checkpoint} by default); the Pods a recording holds carry each value it took.
 * The time between two successive checkpoints of one pod is productive time (a pod does not pause),
 * so the median of those gaps over an application's pods is its checkpoint interval. Timelines keep
 * only the latest checkpoint of a pod, so this needs the recording itself. Pure.
 */
public final class RecordedCheckpoints {

  private RecordedCheckpoints() {}

  /**
   * An application's checkpoint interval.
   *
   * @param median the median time between two successive checkpoints of one of its pods
   * @param gaps how many such gaps it rests on
   */
  public record Interval(Duration median, int gaps) {}

  /**
   * Per application ({@link PodFacts#application}, as the report and the policy's {@code workloads}
   * name it), the interval its pods' checkpoints show; applications with no two successive
   * checkpoints of one pod are absent.
   *
   * @param observations the recorded Pods, in any order
   * @param timelines the pods' timelines (their application)
   * @param annotation the annotation that holds the latest checkpoint's time
   */
  public static Map<String, Interval> of(
      Iterable<PodObservation> observations, Collection<PodTimeline> timelines, String annotation) {
    Map<String, TreeSet<Long>> byUid = new HashMap<>();
    for (PodObservation o : observations) {
      String value = o.getAnnotations().get(annotation);
      Long at = value == null ? null : KubeTime.millis(value);
      if (at != null) {
        byUid.computeIfAbsent(o.getUid(), u -> new TreeSet<>()).add(at);
      }
    }
    Map<String, List<Long>> gaps = new TreeMap<>();
    for (PodTimeline t : timelines) {
      TreeSet<Long> times = byUid.get(t.getUid());
      if (times == null || times.size() < 2) {
        continue;
      }
      List<Long> g = gaps.computeIfAbsent(PodFacts.application(t), a -> new ArrayList<>());
      Long previous = null;
      for (long at : times) {
        if (previous != null) {
          g.add(at - previous);
        }
        previous = at;
      }
    }
    Map<String, Interval> out = new LinkedHashMap<>();
    gaps.forEach(
        (application, g) -> {
          List<Long> sorted = g.stream().sorted().toList();
          out.put(
              application,
              new Interval(Duration.ofMillis(sorted.get((sorted.size() - 1) / 2)), sorted.size()));
        });
    return out;
  }

  /**
   * {@code policy} with the recorded interval as the {@code checkpointEvery} of every application
   * whose rule says none; what the policy says stays.
   */
  public static Policy fill(Policy policy, Map<String, Interval> recorded) {
    Map<String, Policy.WorkloadRule> rules = new HashMap<>(policy.workloads());
    recorded.forEach(
        (application, interval) -> {
          Policy.WorkloadRule r = policy.rule(application);
          if (r.checkpointEvery() == null) {
            rules.put(application, r.withCheckpointEvery(interval.median()));
          }
        });
    return new Policy(
        policy.name(),
        policy.priorityClasses(),
        rules,
        policy.quotas(),
        policy.kueue(),
        policy.unserved(),
        policy.nodes(),
        policy.seed());
  }
}
