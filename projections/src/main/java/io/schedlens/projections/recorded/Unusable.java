package io.schedlens.projections.recorded;

import java.util.Map;
import java.util.TreeMap;

/** What could not be used from recorded input: a count and a first example per reason. */
public final class Unusable {

  private final Map<String, Integer> counts = new TreeMap<>();
  private final Map<String, String> examples = new TreeMap<>();

  public void add(String reason, String example) {
    counts.merge(reason, 1, Integer::sum);
    examples.putIfAbsent(reason, example);
  }

  public void add(String reason, int count, String example) {
    if (count > 0) {
      counts.merge(reason, count, Integer::sum);
      examples.putIfAbsent(reason, example);
    }
  }

  public Map<String, Integer> counts() {
    return counts;
  }

  public Map<String, String> examples() {
    return examples;
  }

  public int total() {
    return counts.values().stream().mapToInt(Integer::intValue).sum();
  }

  public boolean isEmpty() {
    return counts.isEmpty();
  }
}
