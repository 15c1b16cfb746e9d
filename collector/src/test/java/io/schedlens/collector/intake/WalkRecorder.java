package io.schedlens.collector.intake;

import io.schedlens.avro.RequestLog;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;

/** What a walk through a body gave: accepted logs, rejected items as text, entries passed over. */
final class WalkRecorder implements Items {

  final List<RequestLog> accepted = new ArrayList<>();
  final List<String> rejected = new ArrayList<>();
  final List<String> rejectedRaw = new ArrayList<>();
  int passedOver;

  @Override
  public void accepted(RequestLog log) {
    accepted.add(log);
  }

  @Override
  public void rejected(int item, String reason, String detail, Body raw, int from, int to) {
    rejected.add(item + " " + reason);
    rejectedRaw.add(
        new String(raw.copy(from, from + Math.min(to - from, 200)), StandardCharsets.UTF_8));
  }

  @Override
  public void passedOver() {
    passedOver++;
  }

  /** Bytes this thread allocated while {@code walk} ran. */
  static long allocatedBy(Runnable walk) {
    com.sun.management.ThreadMXBean threads =
        (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
    long before = threads.getCurrentThreadAllocatedBytes();
    walk.run();
    return threads.getCurrentThreadAllocatedBytes() - before;
  }
}
