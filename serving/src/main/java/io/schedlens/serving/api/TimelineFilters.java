package io.schedlens.serving.api;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;

/**
 * What a list asks for, as the API's query parameters say it: the pod states and attribute filters
 * of {@code GET /api/pods}, the filters of {@code GET /api/workloads}. Pure: the pages over files
 * use the same filters as the API over the stores.
 */
public final class TimelineFilters {

  /**
   * The attribute filters of the pod list, by query parameter: a timeline must match each given.
   */
  static final Map<String, Function<PodTimeline, String>> POD_ATTRIBUTES =
      Map.of(
          "namespace", PodTimeline::getNamespace,
          "name", PodTimeline::getName,
          "priorityClass", PodTimeline::getPriorityClass,
          "arm", PodTimeline::getArm,
          "repeat", PodTimeline::getRepeat,
          "workloadKind", t -> t.getWorkload() == null ? null : t.getWorkload().getKind(),
          "workloadName", t -> t.getWorkload() == null ? null : t.getWorkload().getName());

  /** The attribute filters of {@code GET /api/workloads}. */
  static final List<String> WORKLOAD_ATTRIBUTES =
      List.of("namespace", "kind", "arm", "interrupted");

  /** The query parameters of {@code GET /api/workloads}. */
  public static final Set<String> WORKLOAD_LIST_PARAMETERS =
      Set.of("namespace", "kind", "arm", "interrupted", "limit", "after", "local");

  /** The query parameters of {@code GET /api/pods}. */
  public static final Set<String> LIST_PARAMETERS =
      Set.of(
          "state",
          "namespace",
          "name",
          "priorityClass",
          "arm",
          "repeat",
          "workloadKind",
          "workloadName",
          "preemptedSince",
          "limit",
          "after",
          "local");

  private TimelineFilters() {}

  /**
   * The pods in {@code state} (pending, starving, preempted or all) that match every attribute
   * filter of {@code query}; null for an unknown state.
   *
   * @throws IllegalArgumentException for a {@code preemptedSince} that is not epoch milliseconds
   */
  public static Predicate<PodTimeline> pods(String state, Map<String, String> query) {
    Predicate<PodTimeline> p =
        switch (state) {
          case "pending" -> t -> !t.getFinal$() && "Pending".equals(t.getOutcome());
          case "starving" -> t -> !t.getFinal$() && t.getStarving();
          case "preempted" -> t -> t.getPreemptedAt() != null;
          case "all" -> t -> true;
          default -> null;
        };
    if (p == null) {
      return null;
    }
    String since = query.get("preemptedSince");
    if (since != null && !since.isEmpty()) {
      long from;
      try {
        from = Long.parseLong(since.strip());
      } catch (NumberFormatException e) {
        throw new IllegalArgumentException(
            "preemptedSince must be epoch milliseconds, not '" + since + "'");
      }
      p = p.and(t -> t.getPreemptedAt() != null && t.getPreemptedAt() >= from);
    }
    for (var f : POD_ATTRIBUTES.entrySet()) {
      String wanted = query.get(f.getKey());
      // Grafana sends "" or "All" style values when a variable is unset: an empty value filters
      // nothing.
      if (wanted != null && !wanted.isEmpty()) {
        var attribute = f.getValue();
        p = p.and(t -> wanted.equals(attribute.apply(t)));
      }
    }
    return p;
  }

  /** Whether a workload matches the filters of {@code GET /api/workloads}. */
  public static boolean workloadMatches(WorkloadTimeline t, Map<String, String> query) {
    return matches(query.get("namespace"), t.getNamespace())
        && matches(query.get("kind"), t.getKind())
        && matches(query.get("arm"), t.getArm())
        && (!"true".equals(query.get("interrupted")) || t.getDesired() >= 1 && t.getReady() == 0);
  }

  private static boolean matches(String wanted, String actual) {
    return wanted == null || wanted.isEmpty() || wanted.equals(actual);
  }

  /** A URI's query parameters, decoded (the last of a repeated one). */
  public static Map<String, String> query(URI uri) {
    Map<String, String> q = new HashMap<>();
    String raw = uri.getRawQuery();
    if (raw == null) {
      return q;
    }
    try {
      for (String pair : raw.split("&")) {
        int eq = pair.indexOf('=');
        String k = URLDecoder.decode(eq < 0 ? pair : pair.substring(0, eq), StandardCharsets.UTF_8);
        String v = eq < 0 ? "" : URLDecoder.decode(pair.substring(eq + 1), StandardCharsets.UTF_8);
        q.put(k, v);
      }
    } catch (IllegalArgumentException e) {
      // The decoder's own words quote the escape; a 400 says no more than this.
      throw new IllegalArgumentException("the query has a malformed % escape");
    }
    return q;
  }
}
