package io.schedlens.collector.recorded;

import io.schedlens.collector.dcgm.ExpositionFormatException;
import io.schedlens.collector.dcgm.ExpositionParser;
import io.schedlens.collector.dcgm.ExpositionSample;
import io.schedlens.collector.dcgm.GpuIntervals;
import io.schedlens.collector.dcgm.GpuSampleAssembler;
import io.schedlens.collector.dcgm.GpuSampleAssembler.KeyedGpuSample;
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

  public static List<KeyedGpuSample> read(String name, String content, Unusable unusable) {
    List<String> lines = new ArrayList<>(List.of(content.split("\n", -1)));
    List<ExpositionSample> samples = null;
    int bad = 0;
    while (samples == null) {
      try {
        samples =
            ExpositionParser.parse(
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
    Map<Long, List<ExpositionSample>> byTime = new TreeMap<>();
    int untimed = 0;
    for (ExpositionSample s : samples) {
      if (s.timestampMs() == null) {
        untimed++;
      } else {
        byTime.computeIfAbsent(s.timestampMs(), t -> new ArrayList<>()).add(s);
      }
    }
    unusable.add(NO_TIMESTAMP, untimed, name + ": " + untimed + " samples without a timestamp");
    List<KeyedGpuSample> out = new ArrayList<>();
    GpuIntervals intervals = new GpuIntervals();
    for (var scrape : byTime.entrySet()) {
      var result = GpuSampleAssembler.assemble(scrape.getValue(), scrape.getKey(), name, null);
      result.samples().forEach(k -> intervals.stamp(k.sample()));
      out.addAll(result.samples());
      result.notUsed().forEach((reason, n) -> unusable.add("dcgm-" + reason, n, name));
    }
    return out;
  }
}
