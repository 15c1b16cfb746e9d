package io.schedlens.timeline;

import java.util.List;

/**
 * What applying one input did to a timeline.
 *
 * @param meaningful a field of the timeline's story changed (emit soon)
 * @param counters only counters changed (GPU busy time, requests): emit at the next flush
 * @param outbound messages for other pods' timelines
 */
public record Change(boolean meaningful, boolean counters, List<Outbound> outbound) {

  public static final Change NONE = new Change(false, false, List.of());

  static Change story(List<Outbound> outbound) {
    return new Change(true, false, outbound);
  }

  static Change countersOnly() {
    return new Change(false, true, List.of());
  }

  /** Whether nothing changed. */
  public boolean isNone() {
    return !meaningful && !counters && outbound.isEmpty();
  }
}
