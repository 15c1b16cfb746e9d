package io.schedlens.timeline;

import io.schedlens.avro.QueueAdmission;
import io.schedlens.avro.QueueCondition;
import io.schedlens.avro.QueueEviction;
import io.schedlens.avro.QueueWorkload;
import io.schedlens.base.DisruptionCause;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.TreeMap;

/**
 * A Kueue Workload's admissions and evictions (DESIGN section 4, queues), from the observations of
 * the Workload, and what they mean for each pod of the workload it admits. Pure.
 *
 * <p>Kueue keeps only the latest transition of each condition, so each observation tells at most
 * one admission (an {@code Admitted=True} transition) and one eviction (an {@code Evicted=True}
 * transition). Both are kept by their time: the same observation read twice, or observations in any
 * order, give the same lists.
 */
public final class QueueAdmissions {

  /** How many admissions and evictions a workload keeps (the latest). */
  public static final int KEPT = 64;

  /**
   * Pods of a Job are created after its admission, but their creation time is the API server's and
   * the admission's Kueue's: a pod created up to this long before the admission's time is still
   * that admission's.
   */
  static final long CLOCK_SKEW_MS = 2_000;

  private static final Comparator<QueueAdmission> BY_ADMISSION =
      Comparator.comparing(
          QueueAdmission::getAdmittedAt, Comparator.nullsFirst(Comparator.naturalOrder()));

  private QueueAdmissions() {}

  /** The admission an observation tells of: its Admitted=True transition; null without one. */
  public static QueueAdmission admissionOf(QueueWorkload w) {
    QueueCondition admitted = active(w, "Admitted");
    if (admitted == null || admitted.getLastTransitionTime() == null) {
      return null;
    }
    long at = admitted.getLastTransitionTime();
    // As Kueue counts its own admission wait (pkg/workload QueuedWaitTime): from the Requeued
    // condition's last transition when it has one, else from the Workload's creation.
    long since = w.getCreatedAt();
    QueueCondition requeued = condition(w, "Requeued");
    if (requeued != null
        && requeued.getLastTransitionTime() != null
        && requeued.getLastTransitionTime() <= at) {
      since = Math.max(since, requeued.getLastTransitionTime());
    }
    return QueueAdmission.newBuilder()
        .setAdmittedAt(at)
        .setWaitSince(since)
        .setQueueWaitMs(Math.max(0, at - since))
        .setQueue(w.getLocalQueue())
        .setClusterQueue(w.getClusterQueue())
        .setPriorityClass(w.getPriorityClass())
        .build();
  }

  /** The eviction an observation tells of: its Evicted=True transition; null without one. */
  public static QueueEviction evictionOf(QueueWorkload w) {
    QueueCondition evicted = active(w, "Evicted");
    if (evicted == null || evicted.getLastTransitionTime() == null) {
      return null;
    }
    String reason = evicted.getReason() == null ? "Unknown" : evicted.getReason();
    QueueCondition preempted = active(w, "Preempted");
    String by = w.getPreemptor() != null ? w.getPreemptor() : w.getPreemptorUid();
    return QueueEviction.newBuilder()
        .setAt(evicted.getLastTransitionTime())
        .setReason(reason)
        .setPreemptionReason(
            reason.equals("Preempted") && preempted != null ? preempted.getReason() : null)
        .setBy(reason.equals("Preempted") ? by : null)
        .build();
  }

  /** What a workload knows of its queue: its admissions and its evictions. */
  public record Known(List<QueueAdmission> admissions, List<QueueEviction> evictions) {}

  /** What is known once one more observation of the Workload is read. */
  public static Known observed(
      List<QueueAdmission> admissions, List<QueueEviction> evictions, QueueWorkload w) {
    QueueAdmission a = admissionOf(w);
    QueueEviction e = evictionOf(w);
    return new Known(
        a == null ? admissions : with(admissions, a), e == null ? evictions : with(evictions, e));
  }

