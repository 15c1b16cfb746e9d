package io.schedlens.cli.replay;

import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.report.InputGaps;
import io.schedlens.runs.PagesServer;
import io.schedlens.runs.replay.Replay;
import io.schedlens.runs.replay.ReplayConfig;
import java.io.PrintStream;
import java.util.List;
import java.util.Map;

/** {@code ./schedlens replay}: see {@link Replay}. */
public final class ReplayCommand {

  private ReplayCommand() {}

  public static int run(List<String> args, Map<String, String> env, PrintStream out)
      throws Exception {
    return run(args, env, out, out);
  }

  /** Results to {@code out}, progress to {@code err}. */
  public static int run(
      List<String> args, Map<String, String> env, PrintStream out, PrintStream err)
      throws Exception {
    CommandLineSettings settings = CommandLineSettings.load(ReplayConfig.DEF, args, env, false);
    if (settings.help()) {
      out.println(
          "usage: ./schedlens replay --pods FILE --events FILE [--objects FILE] [--dcgm FILE]"
              + " [--requests FILE]"
              + " [--slo NAME=MILLIS]... [--config FILE] --out DIR [--export DIR]\n");
      out.print(CommandLineSettings.helpText(ReplayConfig.DEF, false));
      return 0;
    }
    ReplayConfig config = ReplayConfig.from(settings);
    Replay.Result result = new Replay(config, out, err).run();
    int exit = result.timelines().isEmpty() ? 1 : 0;
    if (exit == 0
        && !result.gaps().isEmpty()
        && !config.getBoolean(ReplayConfig.ALLOW_DEAD_LETTERS)) {
      err.println(result.gaps().oneLine("replay"));
      exit = InputGaps.EXIT_CODE;
    }
    PagesServer.afterRun(config, result.out(), err);
    return exit;
  }
}
