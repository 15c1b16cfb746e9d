package io.schedlens.whatif;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.schedlens.projections.records.Outgoing;
import io.schedlens.projections.records.Records;
import io.schedlens.schemas.Topics;
import io.schedlens.topology.TopologySettings;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The topology on its own thread: what fails there fails the prediction, with its cause. */
class TopologyRunTest {

  static final long NOW = 1_796_000_000_000L;

  @TempDir Path state;

  TopologyRun run() {
    Topics topics = Topics.defaults();
    return new TopologyRun(
        topics, new Records(topics, 64 * 1024), TopologySettings.defaults(), () -> NOW, state);
  }

  @Test
  void shouldFailTheRunWithTheCauseWhenTheTopologysThreadFails() {
    try (TopologyRun run = run()) {
      run.accept(
          new Outgoing(
              "not-an-input",
              "test",
              "k".getBytes(StandardCharsets.UTF_8),
              new byte[] {1},
              NOW,
              null));

      assertThatThrownBy(run::finish)
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("the topology failed on a predicted input")
          .cause()
          .hasMessageContaining("not an input topic of the streams app: not-an-input");
    }
  }

  @Test
  void shouldReduceNothingToNothing() {
    try (TopologyRun run = run()) {
      run.finish();
      assertThat(run.piped()).isZero();
      assertThat(run.timelines()).isEmpty();
    }
  }
}
