package io.schedlens.runs.demo;

import io.schedlens.common.config.AppConfig;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.common.config.DurationSetting;
import io.schedlens.runs.PagesServer;
import io.schedlens.runs.RunExport;
import io.schedlens.runs.ScenarioSetting;
import java.time.Duration;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.Importance;
import org.apache.kafka.common.config.ConfigDef.Range;
import org.apache.kafka.common.config.ConfigDef.Type;

/** Settings of {@code ./schedlens demo}. */
public final class DemoConfig extends AppConfig {

  public static final String SCENARIO = "scenario";
  public static final String OUT = "out";
  public static final String SPEED = "speed";
  public static final String SEED = "seed";
  public static final String KEEP_RUNNING = "keep.running";
  public static final String STREAMS_PORT = "streams.http.port";
  public static final String COLLECTOR_PORT = "collector.http.port";
  public static final String PARTITIONS = "partitions";
  public static final String FINALS_TIMEOUT = "finals.timeout";
  public static final String STATE_DIR = "state.dir";
  public static final String RECORD = "record";
  public static final String ALLOW_DEAD_LETTERS = "allow.dead.letters";

  public static final ConfigDef DEF =
      RunExport.define(
          PagesServer.define(
              new ConfigDef()
                  .define(SCENARIO, Type.STRING, "day08", Importance.HIGH, ScenarioSetting.doc())
                  .define(
                      OUT,
                      Type.STRING,
                      "demo-out",
                      Importance.HIGH,
                      "Directory for timelines.jsonl, report.md, report.json and the simulator's ground truth.")
                  .define(
                      SPEED,
                      Type.DOUBLE,
                      200.0,
                      Range.between(1.0, 2000.0),
                      Importance.MEDIUM,
                      "Virtual seconds per wall second. day08 spans 5 virtual hours: about 90 s at 200.")
                  .define(
                      SEED,
                      Type.LONG,
                      -1L,
                      Importance.LOW,
                      "Random seed of the simulation; -1: the scenario's own.")
                  .define(
                      KEEP_RUNNING,
                      Type.BOOLEAN,
                      false,
                      Importance.MEDIUM,
                      "Keep the broker, the collector, the streams app and their endpoints up after the report, until Ctrl-C.")
                  .define(
                      STREAMS_PORT,
                      Type.INT,
                      9471,
                      Range.between(0, 65535),
                      Importance.MEDIUM,
                      "Port of the streams app's /metrics and /api (0: any free port).")
                  .define(
                      COLLECTOR_PORT,
                      Type.INT,
                      9470,
                      Range.between(0, 65535),
                      Importance.MEDIUM,
                      "Port of the collector's /metrics and request-log intake (0: any free port).")
                  .define(
                      PARTITIONS,
                      Type.INT,
                      2,
                      Range.between(1, 64),
                      Importance.LOW,
                      "Partitions of every topic on the embedded broker.")
                  .define(
                      FINALS_TIMEOUT,
                      Type.STRING,
                      "120s",
                      DurationSetting.atLeast(Duration.ofSeconds(1)),
                      Importance.LOW,
                      "How long to wait, after the simulation, for every pod's final timeline.")
                  .define(
                      STATE_DIR,
                      Type.STRING,
                      "",
                      Importance.LOW,
                      "State directory of the streams app. Empty: a temporary directory, removed at the end.")
                  .define(
                      RECORD,
                      Type.STRING,
                      "",
                      Importance.LOW,
                      "Directory to record the simulated cluster in while the demo runs (as simulate --record does), for ./schedlens replay of the same cluster. Empty: no recording.")
                  .define(
                      ALLOW_DEAD_LETTERS,
                      Type.BOOLEAN,
                      false,
                      Importance.LOW,
                      "false: when the streams app dead-lettered any input, the demo still writes everything (report.md says what is missing at its top) but exits with code 4. true: partial results are acceptable, exit 0.")));

  public DemoConfig(Map<String, Object> values, Map<String, Object> kafka) {
    super(DEF, values, kafka);
  }

  public static DemoConfig from(CommandLineSettings s) {
    DemoConfig c = new DemoConfig(s.values(), s.kafka());
    RunExport.validate(c.getString(RunExport.EXPORT));
    c.getDuration(FINALS_TIMEOUT);
    ScenarioSetting.load(c.getString(SCENARIO)); // before anything starts
    return c;
  }
}
