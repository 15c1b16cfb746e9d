package io.schedlens.check;

import io.schedlens.check.Finding.Severity;
import io.schedlens.check.cluster.ClusterReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * {@code ./schedlens check PATH... [options]}: the pre-flight check. Findings go to standard output
 * in the chosen format; messages about the run to standard error.
 */
public final class CheckCommand {

  /** No finding at or above --fail-on. */
  public static final int PASSED = 0;

  /** Findings at or above --fail-on. */
  public static final int FOUND = 1;

  /** Bad usage, or manifests that cannot be read. */
  public static final int USAGE = 2;

  /** --cluster given and the cluster cannot be read. */
  public static final int CLUSTER_UNREADABLE = 3;

  static final String HELP =
      """
      usage: ./schedlens check PATH... [options]

        PATH  a manifest file, a folder (every .yaml, .yml, .json below it), or - for standard
              input, e.g. kubectl kustomize deploy/experiment/treatment | ./schedlens check -

      options:
        --output text|json|sarif          findings as text (default), JSON, or SARIF 2.1.0 for
                                          code-scanning UIs (file paths relative to here)
        --fail-on error|warning           exit 1 on errors (default) or on warnings too
        --external-priority-classes A,B   PriorityClasses the cluster has that the files do not define
        --cluster                         also read the live cluster (read-only: nodes,
                                          PriorityClasses, PodDisruptionBudgets) for the cluster-* rules
        --kubeconfig FILE                 kubeconfig for --cluster (default: $KUBECONFIG,
                                          ~/.kube/config, or the in-cluster service account)
        --context NAME                    kubeconfig context for --cluster
        --gpu-resources LIST              GPU resource names, * as a suffix wildcard
                                          (default: %s)
        --gpu-node-labels LIST            node labels that select GPU nodes
                                          (default: %s)
        --gpu-taints LIST                 taint keys of GPU nodes (default: %s)
        --serving-label KEY=VALUE         marks a workload as serving where no Service in the files
                                          selects it (default: %s)

      Rules and examples: docs/operators/check-rules.md.
      Exit 0: no finding at or above --fail-on; 1: such findings; 2: bad usage or unreadable
      manifests; 3: --cluster given and the cluster could not be read.
      """
          .formatted(
              String.join(",", CheckSettings.DEFAULT_GPU_RESOURCES),
              String.join(",", CheckSettings.DEFAULT_GPU_NODE_LABELS),
              String.join(",", CheckSettings.DEFAULT_GPU_TAINTS),
              CheckSettings.DEFAULT_SERVING_LABEL);

  private CheckCommand() {}

  /** For callers that print everything to one stream. */
  public static int run(List<String> args, InputStream stdin, PrintStream out) throws IOException {
    return run(args, stdin, out, out);
  }

  /** Findings to {@code out}, messages about the run to {@code err}. */
  public static int run(List<String> args, InputStream stdin, PrintStream out, PrintStream err)
      throws IOException {
    try {
      Options o = Options.parse(args, out, err);
      List<Manifest> manifests = manifests(o.paths, stdin, err);
      Optional<ClusterFacts> facts =
          o.readCluster ? Optional.of(cluster(o, err)) : Optional.empty();
      CheckSettings settings =
          new CheckSettings(
              o.gpuResources, o.gpuNodeLabels, o.gpuTaints, o.external, o.servingLabel);
      List<Finding> findings = new PreflightCheck(settings).check(manifests, facts);
      print(o.output, findings, manifests.size(), out, err);
      boolean onWarnings = o.failOn.equals("warning");
      boolean fail = findings.stream().anyMatch(f -> f.severity() == Severity.ERROR || onWarnings);
      return fail ? FOUND : PASSED;
    } catch (Exit e) {
      return e.code;
    }
  }

  /** A run that ends before its findings, with its exit code (what it said is said). */
  private static final class Exit extends Exception {
    final int code;

    Exit(int code) {
      super(null, null, false, false);
      this.code = code;
    }
  }

  /** The command line, read and checked. */
  private static final class Options {
    final List<String> paths = new ArrayList<>();
    final Set<String> external = new LinkedHashSet<>();
    String output = "text";
    String failOn = "error";
    boolean readCluster = false;
    String kubeconfig = "";
    String context = null;
    List<String> gpuResources = CheckSettings.defaults().gpuResources();
    List<String> gpuNodeLabels = CheckSettings.defaults().gpuNodeLabels();
    List<String> gpuTaints = CheckSettings.defaults().gpuTaints();
    String servingLabel = CheckSettings.defaults().servingLabel();

