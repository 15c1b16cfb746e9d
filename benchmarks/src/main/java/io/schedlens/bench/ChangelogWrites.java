package io.schedlens.bench;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.IntStream;
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
    List<String> names = new ArrayList<>();
    List<long[]> written = new ArrayList<>();
    for (String t : changelogs) {
      names.add(t.substring(prefix.length(), t.length() - suffix.length()));
      written.add(read(bootstrap, t));
    }
    long total = written.stream().mapToLong(w -> w[0]).sum();
    System.out.printf(
        "changelog records written: %,d, %.3f per input record%n", total, total / (double) inputs);
    IntStream.range(0, names.size())
        .boxed()
        .sorted(Comparator.comparingLong((Integer i) -> written.get(i)[0]).reversed())
        .forEach(
            i ->
                System.out.printf(
                    "  %s %,d records (%,d tombstones), %.1f MB%n",
                    names.get(i), written.get(i)[0], written.get(i)[1], written.get(i)[2] / 1e6));
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
