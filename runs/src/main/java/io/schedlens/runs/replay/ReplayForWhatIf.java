package io.schedlens.runs.replay;

import io.schedlens.avro.PodObservation;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.projections.records.Outgoing;
import io.schedlens.schemas.Topic;
import io.schedlens.schemas.Topics;
import io.schedlens.timeline.TimelineSettings;
import io.schedlens.whatif.RecordingReplay;
import java.io.PrintStream;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * A what-if's recording replayed as {@code ./schedlens replay} replays it, its report to the
 * progress stream, so that the standard output holds the what-if's answer alone.
 */
public final class ReplayForWhatIf implements RecordingReplay {

  private final List<String> recordingArgs;
  private final Map<String, String> env;
  private final PrintStream progress;

  /**
   * @param recordingArgs the replay's flags naming the recording ({@code --pods FILE}, {@code
   *     --events FILE}, {@code --dcgm}, {@code --requests}, {@code --slo})
   */
  public ReplayForWhatIf(
      List<String> recordingArgs, Map<String, String> env, PrintStream progress) {
    this.recordingArgs = List.copyOf(recordingArgs);
    this.env = env;
    this.progress = progress;
  }

  @Override
  public Replayed replay(Path dir, List<PodObservation> checkpointed) throws Exception {
    List<String> args = new ArrayList<>(recordingArgs);
    args.addAll(List.of("--" + CommandLineSettings.flagName(ReplayConfig.OUT), dir.toString()));
    ReplayConfig config =
        ReplayConfig.from(CommandLineSettings.load(ReplayConfig.DEF, args, env, false));
    Topic<String, PodObservation> pods = Topics.defaults().pods;
    String checkpoint = TimelineSettings.defaults().checkpointAnnotation();
    Replay.Result result =
        new Replay(config, progress, progress)
            .onInputsRead(
                inputs -> {
                  for (Outgoing o : inputs) {
                    if (o.topic().equals(pods.name()) && o.value() != null) {
                      PodObservation p =
                          pods.valueSerde().deserializer().deserialize(o.topic(), o.value());
                      if (p.getAnnotations().containsKey(checkpoint)) {
                        checkpointed.add(p); // only what RecordedCheckpoints reads is kept
                      }
                    }
                  }
                })
            .run();
    return new Replayed(result.timelines().values(), result.gaps());
  }
}
