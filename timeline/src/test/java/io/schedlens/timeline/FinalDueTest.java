package io.schedlens.timeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.internal.TimelineState;
import org.junit.jupiter.api.Test;

/** When a gone pod's final timeline is due, from its own facts only. */
class FinalDueTest {

  static final long GRACE = 120_000;

  static TimelineState gone(Long finishedAt, Long deletedObservedAt, long updatedAt) {
    TimelineState s = TimelineReducer.empty("u-1");
    s.getLifecycle().setGone(true);
    s.getLifecycle().setTerminalPhase(finishedAt == null ? null : "Succeeded");
    s.getLifecycle().setFinishedAt(finishedAt);
    s.getLifecycle().setDeletedObservedAt(deletedObservedAt);
    s.getLifecycle().setRunningAt(1_000L);
    s.setUpdatedAt(updatedAt);
    return s;
  }

  @Test
  void shouldBeDueAGracePeriodAfterTheLaterOfItsEndAndWhenItWasSeenGone() {
    assertThat(FinalDue.at(gone(60_000L, 61_000L, 61_000), GRACE)).isEqualTo(61_000 + GRACE);
    assertThat(FinalDue.at(gone(60_000L, null, 60_000), GRACE))
        .as("a terminal pod not deleted yet: its end")
        .isEqualTo(60_000 + GRACE);
  }

  @Test
  void shouldFallBackToItsLastUpdateWhenNoFactSaysWhenItEnded() {
    TimelineState s = gone(null, null, 90_000);
    assertThat(TimelineView.terminatedAt(s)).isNull();
    assertThat(FinalDue.at(s, GRACE)).isEqualTo(90_000 + GRACE);
  }

  @Test
  void shouldCallAnInputLateOnlyForAGonePodAndOnlyFromTheDueTimeOn() {
    TimelineState s = gone(60_000L, 61_000L, 61_000);
    assertThat(FinalDue.passed(s, 61_000 + GRACE - 1, GRACE)).isFalse();
    assertThat(FinalDue.passed(s, 61_000 + GRACE, GRACE)).isTrue();
    s.getLifecycle().setGone(false);
    s.getLifecycle().setDeletedObservedAt(null);
    assertThat(FinalDue.passed(s, Long.MAX_VALUE, GRACE)).as("a live pod is never past").isFalse();
  }
}
