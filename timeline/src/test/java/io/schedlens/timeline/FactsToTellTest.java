package io.schedlens.timeline;

import static io.schedlens.testsupport.Inputs.at;
import static org.assertj.core.api.Assertions.assertThat;

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
      for (FactsToTell.Tell t : FactsToTell.afterChange(s, observed)) {
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
}
