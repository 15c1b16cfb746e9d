package io.schedlens.streams;

import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.schemas.AvroLimits;
import java.util.List;
import java.util.Map;
import org.apache.kafka.streams.KafkaStreams;

/** {@code ./schedlens streams}: runs the streams app until SIGTERM/SIGINT. */
public final class StreamsMain {

  private StreamsMain() {}

  public static int run(List<String> args, Map<String, String> env) throws InterruptedException {
    CommandLineSettings settings = CommandLineSettings.load(StreamsAppConfig.DEF, args, env);
    if (settings.help()) {
      System.out.println("usage: ./schedlens streams [--setting value ...]\n");
      System.out.print(CommandLineSettings.helpText(StreamsAppConfig.DEF));
      return 0;
    }
    StreamsApp app = StreamsApp.start(StreamsAppConfig.from(settings));
    Runtime.getRuntime().addShutdownHook(new Thread(app::close, "streams-shutdown"));
    System.out.println(
        "streams app running; /metrics and /api at " + app.baseUrl() + " (Ctrl-C stops)");
    app.awaitTermination();
    return app.streams().state() == KafkaStreams.State.ERROR ? 1 : 0;
  }

  /** Entry point for a separate JVM (used by the crash-restart test). */
  public static void main(String[] args) throws Exception {
    // Before any record is decoded: Avro reads its limits once.
    AvroLimits.install();
    System.exit(run(List.of(args), System.getenv()));
  }
}
