package io.schedlens.whatif;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.report.ReportWriter;
import io.schedlens.report.TimelinesFile;
import io.schedlens.report.WorkloadsFile;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * A what-if's files: report.md and report.json with the verdict as their introduction, the charts,
 * whatif.json, and timelines.jsonl and workloads.jsonl with the observed and predicted arms, for
 * the pages.
 */
final class WhatIfFiles {

  private WhatIfFiles() {}

  static void write(
      WhatIfRun.Answer answer,
      List<ObservedRun> runs,
      List<WhatIf.Prediction> predictions,
      List<PodTimeline> compared,
      WhatIfAnswer.Unserved unserved)
      throws IOException {
    Path dir = answer.dir();
    Files.createDirectories(dir);
    ReportWriter.writeAll(dir, answer.report(), intro(answer));
    List<PodTimeline> timelines = new ArrayList<>();
    runs.forEach(r -> timelines.addAll(r.pods()));
    timelines.addAll(compared);
    Set<WorkloadTimeline> seen = new LinkedHashSet<>();
    runs.forEach(r -> seen.addAll(r.workloads()));
    List<WorkloadTimeline> workloads = new ArrayList<>(seen);
    for (WhatIf.Prediction p : predictions) {
      timelines.addAll(p.timelines().values());
      workloads.addAll(p.workloads());
    }
    TimelinesFile.write(dir, timelines);
    WorkloadsFile.write(dir, workloads);
    Files.writeString(dir.resolve("whatif.json"), json(answer, predictions, unserved));
  }

  private static String intro(WhatIfRun.Answer answer) {
    StringBuilder intro = new StringBuilder();
    intro
        .append("What-if of policy `")
        .append(answer.policy().name())
        .append("` on the observed runs (`./schedlens whatif`): arm `observed` is what happened,")
        .append(" arm `predicted` what the simulator's scheduler and controllers, fed the same")
        .append(
            " arrivals and reduced by the pipeline's own topology, predict under the policy.\n\n");
    answer.verdict().forEach(v -> intro.append("- ").append(v).append('\n'));
    if (!answer.assumed().isEmpty()) {
      intro.append("\nAssumed (not in the timelines):\n\n");
      answer.assumed().forEach(a -> intro.append("- ").append(a).append('\n'));
    }
    if (!answer.skipped().isEmpty()) {
      intro.append("\nNot replayed:\n\n");
      answer.skipped().forEach(s -> intro.append("- ").append(s).append('\n'));
    }
    return intro.toString();
  }

  private static String json(
      WhatIfRun.Answer answer, List<WhatIf.Prediction> predictions, WhatIfAnswer.Unserved unserved)
      throws IOException {
    Policy policy = answer.policy();
    ObjectMapper json = new ObjectMapper();
    ObjectNode root = json.createObjectNode();
    root.put("policy", policy.name());
    root.put("seed", policy.seed());
    root.put("seeds", answer.seeds());
    root.put("unservedRequests", policy.unserved().name().toLowerCase(Locale.ROOT));
    answer.verdict().forEach(root.putArray("verdict")::add);
    ArrayNode a = root.putArray("assumptions");
    answer.assumed().forEach(a::add);
    ArrayNode s = root.putArray("notReplayed");
    answer.skipped().forEach(s::add);
    root.set("unservedObserved", json.valueToTree(unserved.observed()));
    root.set("unservedPredicted", json.valueToTree(unserved.predicted()));
    ArrayNode rs = root.putArray("runs");
    for (WhatIf.Prediction p : predictions) {
      ObjectNode r = rs.addObject();
      r.put("arm", p.observed().arm());
      r.put("repeat", p.observed().repeat());
      r.put("start", p.observed().start());
      r.put("end", p.observed().end());
      r.put("observedPods", p.observed().pods().size());
      r.put("predictedPods", p.timelines().size());
      r.put("inputs", p.inputs());
    }
    return json.writerWithDefaultPrettyPrinter().writeValueAsString(root) + "\n";
  }
}
