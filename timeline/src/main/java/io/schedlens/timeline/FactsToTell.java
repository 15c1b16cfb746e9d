package io.schedlens.timeline;

import io.schedlens.avro.PodRef;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.internal.NodeFact;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.avro.internal.WorkloadEvent;
import io.schedlens.avro.internal.WorkloadMember;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * What a pod's own facts tell the stages that look across pods: its workload (membership, its
 * preemption and success with their times, its facts for the service view, its request errors and
 * breaches per second) and its node (a nomination or binding there, for naming a preemptor no
 * Kubernetes object named; a victim preempted there without a named preemptor). Each fact is told
 * once; the state records what was told. Only the pod's own evidence is told, never what another
 * stage told the pod, so that no answer causes another question. Pure apart from that record.
 */
public final class FactsToTell {

  /** A message for another stage. */
  public sealed interface Tell {}

  /** To the workload stage, keyed {@code namespace/kind/name[/controllerUid]}. */
  public record ToWorkload(String key, WorkloadEvent event) implements Tell {}

  /** To the node stage, keyed by node name. */
  public record ToNode(String node, NodeFact fact) implements Tell {}

  static final String MEMBER = "member";
  static final String PREEMPTED = "preempted";
  static final String SUCCEEDED = "succeeded";
  static final String NOMINATED = "nominated";
  static final String BOUND = "bound";
  static final String VICTIM = "victim";
  static final String ASKED = "asked";

  private FactsToTell() {}

  /**
   * Facts told once after a change of the pod's own facts.
   *
   * @param now what the state says after the change
   * @param observedAt when the observation that changed them was read: a nomination has no time of
   *     its own in the pod object
   */
  public static List<Tell> afterChange(TimelineState s, PodMoments now, long observedAt) {
    List<Tell> out = new ArrayList<>();
    if (!s.getSawPod()) {
      return out;
    }
    String workload = now.workloadKey();
    if (workload != null) {
      once(s, MEMBER, workload, at(s, observedAt), out);
      if (now.preemptedAt() != null) {
        // Told again when better evidence moves it (the Preempted event's precise time after the
        // condition's whole second): the workload keeps the pod's latest word, the same in every
        // order the evidence may come in.
        whenChanged(s, PREEMPTED, workload, now.preemptedAt(), out);
      }
      if (TimelineView.SUCCEEDED.equals(now.outcome())) {
        Long finished = s.getLifecycle().getFinishedAt();
        once(s, SUCCEEDED, workload, finished != null ? finished : at(s, observedAt), out);
      }
    }
    if (s.getLatest().getNominatedNode() != null) {
      toNode(s, NOMINATED, s.getLatest().getNominatedNode(), observedAt, null, out);
    }
    if (s.getLatest().getNode() != null && now.scheduledAt() != null) {
      toNode(s, BOUND, s.getLatest().getNode(), now.scheduledAt(), null, out);
    }
    return out;
  }

  /**
   * When a preempted pod should look for its preemptor, once: its preemption's time (the Preempted
   * event's, else the condition's); the caller waits a grace period from there for the event that
   * names the preemptor, then asks the node ({@link #victimQuestion}). Empty when not preempted, or
   * decided already.
   */
  public static OptionalLong askNodeAt(TimelineState s) {
    Long preempted =
        s.getDisruption().getPreemptedEventAt() != null
            ? s.getDisruption().getPreemptedEventAt()
            : s.getDisruption().getPreemptedConditionAt();
    if (preempted == null || s.getBookkeeping().getNodeFactsSent().contains(ASKED)) {
      return OptionalLong.empty();
    }
    List<String> sent = new ArrayList<>(s.getBookkeeping().getNodeFactsSent());
    sent.add(ASKED);
    s.getBookkeeping().setNodeFactsSent(sent);
    return OptionalLong.of(preempted);
  }

  /**
   * The question a victim asks its node when no Kubernetes object named its preemptor, or named it
   * by UID only: empty when it needs none, or asked already.
   */
  public static Optional<ToNode> victimQuestion(TimelineState s) {
    Long preempted = new PodState(s).preemptedAt();
    PodRef p = s.getDisruption().getPreemptor();
    boolean unnamed = p == null || (p.getName() == null && p.getUid() == null);
    boolean uidOnly = p != null && p.getName() == null && p.getUid() != null;
    if (preempted == null || s.getLatest().getNode() == null || !(unnamed || uidOnly)) {
      return Optional.empty();
    }
    List<Tell> out = new ArrayList<>();
    toNode(s, VICTIM, s.getLatest().getNode(), preempted, uidOnly ? p.getUid() : null, out);
    return out.isEmpty() ? Optional.empty() : Optional.of((ToNode) out.get(0));
  }

