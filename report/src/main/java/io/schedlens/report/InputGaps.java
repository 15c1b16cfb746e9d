package io.schedlens.report;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The inputs a report's numbers do not rest on: recorded input that could not be read (by reason)
 * and inputs the streams app dead-lettered (by reason), with the pods they name. A report built on
 * such inputs says so at its top, and the commands that write it exit with {@link #EXIT_CODE}
 * unless partial results were accepted: a pod whose GPU samples were dead-lettered shows no GPU
 * work, which reads as idle, not as missing.
 *
 * @param unusable recorded input that could not be used, by reason
 * @param deadLetters inputs the streams app dead-lettered, by reason
 * @param pods the pods ({@code namespace/name} or UID) the dead letters name, sorted
 */
public record InputGaps(
    Map<String, Integer> unusable, Map<String, Integer> deadLetters, List<String> pods) {

  /** The exit code of a command whose results rest on incomplete inputs (results written). */
  public static final int EXIT_CODE = 4;

  /** The setting that accepts partial results. */
  public static final String ALLOW_FLAG = "--allow-dead-letters";

  /** The summary file a replay writes beside its timelines, which carries its gaps. */
  public static final String REPLAY_SUMMARY = "replay-summary.json";

  private static final int PODS_SHOWN = 10;

  public InputGaps {
    unusable = new TreeMap<>(unusable);
    deadLetters = new TreeMap<>(deadLetters);
    pods = List.copyOf(new TreeSet<>(pods));
  }

  public static InputGaps none() {
    return new InputGaps(Map.of(), Map.of(), List.of());
  }

  public boolean isEmpty() {
    return unusable.isEmpty() && deadLetters.isEmpty();
  }

  /** Every input not used. */
  public int total() {
    return unusable.values().stream().mapToInt(Integer::intValue).sum()
        + deadLetters.values().stream().mapToInt(Integer::intValue).sum();
  }

  /** One line for a terminal: what is missing and how to accept it. */
  public String oneLine(String command) {
    return command
        + ": the results rest on incomplete inputs ("
        + describe()
        + "); report.md says which and what to do; "
        + ALLOW_FLAG
        + " accepts partial results";
  }

  /** What is missing, in a few words (e.g. "dead-lettered {unknown-pod=3}, 2 pods touched"). */
  public String describe() {
    List<String> parts = new ArrayList<>();
    if (!unusable.isEmpty()) {
      parts.add("unusable recorded input " + unusable);
    }
    if (!deadLetters.isEmpty()) {
      parts.add("dead-lettered " + deadLetters);
    }
    if (!pods.isEmpty()) {
      parts.add(pods.size() + " pods touched");
    }
    return String.join(", ", parts);
  }

  /** The block at the top of report.md; empty when nothing is missing. */
  public String markdown() {
    if (isEmpty()) {
      return "";
    }
    StringBuilder b = new StringBuilder();
    b.append("> **Incomplete inputs: ")
        .append(total())
        .append(" inputs were not used, and the numbers below do not include them.**\n");
    unusable.forEach(
        (reason, n) ->
            b.append("> - ")
                .append(n)
                .append(" recorded input(s) unusable: `")
                .append(reason)
                .append("`. ")
                .append(advice(reason))
                .append('\n'));
    deadLetters.forEach(
        (reason, n) ->
            b.append("> - ")
                .append(n)
                .append(" input(s) dead-lettered by the streams app: `")
                .append(reason)
                .append("`. ")
                .append(advice(reason))
                .append('\n'));
    if (!pods.isEmpty()) {
      b.append("> - Pods they name (")
          .append(pods.size())
          .append("): ")
          .append(
              String.join(
                  ", ",
                  pods.subList(0, Math.min(PODS_SHOWN, pods.size())).stream()
                      .map(p -> "`" + p + "`")
                      .toList()))
          .append(pods.size() > PODS_SHOWN ? ", …" : "")
          .append(
              ". Their GPU work, requests and latencies are missing what was dropped, not zero.\n");
    }
    b.append("> \n> Examples of each reason: `")
        .append(REPLAY_SUMMARY)
        .append("` (replay) or the `schedlens.dlq` topic.\n");
    return b.toString();
  }

  /** What to do about a reason. */
  static String advice(String reason) {
    return switch (reason) {
      case "unknown-pod" ->
          "GPU samples or request logs name a pod that no recorded Pod held at their time: record"
              + " the Pods over the whole span of the other inputs (start the pod watch before the"
              + " scrapes and request logs, stop it after), and keep each recording's files"
              + " together.";
      case "late", "after-final", "message-after-final" ->
          "Inputs came after their pod's final timeline: raise --grace-period, or order the"
              + " inputs by time.";
      case "not-a-kubernetes-object", "not-a-pod-or-event", "unparseable" ->
          "Lines that are not Pods or Events in JSON or YAML (e.g. `kubectl describe` output):"
              + " capture with `kubectl get ... -o json` (see docs/operators/replay.md).";
      case "event-without-pod-uid", "event-without-pod-name", "event-not-about-a-pod" ->
          "Events that name no pod the recording can match: they cannot be placed on a timeline.";
      case "malformed-exposition-line", "sample-without-timestamp" ->
          "DCGM exposition lines that do not parse or carry no timestamp: record scrapes with"
              + " their timestamps (docs/operators/replay.md).";
      default ->
          reason.startsWith("request-")
              ? "Request log lines the intake's rules refuse: see the examples and the field"
                  + " mapping (--intake-field-mapping)."
              : "See the examples and docs/operators/replay.md.";
    };
  }

  /** As kept in replay-summary.json. */
  public Map<String, Object> toSummary() {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("incomplete", !isEmpty());
    m.put("notUsed", total());
    m.put("deadLetteredPods", pods);
    return m;
  }

  /**
   * The gaps a replay recorded in {@code dir}'s replay-summary.json; none when there is no such
   * file (a demo's output, or timelines from elsewhere).
   */
  public static InputGaps read(Path dir) throws IOException {
    Path summary = dir.resolve(REPLAY_SUMMARY);
    if (!Files.isReadable(summary)) {
      return none();
    }
    JsonNode n = new ObjectMapper().readTree(summary.toFile());
    List<String> pods = new ArrayList<>();
    n.path("deadLetteredPods").forEach(p -> pods.add(p.asText()));
    return new InputGaps(counts(n.path("unusable")), counts(n.path("deadLetters")), pods);
  }

  private static Map<String, Integer> counts(JsonNode n) {
    Map<String, Integer> m = new TreeMap<>();
    n.fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue().asInt()));
    return m;
  }
}