  /**
   * What makes an observation's facts unusable, or null: an admission or eviction before the
   * Workload was created (Kueue writes neither before the Workload exists; such an observation was
   * written or rewritten by something else).
   */
  public static String contradiction(QueueWorkload w) {
    for (QueueCondition c : w.getConditions()) {
      boolean fact = c.getType().equals("Admitted") || c.getType().equals("Evicted");
      if (fact
          && "True".equals(c.getStatus())
          && c.getLastTransitionTime() != null
          && c.getLastTransitionTime() < w.getCreatedAt()) {
        return c.getType()
            + "=True at "
            + c.getLastTransitionTime()
            + " before the Workload's creation at "
            + w.getCreatedAt();
      }
    }
    return null;
  }

  /** {@code known} with {@code a} added, one per admission time, oldest first, the latest kept. */
  public static List<QueueAdmission> with(List<QueueAdmission> known, QueueAdmission a) {
    TreeMap<Long, QueueAdmission> byTime = new TreeMap<>();
    for (QueueAdmission k : known) {
      byTime.put(k.getAdmittedAt(), k);
    }
    byTime.merge(a.getAdmittedAt(), a, QueueAdmissions::fuller);
    return latest(new ArrayList<>(byTime.values()));
  }

  /** {@code known} with {@code e} added, one per eviction time, oldest first, the latest kept. */
  public static List<QueueEviction> with(List<QueueEviction> known, QueueEviction e) {
    TreeMap<Long, QueueEviction> byTime = new TreeMap<>();
    for (QueueEviction k : known) {
      byTime.put(k.getAt(), k);
    }
    byTime.merge(e.getAt(), e, QueueAdmissions::fuller);
    return latest(new ArrayList<>(byTime.values()));
  }

  private static <T> List<T> latest(List<T> all) {
    return all.size() <= KEPT ? all : new ArrayList<>(all.subList(all.size() - KEPT, all.size()));
  }

  /**
   * Two observations of one admission: the later start of the wait (the re-queueing the other may
   * not have seen), and what either names.
   */
  private static QueueAdmission fuller(QueueAdmission x, QueueAdmission y) {
    long since = Math.max(x.getWaitSince(), y.getWaitSince());
    return QueueAdmission.newBuilder(x)
        .setWaitSince(since)
        .setQueueWaitMs(Math.max(0, x.getAdmittedAt() - since))
        .setQueue(first(x.getQueue(), y.getQueue()))
        .setClusterQueue(first(x.getClusterQueue(), y.getClusterQueue()))
        .setPriorityClass(first(x.getPriorityClass(), y.getPriorityClass()))
        .build();
  }

  /** Two observations of one eviction: what either names. */
  private static QueueEviction fuller(QueueEviction x, QueueEviction y) {
    return QueueEviction.newBuilder(x)
        .setReason(first(x.getReason(), y.getReason()))
        .setPreemptionReason(first(x.getPreemptionReason(), y.getPreemptionReason()))
        .setBy(first(x.getBy(), y.getBy()))
        .build();
  }

  /** The non-null one; of two, the smaller, so that the order of arrival does not matter. */
  private static String first(String x, String y) {
    if (x == null) {
      return y;
    }
    if (y == null) {
      return x;
    }
    return x.compareTo(y) <= 0 ? x : y;
  }

