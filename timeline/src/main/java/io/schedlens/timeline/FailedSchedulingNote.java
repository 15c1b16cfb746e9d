package io.schedlens.timeline;

import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Reads kube-scheduler's FailedScheduling note: {@code 0/N nodes are available: <n> <reason>, <n>
 * <reason>. [no new claims to deallocate, ]preemption: ...}. Reasons are named the same whatever
 * the Kubernetes version wrote: the three taint wordings ({@code had taint {k: v}, that the pod
 * didn't tolerate} up to 1.24, {@code had untolerated taint {k: v}} from 1.25, {@code had
 * untolerated taint(s)} later) are all {@code untolerated taint}. A note cut off by the event size
 * limit (ending in "...") keeps the reasons read completely and counts the rest as {@code
 * (truncated)}. Pure.
 */
public final class FailedSchedulingNote {

  /** What a note says. */
  public record Parsed(
      Integer totalNodes,
      Map<String, Integer> reasons,
      boolean preemptionAttempted,
      boolean preemptionNotEligible) {}

  public static final String UNTOLERATED_TAINT = "untolerated taint";
  public static final String NODE_AFFINITY = "node affinity/selector";
  public static final String UNSCHEDULABLE = "unschedulable node";
  public static final String TRUNCATED = "(truncated)";

  private static final String AVAILABLE = " nodes are available: ";

  private FailedSchedulingNote() {}

  /** Parses a note; never throws. A note in no known shape gives its first sentence as reason. */
  public static Parsed parse(String note) {
    if (note == null || note.isBlank()) {
      return new Parsed(null, Map.of(), false, false);
    }
    String text = note.strip();
    boolean truncated = text.endsWith("...");
    if (truncated) {
      text = text.substring(0, text.length() - 3).stripTrailing();
    }
    String filterPart = text;
    String preemptionPart = null;
    int p = indexOutsideBraces(text, "preemption: ");
    if (p >= 0) {
      filterPart = text.substring(0, p);
      preemptionPart = text.substring(p + "preemption: ".length());
    }
    boolean notEligible = preemptionPart != null && preemptionPart.startsWith("not eligible");
    boolean attempted = preemptionPart != null && !notEligible;

    Integer total = null;
    Map<String, Integer> reasons = new LinkedHashMap<>();
    int avail = filterPart.indexOf(AVAILABLE);
    int slash = filterPart.indexOf('/');
    if (avail > 0 && slash > 0 && slash < avail) {
      total = parseIntOrNull(filterPart.substring(slash + 1, avail));
      String list = filterPart.substring(avail + AVAILABLE.length());
      int end = indexOutsideBraces(list, ". ");
      boolean complete = end >= 0 || list.endsWith(".");
      if (end >= 0) {
        list = list.substring(0, end);
      } else if (list.endsWith(".")) {
        list = list.substring(0, list.length() - 1);
      }
      readItems(list, reasons, !complete && truncated);
    } else {
      String first = firstSentence(filterPart);
      if (!first.isEmpty()) {
        reasons.put(first, 0);
      }
    }
    if (truncated && total != null) {
      int counted = reasons.values().stream().mapToInt(Integer::intValue).sum();
      if (counted < total) {
        reasons.merge(TRUNCATED, total - counted, Integer::sum);
      }
    }
    return new Parsed(total, Collections.unmodifiableMap(reasons), attempted, notEligible);
  }

  /** Items are "<count> <text>" separated by ", " before the next count (taint texts hold ", "). */
  private static void readItems(String list, Map<String, Integer> out, boolean lastMayBeCut) {
    int i = 0;
    int n = list.length();
    while (i < n) {
      int numEnd = i;
      while (numEnd < n && Character.isDigit(list.charAt(numEnd))) {
        numEnd++;
      }
      if (numEnd == i || numEnd >= n || list.charAt(numEnd) != ' ') {
        break;
      }
      int count = Integer.parseInt(list.substring(i, Math.min(numEnd, i + 9)));
      int textStart = numEnd + 1;
      int next = nextItem(list, textStart);
      boolean last = next < 0;
      String text = list.substring(textStart, last ? n : next).strip();
      if (last && lastMayBeCut) {
        return;
      }
      out.merge(canonical(text), count, Integer::sum);
      if (last) {
        return;
      }
      i = next + 2;
    }
  }

  /** Index of the ", " that starts the next "<digits> " item, outside braces; -1 if none. */
  private static int nextItem(String s, int from) {
    int depth = 0;
    for (int i = from; i < s.length() - 2; i++) {
      char c = s.charAt(i);
      if (c == '{') {
        depth++;
      } else if (c == '}') {
        depth = Math.max(0, depth - 1);
      } else if (depth == 0
          && c == ','
          && s.charAt(i + 1) == ' '
          && Character.isDigit(s.charAt(i + 2))) {
        int j = i + 2;
        while (j < s.length() && Character.isDigit(s.charAt(j))) {
          j++;
        }
        if (j < s.length() && s.charAt(j) == ' ') {
          return i;
        }
      }
    }
    return -1;
  }

  /** The canonical name of a filter reason. */
  static String canonical(String text) {
    String t = text;
    if (t.startsWith("node(s) ")) {
      t = t.substring("node(s) ".length());
    }
    if (t.startsWith("had untolerated taint")
        || (t.startsWith("had taint") && t.endsWith("that the pod didn't tolerate"))) {
      return UNTOLERATED_TAINT;
    }
    if (t.startsWith("didn't match Pod's node affinity")
        || t.startsWith("didn't match node selector")) {
      return NODE_AFFINITY;
    }
    if (t.equals("were unschedulable")) {
      return UNSCHEDULABLE;
    }
    return t;
  }

  private static String firstSentence(String s) {
    int end = indexOutsideBraces(s, ". ");
    String first = end >= 0 ? s.substring(0, end) : s;
    first = first.strip();
    if (first.endsWith(".") || first.endsWith(",")) {
      first = first.substring(0, first.length() - 1);
    }
    return first.length() > 200 ? first.substring(0, 200) : first;
  }

  private static int indexOutsideBraces(String s, String needle) {
    int depth = 0;
    for (int i = 0; i <= s.length() - needle.length(); i++) {
      char c = s.charAt(i);
      if (c == '{') {
        depth++;
      } else if (c == '}') {
        depth = Math.max(0, depth - 1);
      } else if (depth == 0 && s.startsWith(needle, i)) {
        return i;
      }
    }
    return -1;
  }

  private static Integer parseIntOrNull(String s) {
    try {
      return Integer.parseInt(s.strip());
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
