package io.schedlens.collector;

import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.schemas.AvroLimits;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/** {@code ./schedlens collector}: runs the collector until SIGTERM/SIGINT. */
public final class CollectorMain {

  private CollectorMain() {}

  /** The collector as a process of its own (the launcher calls {@link #run}). */
  public static void main(String[] args) throws InterruptedException {
    // Before any record is decoded: Avro reads its limits once.
    AvroLimits.install();
    System.exit(run(List.of(args), System.getenv()));
  }

  /** Runs with the given arguments and environment; returns the exit code. */
  public static int run(List<String> args, Map<String, String> env) throws InterruptedException {
    CommandLineSettings settings = CommandLineSettings.load(CollectorConfig.DEF, args, env);
    if (settings.help()) {
      System.out.println("usage: ./schedlens collector [--setting value ...]\n");
      System.out.print(CommandLineSettings.helpText(CollectorConfig.DEF));
      return 0;
    }
    CollectorConfig config = CollectorConfig.from(settings);
    Collector collector = Collector.start(config, null, Clock.systemUTC());
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime()
        .addShutdownHook(
            new Thread(
                () -> {
                  collector.flush(Duration.ofSeconds(10));
                  collector.close();
                  stopped.countDown();
                },
                "collector-shutdown"));
    System.out.println(
        "collector running; metrics and intake at " + collector.baseUrl() + " (Ctrl-C stops)");
    stopped.await();
    return 0;
  }
}
