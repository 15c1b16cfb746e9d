package io.schedlens.cli.report;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadRef;
import io.schedlens.report.InputGaps;
import io.schedlens.report.ReportWriter;
import io.schedlens.schemas.AvroJson;
import java.awt.image.BufferedImage;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import javax.imageio.ImageIO;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The report of a known set of timelines: the numbers, the verdict and the charts. */
class ReportCommandTest {

  @TempDir Path dir;

  static PodTimeline pod(
      String experiment,
      String arm,
      int repeat,
      String app,
      String kind,
      long pendingMs,
      double wasted) {
    PodTimeline t = new PodTimeline();
    t.setUid(experiment + "-" + arm + "-" + repeat + "-" + app);
    t.setNamespace("ai-lab");
    t.setName(app + "-" + repeat);
    t.setWorkload(new WorkloadRef(kind, app));
    t.setApplication(app);
    t.setExperiment(experiment);
    t.setArm(arm);
    t.setRepeat(Integer.toString(repeat));
    t.setPriorityClass(arm.equals("control") ? null : app.equals("chat") ? "interactive" : "batch");
    t.setCreatedAt(1_000_000L * repeat);
    t.setPendingMs(pendingMs);
    t.setTimeToFirstOkMs(kind.equals("Job") ? null : pendingMs + 60_000);
    t.setWastedGpuSeconds(wasted > 0 ? wasted : null);
    t.setPreemptedAt(wasted > 0 ? 2_000_000L * repeat : null);
    t.setOutcome(wasted > 0 ? "Preempted" : "Succeeded");
    t.setFinal$(true);
    t.setUpdatedAt(3_000_000L * repeat);
    return t;
  }

  @Test
  void shouldWriteTheReportVerdictAndChartsOfKnownTimelines() throws Exception {
    List<PodTimeline> timelines = new ArrayList<>();
    for (int r = 1; r <= 3; r++) {
      timelines.add(pod("day08", "control", r, "chat", "Deployment", 150_000 + r * 10_000, 0));
      timelines.add(pod("day08", "treatment", r, "chat", "Deployment", 2_000 + r * 500, 0));
      timelines.add(pod("day08", "control", r, "asr", "Job", 30_000, 0));
      timelines.add(pod("day08", "treatment", r, "asr", "Job", 600_000, 1800));
    }
    timelines.add(pod("other", "a", 1, "chat", "Deployment", 1_000, 0));
    Path in = dir.resolve("in");
    Files.createDirectories(in);
    Files.write(in.resolve("timelines.jsonl"), timelines.stream().map(AvroJson::toLine).toList());
    Path out = dir.resolve("out");
    ByteArrayOutputStream console = new ByteArrayOutputStream();

    int exit =
        ReportCommand.run(
            List.of("--from", in.toString(), "--out", out.toString(), "--experiment", "day08"),
            Map.of(),
            new PrintStream(console, true, StandardCharsets.UTF_8));

    assertThat(exit).isZero();
    String md = Files.readString(out.resolve("report.md"));
    assertThat(md)
        .contains("# Experiment day08")
        .contains("## Verdict: treatment against control")
        .contains(
            "chat: pending p95 3 s in treatment against 2 min 50 s in control — better, larger than the spread between repeats.")
        .contains(
            "asr: wasted GPU time 0.50 GPU-hours per repeat in treatment against 0.00 in control")
        .contains("![Pending p95 by workload and arm](" + ReportWriter.PENDING_PNG + ")");
    assertThat(Files.readString(out.resolve("report.json")))
        .contains("\"verdicts\"")
        .doesNotContain("other");
    for (String png : List.of(ReportWriter.PENDING_PNG, ReportWriter.WASTED_PNG)) {
      BufferedImage img = ImageIO.read(out.resolve(png).toFile());
      assertThat(img).as(png).isNotNull();
      assertThat(img.getWidth()).isEqualTo(960);
    }
    assertThat(console.toString(StandardCharsets.UTF_8))
        .contains("verdict: treatment against control");
  }

