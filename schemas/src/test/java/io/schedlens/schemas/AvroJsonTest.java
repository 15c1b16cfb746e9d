package io.schedlens.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.schedlens.avro.PodRef;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadRef;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class AvroJsonTest {

  static PodTimeline timeline() {
    PodTimeline t = new PodTimeline();
    t.setUid("u-1");
    t.setNamespace("ai-lab");
    t.setName("embedding-batch-x7k2p");
    t.setWorkload(new WorkloadRef("Job", "embedding-batch"));
    t.setArm("treatment");
    t.setRepeat("2");
    t.setCreatedAt(1_700_000_000_000L);
    t.setScheduledAt(1_700_000_012_345L);
    t.setPendingMs(12_345L);
    t.setPendingReasons(Map.of("Insufficient nvidia.com/gpu", 3));
    t.setPreemptor(new PodRef("u-9", "ai-lab", "chat-1", "interactive", 100000, false));
    t.setVictims(List.of());
    t.setWastedGpuSeconds(70.5);
    t.setOutcome("Preempted");
    t.setFinal$(true);
    t.setUpdatedAt(1_700_000_100_000L);
    return t;
  }

  @Test
  void shouldReadBackWhatItWrote() {
    PodTimeline t = timeline();
    assertThat(AvroJson.fromLine(AvroJson.toLine(t), PodTimeline.class)).isEqualTo(t);
  }

  @Test
  void shouldTakeDefaultsForAbsentFieldsAndSayWhichFieldIsWrong() {
    PodTimeline minimal =
        AvroJson.fromLine(
            "{\"uid\":\"u-2\",\"namespace\":\"ns\",\"name\":\"p\",\"outcome\":\"Running\",\"updatedAt\":5,\"extra\":1}",
            PodTimeline.class);
    assertThat(minimal.getUid()).isEqualTo("u-2");
    assertThat(minimal.getPendingMs()).isNull();
    assertThatThrownBy(
            () ->
                AvroJson.fromLine(
                    "{\"uid\":\"u-2\",\"namespace\":\"ns\",\"name\":\"p\",\"outcome\":\"Running\",\"updatedAt\":5,\"pendingMs\":\"soon\"}",
                    PodTimeline.class))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("pendingMs");
  }
}