  /**
   * The workload's admissions with the eviction that ended each, oldest first: an eviction ends the
   * latest admission at or before it; an eviction whose admission was not observed stands alone
   * (admittedAt null).
   */
  public static List<QueueAdmission> story(
      List<QueueAdmission> admissions, List<QueueEviction> evictions) {
    List<QueueAdmission> sorted = new ArrayList<>(admissions);
    sorted.sort(BY_ADMISSION);
    List<QueueAdmission> out = new ArrayList<>();
    for (QueueAdmission a : sorted) {
      out.add(QueueAdmission.newBuilder(a).setEviction(null).build());
    }
    List<QueueEviction> byTime = new ArrayList<>(evictions);
    byTime.sort(Comparator.comparingLong(QueueEviction::getAt));
    List<QueueAdmission> alone = new ArrayList<>();
    for (QueueEviction e : byTime) {
      int ended = -1;
      for (int i = 0; i < out.size(); i++) {
        if (out.get(i).getAdmittedAt() <= e.getAt()) {
          ended = i;
        }
      }
      if (ended >= 0 && out.get(ended).getEviction() == null) {
        out.get(ended).setEviction(e);
      } else {
        alone.add(QueueAdmission.newBuilder().setEviction(e).build());
      }
    }
    out.addAll(alone);
    out.sort(
        Comparator.comparingLong(
            a -> a.getAdmittedAt() != null ? a.getAdmittedAt() : a.getEviction().getAt()));
    return out;
  }

  /**
   * The admission that let a pod exist or run: the latest at or before its creation (allowing for
   * the clocks' skew); for a pod held by scheduling gates (Kueue's pod integration creates pods
   * before it admits them), the first after its creation. Null when none is known.
   */
  public static QueueAdmission ofPod(
      List<QueueAdmission> admissions, long createdAt, boolean gated) {
    QueueAdmission chosen = null;
    for (QueueAdmission a : admissions) {
      long at = a.getAdmittedAt();
      if (gated) {
        if (at >= createdAt - CLOCK_SKEW_MS && (chosen == null || at < chosen.getAdmittedAt())) {
          chosen = a;
        }
      } else if (at <= createdAt + CLOCK_SKEW_MS
          && (chosen == null || at > chosen.getAdmittedAt())) {
        chosen = a;
      }
    }
    return chosen;
  }

  /**
   * The eviction that ended a pod: the first that found it running (started, not yet stopped). Null
   * when none did.
   */
  public static QueueEviction ofRunningPod(
      List<QueueEviction> evictions, Long runningAt, Long terminatedAt) {
    if (runningAt == null) {
      return null;
    }
    QueueEviction first = null;
    for (QueueEviction e : evictions) {
      boolean running =
          runningAt <= e.getAt() && (terminatedAt == null || terminatedAt >= e.getAt());
      if (running && (first == null || e.getAt() < first.getAt())) {
        first = e;
      }
    }
    return first;
  }

  /** The disruption cause of a Kueue eviction. */
  public static DisruptionCause causeOf(QueueEviction e) {
    return "Preempted".equals(e.getReason())
        ? DisruptionCause.QUEUE_PREEMPTION
        : DisruptionCause.QUEUE_EVICTION;
  }

  /**
   * Who the disruption names: the preempting workload for a preemption (Kueue's preemption reason
   * when it named none), the eviction's reason for any other.
   */
  public static String byOf(QueueEviction e) {
    if (causeOf(e) == DisruptionCause.QUEUE_PREEMPTION) {
      return e.getBy() != null
          ? e.getBy()
          : Objects.requireNonNullElse(e.getPreemptionReason(), e.getReason());
    }
    return e.getReason();
  }

  /** Workload preemptions by Kueue at or before {@code until}. */
  public static int preemptionsBy(List<QueueEviction> evictions, long until) {
    int n = 0;
    for (QueueEviction e : evictions) {
      if ("Preempted".equals(e.getReason()) && e.getAt() <= until) {
        n++;
      }
    }
    return n;
  }

  private static QueueCondition active(QueueWorkload w, String type) {
    QueueCondition c = condition(w, type);
    return c != null && "True".equals(c.getStatus()) ? c : null;
  }

  private static QueueCondition condition(QueueWorkload w, String type) {
    for (QueueCondition c : w.getConditions()) {
      if (type.equals(c.getType())) {
        return c;
      }
    }
    return null;
  }
}
