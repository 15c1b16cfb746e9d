package io.schedlens.timeline;

import static io.schedlens.testsupport.Inputs.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.tuple;

import io.schedlens.avro.ClusterEvent;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.testsupport.PodLives;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

class FactsToTellTest {

  final TimelineReducer reducer = new TimelineReducer(TimelineReducerTest.SETTINGS);

  /** The preemption times a victim tells its workload, in the order the inputs come. */
  List<Long> preemptionsTold(List<Object> inputs) {
    TimelineState s = TimelineReducer.empty("u-asr-1");
    List<Long> told = new ArrayList<>();
    for (Object i : inputs) {
      reducer.applyAny(s, i);
      long observed = i instanceof PodObservation o ? o.getObservedAt() : 0;
      for (FactsToTell.Tell t : FactsToTell.afterChange(s, TimelineView.moments(s), observed)) {
        if (t instanceof FactsToTell.ToWorkload w && w.event().getFact().equals("preempted")) {
          told.add(w.event().getAt());
        }
      }
    }
    return told;
  }

  /**
   * The DisruptionTarget condition gives a whole second, the Preempted event the precise time; a
   * victim tells its workload again when the event comes after the condition, so that the
   * workload's last word is the same whichever came first (found by the determinism suite: a Job's
   * preemptionsOfWorkload differed between runs).
   */
  @Test
  void shouldTellTheSamePreemptionTimeLastWhateverTheOrderOfItsEvidence() {
    List<Object> life = PodLives.preemptedJobLife("u-asr-1", "asr-batch-x1", "u-chat-0");
    Object event = life.stream().filter(i -> i instanceof ClusterEvent).findFirst().orElseThrow();
    List<Object> eventLast = new ArrayList<>(life);
    List<Object> eventFirst = new ArrayList<>(life);
    eventFirst.remove(event);
    eventFirst.add(3, event); // after the pod's first observations, before the condition

    List<Long> conditionFirst = preemptionsTold(eventLast);
    List<Long> preciseFirst = preemptionsTold(eventFirst);

    assertThat(conditionFirst).containsExactly(at(100), at(100.5));
    assertThat(preciseFirst).containsExactly(at(100.5));
    assertThat(conditionFirst.get(conditionFirst.size() - 1))
        .isEqualTo(preciseFirst.get(preciseFirst.size() - 1));
  }

  /** A pod of the chat Deployment (its ReplicaSet and template hash), as the reducer keeps it. */
  TimelineState chatPod(String uid) {
    TimelineState s = TimelineReducer.empty(uid);
    reducer.applyAny(s, PodLives.interactiveLife().get(0));
    s.setUid(uid);
    return s;
  }

  @Test
  void shouldTellEachWorkloadItsRequestErrorsAndBreachesOncePerSecondSummedOverItsPods() {
    FactsToTell.RequestCounts counts = new FactsToTell.RequestCounts();
    TimelineState a = chatPod("u-chat-0");
    TimelineState b = chatPod("u-chat-1");
    TimelineState bare = TimelineReducer.empty("u-bare"); // no owner known yet: no workload

    counts.add(a, at(10), 1, 2);
    counts.add(b, at(10), 3, 0);
    counts.add(a, at(11), 0, 1);
    counts.add(b, at(11), 0, 0); // nothing to tell
    counts.add(bare, at(10), 5, 5);
    List<FactsToTell.ToWorkload> told = counts.drain();

    assertThat(told)
        .extracting(
            t -> t.key(),
            t -> t.event().getFact(),
            t -> t.event().getAt(),
            t -> t.event().getErrors(),
            t -> t.event().getBreaches())
        .containsExactly(
            tuple("ai-lab/Deployment/chat", "requests", at(10), 4, 2),
            tuple("ai-lab/Deployment/chat", "requests", at(11), 0, 1));
    assertThat(counts.drain()).as("drained").isEmpty();
  }
}
