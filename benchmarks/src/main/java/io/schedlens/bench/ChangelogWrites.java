package io.schedlens.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.kafka.clients.admin.Admin;

/**
 * What an app's stores wrote to their changelogs over a run, store by store (records, tombstones
 * among them, and bytes, read committed): the commit's cost is per record written, so this says
 * where it goes.
 */
final class ChangelogWrites {

  private ChangelogWrites() {}

  /** Prints one line per changelog of {@code appId}, most records first, per input record. */
  static void print(Admin admin, String bootstrap, String appId, long inputs) throws Exception {
    String prefix = appId + "-";
    String suffix = "-changelog";
    List<String> changelogs = new ArrayList<>();
    for (String t : admin.listTopics().names().get()) {
      if (t.startsWith(prefix) && t.endsWith(suffix)) {
        changelogs.add(t);
      }
    }
    Map<Long, List<String>> byRecords = new TreeMap<>((a, b) -> Long.compare(b, a));
    long total = 0;
    for (String t : changelogs) {
      long[] w = read(bootstrap, t);
      total += w[0];
      byRecords
          .computeIfAbsent(w[0], k -> new ArrayList<>())
          .add(
              String.format(
                  "%s %,d records (%,d tombstones), %.1f MB",
                  t.substring(prefix.length(), t.length() - suffix.length()),
                  w[0],
                  w[1],
                  w[2] / 1e6));
    }
    System.out.printf(
        "changelog records written: %,d, %.3f per input record%n", total, total / (double) inputs);
    byRecords.values().forEach(lines -> lines.forEach(l -> System.out.println("  " + l)));
  }

  /** Records, tombstones and key and value bytes of one changelog. */
  private static long[] read(String bootstrap, String changelog) {
    long[] written = new long[3];
    StreamsLoad.Changelog.each(
        bootstrap,
        changelog,
        r -> {
          written[0]++;
          if (r.value() == null) {
            written[1]++;
          }
          written[2] += r.serializedKeySize() + Math.max(0, r.serializedValueSize());
        });
    return written;
  }
}
