package io.schedlens.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.base.Durations;
import io.schedlens.check.CheckCommand;
import io.schedlens.cli.demo.DemoCommand;
import io.schedlens.cli.replay.ReplayCommand;
import io.schedlens.cli.report.ReportCommand;
import io.schedlens.cli.simulate.SimulateCommand;
import io.schedlens.collector.CollectorConfig;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.export.ExportConfig;
import io.schedlens.runs.demo.DemoConfig;
import io.schedlens.runs.replay.ReplayConfig;
import io.schedlens.simulator.scenario.ScenarioLoader;
import io.schedlens.streams.StreamsAppConfig;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.stream.Stream;
import org.apache.kafka.common.config.ConfigDef;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Bad input to every command exits 2 with one line that names the setting, before the command
 * starts anything (a broker, a watch, a simulation): every setting of every command with a bad
 * value of its kind (a number, a boolean, a duration, a choice, a range), plus the values people
 * actually mistype (a scenario that does not exist, a cloud URL for a local directory).
 */
class BadSettingsTest {

  private static final Path TMP = tempDir();

  /** A command, its settings and what it needs besides the bad value to get that far. */
  record Command(String name, ConfigDef def, List<String> needs) {}

  static final List<Command> COMMANDS =
      List.of(
          new Command("demo", DemoConfig.DEF, List.of()),
          new Command("collector", CollectorConfig.DEF, List.of()),
          new Command("streams", StreamsAppConfig.DEF, List.of()),
          new Command("simulate", SimulateCommand.DEF, List.of()),
          new Command(
              "replay", ReplayConfig.DEF, List.of("--pods", TMP.resolve("pods.json").toString())),
          new Command("export", ExportConfig.DEF, List.of("--to", TMP.resolve("w").toString())),
          new Command("report", ReportCommand.DEF, List.of("--from", TMP.toString())));

  /** A case: the command line and what its one line must name. */
  record Case(String label, List<String> args, String names) {}

  private static final ExecutorService RUNNER =
      Executors.newSingleThreadExecutor(
          r -> {
            Thread t = new Thread(r, "bad-settings");
            t.setDaemon(true);
            return t;
          });

  @AfterAll
  static void stop() {
    RUNNER.shutdownNow();
  }

  @TestFactory
  Stream<DynamicTest> shouldRefuseABadValueOfEverySettingWithExitTwoAndOneLine() {
    List<Case> cases = new ArrayList<>();
    for (Command c : COMMANDS) {
      for (ConfigDef.ConfigKey key : c.def().configKeys().values()) {
        String flag = "--" + key.name.replace('.', '-');
        for (String bad : badValues(key)) {
          List<String> args = new ArrayList<>(List.of(c.name()));
          args.addAll(c.needs());
          args.addAll(List.of(flag, bad));
          cases.add(new Case(c.name() + " " + flag + " " + bad, args, key.name));
        }
      }
      List<String> unknown = new ArrayList<>(List.of(c.name(), "--no-such-setting", "1"));
      cases.add(new Case(c.name() + " --no-such-setting", unknown, "--no-such-setting"));
    }
    cases.add(
        new Case(
            "simulate --scenario dayO8",
            List.of("simulate", "--scenario", "dayO8"),
            "--scenario: scenario 'dayO8' is neither a bundled scenario"));
    cases.add(
        new Case(
            "simulate --scenario missing.yaml",
            List.of("simulate", "--scenario", TMP.resolve("missing.yaml").toString()),
            "--scenario"));
    cases.add(
        new Case("demo --scenario dayO8", List.of("demo", "--scenario", "dayO8"), "--scenario"));
    cases.add(
        new Case(
            "simulate --kafka (no Kafka client)",
            List.of("simulate", "--kafka", "bootstrap.servers=x:9092"),
            "uses no Kafka cluster of yours"));
    cases.add(
        new Case(
            "export --to s3://",
            List.of("export", "--to", "s3://bucket/schedlens"),
            "s3:// is not a destination"));
    cases.add(
        new Case(
            "replay --export gs://",
            List.of("replay", "--pods", "p.json", "--export", "gs://bucket/x"),
            "--export gs://bucket/x: gs:// is not a destination"));
    cases.add(
        new Case("demo --export s3://", List.of("demo", "--export", "s3://b/x"), "s3:// is not"));
    cases.add(new Case("check --output xml", List.of("check", ".", "--output", "xml"), "--output"));
    cases.add(
        new Case(
            "check --fail-on never", List.of("check", ".", "--fail-on", "never"), "--fail-on"));
    cases.add(new Case("probe without URLs", List.of("probe"), "--collector-url"));
    cases.add(
        new Case(
            "probe --streams-url ftp://",
            List.of(
                "probe",
                "--collector-url",
                "http://schedlens-collector:9470",
                "--streams-url",
                "ftp://schedlens-streams:9471"),
            "streams.url ftp://schedlens-streams:9471"));
    cases.add(
        new Case(
            "probe without the API token",
            List.of(
                "probe",
                "--collector-url",
                "http://schedlens-collector:9470",
                "--streams-url",
                "http://schedlens-streams:9471"),
            "SCHEDLENS_API_TOKEN_FILE"));
    return cases.stream().map(c -> DynamicTest.dynamicTest(c.label(), () -> refused(c)));
  }

