package io.schedlens.cli.demo;

import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.report.InputGaps;
import io.schedlens.runs.PagesServer;
import io.schedlens.runs.ScenarioSetting;
import io.schedlens.runs.demo.Demo;
import io.schedlens.runs.demo.DemoConfig;
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
    CommandLineSettings settings = CommandLineSettings.load(DemoConfig.DEF, args, env, false);
    if (settings.help()) {
      out.println(
          "usage: ./schedlens demo [--out DIR] [--scenario "
              + ScenarioSetting.choices()
              + "] [--export DIR] [--keep-running]\n");
      out.print(CommandLineSettings.helpText(DemoConfig.DEF, false));
      return 0;
    }
    DemoConfig config = DemoConfig.from(settings);
    Demo.Result result = new Demo(config, out, err).run();
    int exit = result.missing().isEmpty() ? 0 : 1;
    if (exit == 0
        && !result.gaps().isEmpty()
        && !config.getBoolean(DemoConfig.ALLOW_DEAD_LETTERS)) {
      err.println(result.gaps().oneLine("demo"));
      exit = InputGaps.EXIT_CODE;
    }
    PagesServer.afterRun(config, result.out(), err);
    return exit;
  }
}
