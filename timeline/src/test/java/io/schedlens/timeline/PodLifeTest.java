package io.schedlens.timeline;

import static io.schedlens.testsupport.Inputs.at;
import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.ChangeType;
import io.schedlens.avro.ClusterEvent;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.internal.PodsOfName;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.avro.internal.VictimLink;
import io.schedlens.schemas.EventTimes;
import io.schedlens.testsupport.Inputs;
import io.schedlens.testsupport.PodLives;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The pod stage's decisions without Kafka: which incarnation an input is for, when it comes too
 * late, and what follows from it, in the order the stage carries it out.
 */
class PodLifeTest {

  static final long ORPHAN_MS = 3_600_000;
  static final long GRACE = TimelineReducerTest.SETTINGS.grace().toMillis();

  final PodLife life = new PodLife(new TimelineReducer(TimelineReducerTest.SETTINGS), ORPHAN_MS);

  static Inputs.Pod pending(String uid) {
    return new Inputs.Pod(uid, "ai-lab", "embed-0", null, null, "batch", 1000, 1)
        .condition("PodScheduled", "False", 0, "Unschedulable", "0/1 nodes are available");
  }

  /** The effects of a step, by kind, for reading in a test. */
  static List<String> kinds(PodLife.Step step) {
    List<String> k = new ArrayList<>();
    for (PodEffect e : step.effects()) {
      k.add(
          e instanceof PodEffect.CallAt c
              ? "CallAt " + c.timer() + " " + c.uid()
              : e.getClass().getSimpleName());
    }
    return k;
  }

  @Test
  void shouldStartAPendingPodsStarvationTimerAndPublishItsFirstObservation() {
    PodsOfName pods = Incarnations.none();
    PodLife.Step step = life.observe(pods, pending("u-1").seen(ChangeType.ADDED, 0.5), at(0));

    assertThat(step.isLate()).isFalse();
    assertThat(kinds(step))
        .as("starvation timer when first seen; facts told; durations; published at once")
        .startsWith("CallAt STARVE u-1")
        .endsWith("Observed", "Publish");
    PodEffect.CallAt starve = (PodEffect.CallAt) step.effects().get(0);
    assertThat(starve.at())
        .as("its creation plus --starvation-pending")
        .isEqualTo(
            pods.getPods().get(0).getLifecycle().getCreatedAt()
                + TimelineReducerTest.SETTINGS.starvationPending().toMillis());
    assertThat(pods.getPods()).extracting(TimelineState::getUid).containsExactly("u-1");
  }

  @Test
  void shouldSetTheFinalTimerOnceWhenThePodIsGone() {
    PodsOfName pods = Incarnations.none();
    List<Object> life = PodLives.preemptedJobLife("u-asr-1", "asr-batch-x1", "u-chat-0");
    List<String> finals = new ArrayList<>();
    for (Object input : life) {
      PodLife.Step step =
          input instanceof PodObservation o
              ? this.life.observe(pods, o, Long.MIN_VALUE)
              : input instanceof ClusterEvent e
                  ? this.life.event(pods, e.getRegarding().getUid(), e, Long.MIN_VALUE)
                  : null;
      if (step != null) {
        kinds(step).stream().filter(k -> k.startsWith("CallAt FINAL")).forEach(finals::add);
      }
    }
    assertThat(finals).as("one final timer, when the DELETED observation came").hasSize(1);
  }

  @Test
  void shouldRefuseAnObservationOfAPodWhoseFinalTimelineWentOut() {
    PodsOfName pods = Incarnations.none();
    Inputs.Pod p = pending("u-1");
    life.observe(pods, p.seen(ChangeType.ADDED, 0.5), at(0));
    Incarnations.retire(pods, pods.getPods().get(0), at(200));
    PodLife.Step late = life.observe(pods, p.seen(ChangeType.MODIFIED, 300), at(300));
    assertThat(late.isLate()).isTrue();
    assertThat(late.late()).isEqualTo(PodLife.POD_AFTER_FINAL);
    assertThat(late.effects()).isEmpty();

    PodsOfName gone = Incarnations.none();
    life.observe(gone, p.seen(ChangeType.DELETED, 10), at(0));
    TimelineState s = gone.getPods().get(0);
    assertThat(life.observe(gone, p.seen(ChangeType.MODIFIED, 9), FinalDue.at(s, GRACE)).late())
        .as("the pods stream passed its end plus the grace period: its final is due")
        .isEqualTo(PodLife.POD_AFTER_FINAL);
  }

  @Test
  void shouldStartAnIncarnationAndItsOrphanTimerOnAnEventBeforeTheFirstObservation() {
    PodsOfName pods = Incarnations.none();
    ClusterEvent e = Inputs.event("ev-1", "u-9", "FailedScheduling", "0/1 nodes", at(5), 1);
    PodLife.Step step = life.event(pods, "u-9", e, at(0));
    assertThat(kinds(step)).startsWith("CallAt ORPHAN u-9");
    assertThat(((PodEffect.CallAt) step.effects().get(0)).at())
        .as("the event's time plus the orphan timeout")
        .isEqualTo(EventTimes.of(e) + ORPHAN_MS);
    assertThat(kinds(step))
        .as("no timeline before the pod is observed: published, but not yet seen")
        .contains("Observed");
  }

  @Test
  void shouldAnswerALinkThatWaitedForThePodWhenItIsFirstObserved() {
    PodsOfName pods = Incarnations.none();
    VictimLink waiting =
        VictimLink.newBuilder()
            .setVictimUid("u-victim")
            .setVictimNamespace("ai-lab")
            .setVictimName("asr-0")
            .setPreemptorNamespace("ai-lab")
            .setPreemptorName("embed-0")
            .setAt(at(1))
            .build();
    pods.setWaitingLinks(new ArrayList<>(List.of(waiting)));
    PodLife.Step step = life.observe(pods, pending("u-1").seen(ChangeType.ADDED, 0.5), at(0));
    assertThat(pods.getWaitingLinks()).as("taken by the pod that held the name").isEmpty();
    assertThat(pods.getPods().get(0).getDisruption().getVictims()).containsExactly("u-victim");
    assertThat(kinds(step))
        .as("the answer to the victim and the holder's timeline come before its own effects")
        .containsSubsequence("Send", "Publish", "Observed", "Publish");
  }
}