  private static void refused(Case c) throws Exception {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    PrintStream o = new PrintStream(out, true, StandardCharsets.UTF_8);
    PrintStream e = new PrintStream(err, true, StandardCharsets.UTF_8);
    // check writes its own usage errors (to the streams given here); the others throw to Main
    Future<Integer> run =
        RUNNER.submit(
            () ->
                c.args().get(0).equals("check")
                    ? CheckCommand.run(
                        c.args().subList(1, c.args().size()),
                        new ByteArrayInputStream(new byte[0]),
                        o,
                        e)
                    : Main.run(c.args(), o, e));
    int exit;
    try {
      exit = run.get(30, TimeUnit.SECONDS);
    } catch (TimeoutException t) {
      run.cancel(true);
      throw new AssertionError(c.label() + ": accepted, and the command started running", t);
    }
    String said = err.toString(StandardCharsets.UTF_8);
    assertThat(exit).as(c.label() + " said: " + said + out).isEqualTo(Main.USAGE);
    assertThat(said.lines().toList()).as(c.label() + ": one line").hasSize(1);
    assertThat(said).as(c.label()).contains(c.names()).doesNotContain("\tat ");
  }

  /** Bad values of a setting's kind; none for free text. */
  static List<String> badValues(ConfigDef.ConfigKey key) {
    List<String> bad = new ArrayList<>();
    switch (key.type) {
      case INT, LONG, SHORT -> bad.add("many");
      case DOUBLE -> bad.add("fast");
      case BOOLEAN -> bad.add("maybe");
      case STRING -> {
        if (key.validator instanceof ConfigDef.ValidString) {
          bad.add("nonsense");
        } else if (isDuration(key.defaultValue)) {
          bad.add("soon");
        }
      }
      default -> {}
    }
    if (key.validator instanceof ConfigDef.Range) {
      bad.add("-5");
    }
    return bad;
  }

  private static boolean isDuration(Object defaultValue) {
    if (!(defaultValue instanceof String s) || s.isBlank()) {
      return false;
    }
    return Optional.of(s).map(BadSettingsTest::parses).orElse(false);
  }

  private static boolean parses(String s) {
    try {
      Durations.parse(s);
      return true;
    } catch (RuntimeException e) {
      return false;
    }
  }

  private static Path tempDir() {
    try {
      Path dir = Files.createTempDirectory("bad-settings-");
      Files.writeString(dir.resolve("pods.json"), "");
      return dir;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  @Test
  void shouldListOnlyTheSettingsACommandUsesAndEveryBundledScenarioInItsHelp() throws Exception {
    for (String command : List.of("simulate", "demo", "replay")) {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      PrintStream print = new PrintStream(out, true, StandardCharsets.UTF_8);
      List<String> help = List.of("--help");
      int exit =
          switch (command) {
            case "simulate" -> SimulateCommand.run(help, Map.of(), print);
            case "demo" -> DemoCommand.run(help, Map.of(), print);
            default -> ReplayCommand.run(help, Map.of(), print);
          };
      String text = out.toString(StandardCharsets.UTF_8);
      assertThat(exit).isZero();
      assertThat(text).as(command + " --help").doesNotContain("--kafka", "kafka.");
      if (!command.equals("replay")) {
        assertThat(text.lines().findFirst().orElseThrow())
            .as(command + "'s usage line")
            .contains(String.join("|", ScenarioLoader.BUNDLED) + "|FILE");
      }
    }
    assertThat(CommandLineSettings.helpText(ExportConfig.DEF)).contains("--kafka NAME=VALUE");
  }
}
