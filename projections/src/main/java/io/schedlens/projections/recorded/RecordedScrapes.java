package io.schedlens.projections.recorded;

import io.schedlens.projections.dcgm.ExpositionFormatException;
import io.schedlens.projections.dcgm.ExpositionParser;
import io.schedlens.projections.dcgm.ExpositionSample;
import io.schedlens.projections.dcgm.GpuIntervals;
import io.schedlens.projections.dcgm.GpuSampleAssembler;
import io.schedlens.projections.dcgm.GpuSampleAssembler.KeyedGpuSample;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * Reads recorded dcgm-exporter scrapes: exposition text whose samples carry millisecond timestamps,
 * several scrapes one after another in one file. Samples with the same timestamp are one scrape,
 * assembled into one GpuSample per GPU exactly as the live scraper does. A line that does not parse
 * is reported and skipped; samples without a timestamp cannot be placed in time and are reported
 * too.
 */
public final class RecordedScrapes {

  public static final String MALFORMED_LINE = "malformed-exposition-line";
  public static final String NO_TIMESTAMP = "sample-without-timestamp";

  /** Lines of one file that may fail before the file is given up. */
  private static final int MAX_BAD_LINES = 1000;

  private RecordedScrapes() {}

  /** Reads one file of scrapes. */
  public static List<KeyedGpuSample> read(String name, String content, Unusable unusable) {
    return readAll(Map.of(name, content), unusable);
  }

  /**
   * Reads several files of scrapes (name to content) as one recording: the scrapes of all files are
   * taken in time order, so the interval of each sample (from the previous one of its GPU) does not
   * depend on how the recording was cut into files or in which order they come.
   */
  public static List<KeyedGpuSample> readAll(Map<String, String> files, Unusable unusable) {
    // time -> file -> samples; files in name order within one time, whatever order they came in
    Map<Long, Map<String, List<ExpositionSample>>> byTime = new TreeMap<>();
    for (var file : files.entrySet()) {
      String name = file.getKey();
      int untimed = 0;
      for (ExpositionSample s : parse(name, file.getValue(), unusable)) {
        if (s.timestampMs() == null) {
          untimed++;
        } else {
          byTime
              .computeIfAbsent(s.timestampMs(), t -> new TreeMap<>())
              .computeIfAbsent(name, n -> new ArrayList<>())
              .add(s);
        }
      }
      unusable.add(NO_TIMESTAMP, untimed, name + ": " + untimed + " samples without a timestamp");
    }
    List<KeyedGpuSample> out = new ArrayList<>();
    GpuIntervals intervals = new GpuIntervals();
    for (var scrapes : byTime.entrySet()) {
      for (var scrape : scrapes.getValue().entrySet()) {
        String name = scrape.getKey();
        var result = GpuSampleAssembler.assemble(scrape.getValue(), scrapes.getKey(), name, null);
        result.samples().forEach(k -> intervals.stamp(k.sample()));
        out.addAll(result.samples());
        result.notUsed().forEach((reason, n) -> unusable.add("dcgm-" + reason, n, name));
      }
    }
    return out;
  }

  private static List<ExpositionSample> parse(String name, String content, Unusable unusable) {
    List<String> lines = new ArrayList<>(List.of(content.split("\n", -1)));
    int bad = 0;
    while (true) {
      try {
        return ExpositionParser.parse(
            String.join("\n", lines), ExpositionParser.Format.PROMETHEUS_TEXT);
      } catch (ExpositionFormatException e) {
        unusable.add(MALFORMED_LINE, name + ": " + e.getMessage());
        int index = e.line() - 1;
        if (++bad > MAX_BAD_LINES || index < 0 || index >= lines.size()) {
          return List.of();
        }
        lines.set(index, "# (unparseable line skipped by replay)");
      }
    }
  }
}
