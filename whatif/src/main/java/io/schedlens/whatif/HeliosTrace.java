package io.schedlens.whatif;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadRef;
import io.schedlens.base.Outcome;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.Reader;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The job log of a Helios cluster (SenseTime's public GPU traces, Hu et al., SC '21; the HeliosData
 * repository, CC BY 4.0) as observed pod lives, so that a what-if can run on a real cluster's
 * arrivals and work: {@code cluster_log.csv}, one row per job, with the header {@code
 * job_id,user,vc,gpu_num,cpu_num,node_num,state,submit_time,start_time,end_time,duration,queue}.
 *
 * <p>Each job that ran on GPUs becomes a Job of {@code node_num} pods created at {@code
 * submit_time}, each with {@code gpu_num / node_num} GPUs (rounded up), running from {@code
 * start_time} to {@code end_time}; its application is its virtual cluster ({@code vc}: a team's
 * share of the cluster), which a policy maps to a PriorityClass. A job's work is the time it ran,
 * whatever its end ({@code COMPLETED}, {@code FAILED}, {@code CANCELLED}, {@code TIMEOUT}): the
 * trace gives no checkpoint or cause, so a job is taken to need the GPU time it held. Jobs without
 * GPUs, or that never started (cancelled while queued), are left out and counted. Times are the
 * log's wall-clock strings ({@code yyyy-MM-dd HH:mm:ss}, no zone), read as UTC: only differences
 * matter to a what-if.
 */
public final class HeliosTrace {

  /** The columns of {@code cluster_log.csv}, in order. */
  public static final List<String> COLUMNS =
      List.of(
          "job_id",
          "user",
          "vc",
          "gpu_num",
          "cpu_num",
          "node_num",
          "state",
          "submit_time",
          "start_time",
          "end_time",
          "duration",
          "queue");

  private static final DateTimeFormatter TIME = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss");

  /**
   * The pod lives of the window, and what was left out.
   *
   * @param skipped per reason, how many rows
   */
  public record Read(List<PodTimeline> pods, int jobs, Map<String, Integer> skipped) {}

  private HeliosTrace() {}

  /**
   * The jobs submitted within {@code [from, from + length)} (epoch ms, the log's time read as UTC);
   * {@code from} null: from the first row's submission; {@code length} null: to the end.
   *
   * @param source the file's name, for messages
   * @throws IllegalArgumentException naming the line and the column, when a row is not of this
   *     format
   */
  public static Read read(Reader csv, String source, Long from, Duration length)
      throws IOException {
    BufferedReader in = new BufferedReader(csv);
    String header = in.readLine();
    if (header == null || !List.of(header.strip().split(",", -1)).equals(COLUMNS)) {
      throw new IllegalArgumentException(
          source
              + ": not a Helios cluster_log.csv: its first line must be the header "
              + String.join(",", COLUMNS)
              + ", found "
              + header);
    }
    List<PodTimeline> pods = new ArrayList<>();
    Map<String, Integer> skipped = new TreeMap<>();
    Long start = from;
    int jobs = 0;
    int lineNumber = 1;
    for (String line = in.readLine(); line != null; line = in.readLine()) {
      lineNumber++;
      if (line.isBlank()) {
        continue;
      }
      // The log's fields are identifiers, numbers and times: no quoting, no commas inside.
      String[] f = line.split(",", -1);
      if (f.length != COLUMNS.size()) {
        throw new IllegalArgumentException(
            source
                + " line "
                + lineNumber
                + ": "
                + f.length
                + " fields, expected "
                + COLUMNS.size()
                + " ("
                + String.join(",", COLUMNS)
                + ")");
      }
      Row row = Row.parse(f, source, lineNumber);
      if (start == null) {
        start = row.submit;
      }
      if (row.submit < start || (length != null && row.submit >= start + length.toMillis())) {
        continue;
      }
      if (row.gpus <= 0) {
        skipped.merge("no GPU", 1, Integer::sum);
        continue;
      }
      if (row.started == null || row.ended == null || row.ended < row.started) {
        skipped.merge("never started", 1, Integer::sum);
        continue;
      }
      jobs++;
      int perPod = (row.gpus + row.nodes - 1) / row.nodes;
      for (int i = 0; i < row.nodes; i++) {
        pods.add(pod(row, i, perPod));
      }
    }
    return new Read(pods, jobs, skipped);
  }

  private static PodTimeline pod(Row row, int index, int gpus) {
    String job = "helios-" + row.id.toLowerCase().replaceAll("[^a-z0-9-]", "-");
    return PodTimeline.newBuilder()
        .setUid(row.id + "-" + index)
        .setNamespace("helios")
        .setName(job + "-" + index)
        .setWorkload(new WorkloadRef("Job", job))
        .setApplication(row.vc)
        .setCreatedAt(row.submit)
        .setScheduledAt(row.started)
        .setRunningAt(row.started)
        .setTerminatedAt(row.ended)
        .setOutcome(Outcome.SUCCEEDED.wire())
        .setGpus(gpus)
        .setUpdatedAt(row.ended)
        .setFinal$(true)
        .build();
  }

  /** One row, checked. */
  private record Row(
      String id, String vc, int gpus, int nodes, long submit, Long started, Long ended) {

    static Row parse(String[] f, String source, int line) {
      String id = f[0].strip();
      if (id.isEmpty()) {
        throw field(source, line, "job_id", f[0], "a job id");
      }
      String vc = f[2].strip().isEmpty() ? "unknown-vc" : f[2].strip();
      int gpus = integer(f[3], source, line, "gpu_num");
      int nodes = Math.max(1, integer(f[5], source, line, "node_num"));
      long submit = time(f[7], source, line, "submit_time");
      Long started = f[8].isBlank() ? null : time(f[8], source, line, "start_time");
      Long ended = f[9].isBlank() ? null : time(f[9], source, line, "end_time");
      return new Row(id, vc, gpus, nodes, submit, started, ended);
    }

    private static int integer(String v, String source, int line, String column) {
      try {
        return (int) Double.parseDouble(v.strip()); // some exports write 8.0
      } catch (NumberFormatException e) {
        throw field(source, line, column, v, "a number");
      }
    }

    private static long time(String v, String source, int line, String column) {
      try {
        return LocalDateTime.parse(v.strip(), TIME).toInstant(ZoneOffset.UTC).toEpochMilli();
      } catch (DateTimeParseException e) {
        throw field(source, line, column, v, "a time as yyyy-MM-dd HH:mm:ss");
      }
    }

    private static IllegalArgumentException field(
        String source, int line, String column, String value, String expected) {
      return new IllegalArgumentException(
          source + " line " + line + ": " + column + " is '" + value + "', expected " + expected);
    }
  }
}