    static Options parse(List<String> args, PrintStream out, PrintStream err) throws Exit {
      Options o = new Options();
      List<String> rest = new ArrayList<>();
      for (String a : args) {
        int eq = a.indexOf('=');
        if (a.startsWith("--") && eq > 0) {
          rest.add(a.substring(0, eq));
          rest.add(a.substring(eq + 1));
        } else {
          rest.add(a);
        }
      }
      for (int i = 0; i < rest.size(); i++) {
        String a = rest.get(i);
        switch (a) {
          case "--help", "-h" -> {
            out.print(HELP);
            throw new Exit(PASSED);
          }
          case "--cluster" -> o.readCluster = true;
          case "--external-priority-classes",
              "--output",
              "--fail-on",
              "--kubeconfig",
              "--context",
              "--gpu-resources",
              "--gpu-node-labels",
              "--gpu-taints",
              "--serving-label" -> {
            if (i + 1 >= rest.size()) {
              throw usage(err, a + " needs a value (see --help)");
            }
            o.set(a, rest.get(++i));
          }
          default -> {
            if (a.startsWith("--")) {
              throw usage(err, "unknown option " + a + " (see --help)");
            }
            o.paths.add(a);
          }
        }
      }
      o.check(err);
      return o;
    }

    private void set(String option, String v) {
      switch (option) {
        case "--external-priority-classes" -> external.addAll(list(v));
        case "--output" -> output = v;
        case "--fail-on" -> failOn = v;
        case "--kubeconfig" -> kubeconfig = v;
        case "--context" -> context = v;
        case "--gpu-resources" -> gpuResources = list(v);
        case "--gpu-node-labels" -> gpuNodeLabels = list(v);
        case "--gpu-taints" -> gpuTaints = list(v);
        default -> servingLabel = v;
      }
    }

    private void check(PrintStream err) throws Exit {
      if (!Set.of("text", "json", "sarif").contains(output)) {
        throw usage(err, "--output must be text, json or sarif, not '" + output + "'");
      }
      if (!Set.of("error", "warning").contains(failOn)) {
        throw usage(err, "--fail-on must be error or warning, not '" + failOn + "'");
      }
      if (servingLabel.isBlank() || servingLabel.startsWith("=")) {
        throw usage(err, "--serving-label must be KEY=VALUE (or KEY, meaning KEY=true)");
      }
      if (paths.isEmpty()) {
        throw usage(
            err,
            "give one or more manifest files or folders, or - for standard input (see --help)");
      }
    }
  }

  private static Exit usage(PrintStream err, String message) {
    err.println("check: " + message);
    return new Exit(USAGE);
  }

  private static List<Manifest> manifests(List<String> paths, InputStream stdin, PrintStream err)
      throws Exit {
    try {
      String input =
          paths.contains("-") ? new String(stdin.readAllBytes(), StandardCharsets.UTF_8) : "";
      return Manifests.load(paths, input);
    } catch (IOException | RuntimeException e) {
      throw usage(err, "cannot read the manifests: " + e.getMessage());
    }
  }

  /** The cluster's facts (--cluster), said on {@code err}. */
  private static ClusterFacts cluster(Options o, PrintStream err) throws Exit {
    try {
      ClusterFacts facts = ClusterReader.read(o.kubeconfig, o.context);
      err.println(
          "check: read "
              + facts.nodes().size()
              + " nodes, "
              + facts.priorityClasses().size()
              + " PriorityClasses and "
              + facts.disruptionBudgets().size()
              + " PodDisruptionBudgets from "
              + facts.source());
      if (facts.kueue()) {
        err.println(
            "check: Kueue is served there: "
                + facts.localQueues().size()
                + " LocalQueues, "
                + facts.workloadPriorityClasses().size()
                + " WorkloadPriorityClasses");
      }
      return facts;
    } catch (ClusterReader.Unreachable e) {
      err.println("check: " + e.getMessage());
      err.println("(check --kubeconfig/--context, or run without --cluster)");
      throw new Exit(CLUSTER_UNREADABLE);
    } catch (IOException | RuntimeException e) {
      err.println(
          "check: cannot build a Kubernetes client for --cluster"
              + (o.kubeconfig.isEmpty() ? "" : " from " + o.kubeconfig)
              + ": "
              + e.getMessage());
      throw new Exit(CLUSTER_UNREADABLE);
    }
  }

  private static void print(
      String output, List<Finding> findings, int manifests, PrintStream out, PrintStream err)
      throws IOException {
    switch (output) {
      case "json" -> {
        out.print(Reports.json(findings, manifests));
        err.println(Reports.summary(findings, manifests).strip());
      }
      case "sarif" -> {
        out.print(Reports.sarif(findings));
        err.println(Reports.summary(findings, manifests).strip());
      }
      default -> out.print(Reports.text(findings, manifests));
    }
  }

  private static List<String> list(String v) {
    return Arrays.stream(v.split(",")).map(String::strip).filter(s -> !s.isEmpty()).toList();
  }
}
