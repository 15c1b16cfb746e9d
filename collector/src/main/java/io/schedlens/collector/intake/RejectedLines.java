package io.schedlens.collector.intake;

import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The lines of one body the intake rejected, in memory bounded by the body's own size: a few kept
 * as examples for the answer, all counted by reason, and their raw bytes gathered into dead letters
 * of consecutive lines with the same reason, each at most {@code maxChunkBytes} (so that a body of
 * a million bad lines is a few dozen dead letters, not a million objects).
 */
final class RejectedLines {

  /** A rejected line shown in the answer. */
  record Example(int line, String reason, String detail) {}

  /**
   * One dead letter's worth: lines {@code first} to {@code last} ({@code lines} of them, all with
   * {@code reason}), their raw bytes separated by newlines, and the first one's detail.
   */
  record Chunk(String reason, int first, int last, int lines, String detail, byte[] raw) {

    /** What the dead letter says of where its lines were in the body. */
    String where() {
      return lines == 1
          ? "line " + first + ": " + detail
          : "lines " + first + "-" + last + " (" + lines + " lines; the first: " + detail + ")";
    }
  }

  static final int EXAMPLES = 10;

  private final int maxChunkBytes;
  private final List<Example> examples = new ArrayList<>();
  private final Map<String, Integer> byReason = new TreeMap<>();
  private final List<Chunk> chunks = new ArrayList<>();
  private int count;

  private String reason;
  private int first;
  private int last;
  private int lines;
  private String detail;
  private final ByteArrayOutputStream raw = new ByteArrayOutputStream();

  RejectedLines(int maxChunkBytes) {
    this.maxChunkBytes = Math.max(1, maxChunkBytes);
  }

  /** A rejected line, its raw bytes {@code body[from, to)}. */
  void add(int line, String why, String whyInDetail, Body body, int from, int to) {
    count++;
    byReason.merge(why, 1, Integer::sum);
    if (examples.size() < EXAMPLES) {
      examples.add(new Example(line, why, whyInDetail));
    }
    int len = to - from;
    if (reason != null && (!reason.equals(why) || raw.size() + 1 + len > maxChunkBytes)) {
      close();
    }
    if (reason == null) {
      reason = why;
      first = line;
      detail = whyInDetail;
    } else {
      raw.write('\n');
    }
    // A line longer than a whole dead letter keeps its head (the dead letter's bound).
    body.writeTo(raw, from, from + Math.min(len, maxChunkBytes));
    last = line;
    lines++;
  }

  private void close() {
    chunks.add(new Chunk(reason, first, last, lines, detail, raw.toByteArray()));
    raw.reset();
    reason = null;
    lines = 0;
  }

  /** The dead letters to send. */
  List<Chunk> chunks() {
    if (reason != null) {
      close();
    }
    return chunks;
  }

  int count() {
    return count;
  }

  boolean isEmpty() {
    return count == 0;
  }

  /** How many lines were rejected, by reason. */
  Map<String, Integer> byReason() {
    return byReason;
  }

  /** The first few rejected lines, for the answer. */
  List<Example> examples() {
    return examples;
  }
}