  @Test
  void shouldWriteOneReportPerExperimentAndRefuseWhatIsNotATimeline() throws Exception {
    Path in = dir.resolve("in.jsonl");
    Files.write(
        in,
        List.of(
            AvroJson.toLine(pod("day08", "control", 1, "chat", "Deployment", 1000, 0)),
            AvroJson.toLine(pod("day09", "control", 1, "chat", "Deployment", 1000, 0))));
    Path out = dir.resolve("out");
    int exit =
        ReportCommand.run(
            List.of("--from", in.toString(), "--out", out.toString()),
            Map.of(),
            new PrintStream(new ByteArrayOutputStream()));
    assertThat(exit).isZero();
    assertThat(out.resolve("day08/report.md")).exists();
    assertThat(out.resolve("day09/report.md")).exists();

    Files.writeString(in, "{\"uid\": 5}\n");
    assertThatThrownBy(
            () ->
                ReportCommand.run(
                    List.of("--from", in.toString()),
                    Map.of(),
                    new PrintStream(new ByteArrayOutputStream())))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("line 1 is not a pod timeline");
  }

  @Test
  void shouldSayThatASimulateOutputHoldsNoPipelineTimelines() throws Exception {
    Path simulated = dir.resolve("simulate-out");
    Files.createDirectories(simulated);
    Files.writeString(simulated.resolve("simulator-truth.jsonl"), "{}\n");
    assertThatThrownBy(
            () ->
                ReportCommand.run(
                    List.of("--from", simulated.toString()),
                    Map.of(),
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("is the --out of simulate")
        .hasMessageContaining("report.md");
  }

  @Test
  void shouldSayAtTheTopThatTheInputsWereIncompleteAndExitFourUnlessAccepted() throws Exception {
    Path in = dir.resolve("replay-out");
    Files.createDirectories(in);
    Files.write(
        in.resolve("timelines.jsonl"),
        List.of(AvroJson.toLine(pod("day08", "control", 1, "chat", "Deployment", 1_000, 0))));
    // as a replay writes it: unusable recorded input and the streams app's dead letters
    Files.writeString(
        in.resolve(InputGaps.REPLAY_SUMMARY),
        "{\"unusable\": {\"not-a-kubernetes-object\": 2}, \"deadLetters\": {\"unknown-pod\": 40},"
            + " \"incomplete\": true, \"deadLetteredPods\": [\"ai-lab/chat-7\"]}");
    ByteArrayOutputStream console = new ByteArrayOutputStream();
    PrintStream print = new PrintStream(console, true, StandardCharsets.UTF_8);

    int exit =
        ReportCommand.run(
            List.of("--from", in.toString(), "--out", dir.resolve("a").toString()),
            Map.of(),
            print,
            print);

    assertThat(exit).isEqualTo(InputGaps.EXIT_CODE);
    assertThat(console.toString(StandardCharsets.UTF_8))
        .contains("report: the results rest on incomplete inputs", "--allow-dead-letters");
    List<String> report = Files.readAllLines(dir.resolve("a").resolve("report.md"));
    assertThat(report.get(2)).startsWith("> **Incomplete inputs: 42 inputs were not used");
    assertThat(String.join("\n", report))
        .contains("40 input(s) dead-lettered by the streams app: `unknown-pod`")
        .contains("record the Pods over the whole span")
        .contains("`ai-lab/chat-7`");

    int accepted =
        ReportCommand.run(
            List.of(
                "--from",
                in.toString(),
                "--out",
                dir.resolve("b").toString(),
                "--allow-dead-letters"),
            Map.of(),
            print,
            print);
    assertThat(accepted).isZero();
    assertThat(Files.readString(dir.resolve("b").resolve("report.md")))
        .contains("Incomplete inputs");
  }
}
