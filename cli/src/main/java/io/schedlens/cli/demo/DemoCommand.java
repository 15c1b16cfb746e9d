package io.schedlens.cli.demo;

import io.schedlens.cli.common.PagesServer;
import io.schedlens.common.config.CommandLineSettings;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;

/** {@code ./schedlens demo}: see {@link Demo}. */
public final class DemoCommand {

  private DemoCommand() {}

  public static int run(List<String> args, Map<String, String> env, PrintStream out)
      throws Exception {
    return run(args, env, out, out);
  }

  /** Results to {@code out}, progress to {@code err}. */
  public static int run(
      List<String> args, Map<String, String> env, PrintStream out, PrintStream err)
      throws Exception {
    CommandLineSettings settings = CommandLineSettings.load(DemoConfig.DEF, args, env);
    if (settings.help()) {
      out.println(
          "usage: ./schedlens demo [--out DIR] [--scenario day08|pool|FILE] [--keep-running true]\n");
      out.print(CommandLineSettings.helpText(DemoConfig.DEF));
      return 0;
    }
    DemoConfig config = DemoConfig.from(settings);
    Demo.Result result = new Demo(config, out, err).run();
    int exit = result.missing().isEmpty() ? 0 : 1;
    if (config.getBoolean(PagesServer.SERVE)) {
      PagesServer.serveUntilInterrupted(result.out(), config.getInt(PagesServer.SERVE_PORT), err);
    } else {
      err.printf(
          "timeline pages of this run: add --serve true (http://127.0.0.1:%d/ after the run)%n",
          config.getInt(PagesServer.SERVE_PORT));
    }
    return exit;
  }
}
