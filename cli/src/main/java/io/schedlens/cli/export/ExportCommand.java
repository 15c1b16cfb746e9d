package io.schedlens.cli.export;

import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.export.ExportConfig;
import io.schedlens.export.Exporter;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;

/** {@code ./schedlens export --to DIR|jdbc:URL}: see {@link Exporter}. */
public final class ExportCommand {

  private ExportCommand() {}

  public static int run(List<String> args, Map<String, String> env, PrintStream out)
      throws Exception {
    return run(args, env, out, out);
  }

  /** The summary to {@code out}, progress to {@code err}. */
  public static int run(
      List<String> args, Map<String, String> env, PrintStream out, PrintStream err)
      throws Exception {
    CommandLineSettings settings = CommandLineSettings.load(ExportConfig.DEF, args, env);
    if (settings.help()) {
      out.println(
          "usage: ./schedlens export --to DIR|jdbc:postgresql://HOST/DB [--format parquet|avro]"
              + " [--stop-at-end true]\n");
      out.print(CommandLineSettings.helpText(ExportConfig.DEF));
      return 0;
    }
    ExportConfig config = ExportConfig.from(settings);
    try (Exporter exporter = new Exporter(config, Exporter.sinkFor(config), out, err)) {
      Thread main = Thread.currentThread();
      // On SIGTERM: stop, and let the last batch commit before the JVM goes.
      Thread hook =
          new Thread(
              () -> {
                exporter.stop();
                try {
                  main.join(30_000);
                } catch (InterruptedException e) {
                  Thread.currentThread().interrupt();
                }
              });
      Runtime.getRuntime().addShutdownHook(hook);
      try {
        exporter.run();
      } finally {
        // Done (or failed): a later exit must not wait for this thread.
        try {
          Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException shuttingDown) {
          // the hook is running: it is what stopped us
        }
      }
    }
    return 0;
  }
}