  /**
   * The pod's facts for its workload's service view, when they changed since last told (counters
   * travel with the next change or the final facts, not with every flush).
   */
  public static Optional<ToWorkload> member(TimelineState s, PodTimeline t) {
    String workload = workloadKey(s);
    if (workload == null) {
      return Optional.empty();
    }
    WorkloadMember m = WorkloadContinuity.memberOf(t, s);
    long hash = withoutCounters(m);
    if (!t.getFinal$() && s.getBookkeeping().getMemberSentHash() == hash) {
      return Optional.empty();
    }
    s.getBookkeeping().setMemberSentHash(hash);
    return Optional.of(
        new ToWorkload(workload, new WorkloadEvent(s.getUid(), "pod", s.getUpdatedAt(), m, 0, 0)));
  }

  /**
   * Request errors and SLO breaches of the pods' seconds settled in one pass, summed per workload
   * and second, so that each workload hears of a second once however many of its pods served in it
   * (one message per pod and second was most of the internal topics' records in StreamsLoad's
   * fleet). The workload stage sums them per second, so the grouping changes nothing it computes.
   * Not thread-safe: one per pod-stage task.
   */
  public static final class RequestCounts {
    /** workload key, then second: {errors, breaches}, with the first pod that told it. */
    private final Map<String, Map<Long, Counted>> counts = new LinkedHashMap<>();

    private static final class Counted {
      final String uid;
      long errors;
      long breaches;

      Counted(String uid) {
        this.uid = uid;
      }
    }

    /** Adds a second of the pod's requests (nothing when it had neither errors nor breaches). */
    public void add(TimelineState s, long second, long errors, long breaches) {
      String workload = workloadKey(s);
      if (workload == null || (errors == 0 && breaches == 0)) {
        return;
      }
      Counted c =
          counts
              .computeIfAbsent(workload, k -> new LinkedHashMap<>())
              .computeIfAbsent(second, k -> new Counted(s.getUid()));
      c.errors += errors;
      c.breaches += breaches;
    }

    /** What was added since the last call, a message per workload and second, in that order. */
    public List<ToWorkload> drain() {
      if (counts.isEmpty()) {
        return List.of();
      }
      List<ToWorkload> out = new ArrayList<>();
      counts.forEach(
          (workload, seconds) ->
              seconds.forEach(
                  (second, c) ->
                      out.add(
                          new ToWorkload(
                              workload,
                              new WorkloadEvent(
                                  c.uid,
                                  "requests",
                                  second,
                                  null,
                                  (int) c.errors,
                                  (int) c.breaches)))));
      counts.clear();
      return out;
    }
  }

  /** The key of the pod's workload's state, or null when it has none known yet. */
  public static String workloadKey(TimelineState s) {
    return OwningWorkload.keyOf(s);
  }

  private static void whenChanged(
      TimelineState s, String fact, String workload, long at, List<Tell> out) {
    String told = fact + "@" + at;
    if (s.getBookkeeping().getWorkloadFacts().contains(told)) {
      return;
    }
    List<String> facts = new ArrayList<>();
    for (String f : s.getBookkeeping().getWorkloadFacts()) {
      if (!f.equals(fact) && !f.startsWith(fact + "@")) {
        facts.add(f);
      }
    }
    facts.add(told);
    s.getBookkeeping().setWorkloadFacts(facts);
    out.add(new ToWorkload(workload, new WorkloadEvent(s.getUid(), fact, at, null, 0, 0)));
  }

  private static void once(TimelineState s, String fact, String workload, long at, List<Tell> out) {
    if (s.getBookkeeping().getWorkloadFacts().contains(fact)) {
      return;
    }
    List<String> facts = new ArrayList<>(s.getBookkeeping().getWorkloadFacts());
    facts.add(fact);
    s.getBookkeeping().setWorkloadFacts(facts);
    out.add(new ToWorkload(workload, new WorkloadEvent(s.getUid(), fact, at, null, 0, 0)));
  }

  private static void toNode(
      TimelineState s, String kind, String node, long at, String preemptorUid, List<Tell> out) {
    String mark = kind + ":" + node;
    if (s.getBookkeeping().getNodeFactsSent().contains(mark)) {
      return;
    }
    List<String> sent = new ArrayList<>(s.getBookkeeping().getNodeFactsSent());
    sent.add(mark);
    s.getBookkeeping().setNodeFactsSent(sent);
    out.add(
        new ToNode(
            node,
            NodeFact.newBuilder()
                .setNode(node)
                .setKind(kind)
                .setAt(at)
                .setPod(TimelineReducer.selfRef(s))
                .setPreemptorUid(preemptorUid)
                .build()));
  }

  private static long at(TimelineState s, long fallback) {
    return s.getLifecycle().getCreatedAt() != null ? s.getLifecycle().getCreatedAt() : fallback;
  }

  /**
   * A 64-bit hash of a pod's facts without its request counters: the counters move with every flush
   * of a serving pod, and the workload needs them only for its totals, so they travel with the
   * pod's next lifecycle change or its final facts. The state keeps this hash, not the facts.
   */
  static long withoutCounters(WorkloadMember m) {
    return InputSeconds.idHash(
        WorkloadMember.newBuilder(m)
            .setRequests(0)
            .setErrors(0)
            .setSloBreaches(0)
            .build()
            .toString());
  }
}
