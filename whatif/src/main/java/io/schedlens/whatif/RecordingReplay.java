package io.schedlens.whatif;

import io.schedlens.avro.PodObservation;
import io.schedlens.avro.PodTimeline;
import io.schedlens.report.InputGaps;
import java.nio.file.Path;
import java.util.Collection;
import java.util.List;

/**
 * A recording replayed into observed timelines, as {@code ./schedlens replay} replays it: the
 * what-if asks for it, the runs module does it (the collector's projections and the streams app on
 * an embedded broker), so that this module depends on no application.
 */
@FunctionalInterface
public interface RecordingReplay {

  /**
   * Replays the recording into {@code dir} (timelines.jsonl, workloads.jsonl, report.md).
   *
   * @param checkpointed receives the recorded Pods that carry the checkpoint annotation (no
   *     timeline keeps their checkpoints)
   */
  Replayed replay(Path dir, List<PodObservation> checkpointed) throws Exception;

  /** The timelines the replay wrote and what they do not rest on. */
  record Replayed(Collection<PodTimeline> timelines, InputGaps gaps) {}
}
