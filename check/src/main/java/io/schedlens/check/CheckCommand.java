package io.schedlens.check;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * {@code ./schedlens check PATH... [--external-priority-classes A,B]}: the pre-flight check. Exit 0
 * without errors (warnings are printed), 1 with errors, 2 on bad usage.
 */
public final class CheckCommand {

  private CheckCommand() {}

  public static int run(List<String> args, InputStream stdin, PrintStream out) throws IOException {
    List<String> paths = new ArrayList<>();
    Set<String> external = new HashSet<>();
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      if (a.equals("--help") || a.equals("-h")) {
        out.println(
            "usage: ./schedlens check PATH... [--external-priority-classes NAME,...]\n\n"
                + "  PATH  a manifest file, a folder (every .yaml, .yml, .json below it), or - for standard\n"
                + "        input, e.g. kubectl kustomize deploy/experiment/treatment | ./schedlens check -\n"
                + "  --external-priority-classes  PriorityClasses the cluster already has\n\n"
                + "Exit 0: no errors (warnings are printed); 1: errors; 2: bad usage.");
        return 0;
      } else if (a.equals("--external-priority-classes") && i + 1 < args.size()) {
        for (String n : args.get(++i).split(",")) {
          if (!n.isBlank()) {
            external.add(n.strip());
          }
        }
      } else if (a.startsWith("--")) {
        out.println("check: unknown option " + a + " (see --help)");
        return 2;
      } else {
        paths.add(a);
      }
    }
    if (paths.isEmpty()) {
      out.println(
          "check: give one or more manifest files or folders, or - for standard input (see --help)");
      return 2;
    }
    String input =
        paths.contains("-") ? new String(stdin.readAllBytes(), StandardCharsets.UTF_8) : "";
    var objects = Manifests.load(paths, input);
    List<Finding> findings = new GpuLint(external).check(objects);
    findings.forEach(f -> out.println(f));
    long errors = findings.stream().filter(f -> f.severity() == Finding.Severity.ERROR).count();
    out.printf(
        "%ncheck: %d objects, %d errors, %d warnings%n",
        objects.size(), errors, findings.size() - errors);
    return errors > 0 ? 1 : 0;
  }
}
