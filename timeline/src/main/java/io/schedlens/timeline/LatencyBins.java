package io.schedlens.timeline;

import io.schedlens.avro.LatencyBin;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;

/**
 * A small latency histogram for each point of a pod's series: bin {@code i} holds latencies in
 * [2^(i/4), 2^((i+1)/4)) ms, so a quantile read from the bins (the bin's geometric middle) is
 * within 9 % of the true one. Counts add, so bins merge in any order. The pod's own DDSketch (2 %)
 * keeps the lifetime quantiles; these only draw the curve over time, in a few bytes per point.
 */
public final class LatencyBins {

  /** Bins per doubling. */
  static final int PER_OCTAVE = 4;

  /** The last bin: 2^(100/4) ms, about 9 hours, takes everything slower. */
  static final int LAST = 100;

  private LatencyBins() {}

  public static int binOf(double latencyMs) {
    if (!(latencyMs > 1.0)) {
      return 0;
    }
    int bin = (int) Math.floor(PER_OCTAVE * Math.log(latencyMs) / Math.log(2.0));
    return Math.min(LAST, Math.max(0, bin));
  }

  /** The value that stands for a bin: its geometric middle, ms. */
  public static double middle(int bin) {
    return Math.pow(2.0, (bin + 0.5) / PER_OCTAVE);
  }

  /** Sparse bins (sorted by bin) with the latencies added: a new list. */
  static List<LatencyBin> add(List<LatencyBin> bins, List<Double> latencies) {
    List<LatencyBin> out = new ArrayList<>(bins.size() + latencies.size());
    for (LatencyBin b : bins) {
      out.add(new LatencyBin(b.getBin(), b.getCount()));
    }
    addTo(out, latencies);
    return out;
  }

  /** Adds latencies to sparse bins (sorted by bin), in place. */
  static void addTo(List<LatencyBin> bins, List<Double> latencies) {
    for (double l : latencies) {
      int bin = binOf(l);
      int lo = 0;
      int hi = bins.size() - 1;
      int found = -1;
      while (lo <= hi) {
        int mid = (lo + hi) >>> 1;
        int b = bins.get(mid).getBin();
        if (b < bin) {
          lo = mid + 1;
        } else if (b > bin) {
          hi = mid - 1;
        } else {
          found = mid;
          break;
        }
      }
      if (found >= 0) {
        LatencyBin x = bins.get(found);
        x.setCount(x.getCount() + 1);
      } else {
        bins.add(lo, new LatencyBin(bin, 1L));
      }
    }
  }

  /** The sum of two histograms. */
  static List<LatencyBin> merge(List<LatencyBin> a, List<LatencyBin> b) {
    TreeMap<Integer, Long> m = toMap(a);
    for (LatencyBin x : b) {
      m.merge(x.getBin(), x.getCount(), Long::sum);
    }
    return fromMap(m);
  }

  /** The q-quantile (0..1) of a histogram, ms; null when it is empty. */
  public static Double quantile(List<LatencyBin> bins, double q) {
    long total = 0;
    for (LatencyBin b : bins) {
      total += b.getCount();
    }
    if (total == 0) {
      return null;
    }
    // The smallest bin at which the cumulative count reaches rank ceil(q * total) (at least 1).
    long rank = Math.max(1, (long) Math.ceil(q * total));
    long seen = 0;
    for (LatencyBin b : bins) {
      seen += b.getCount();
      if (seen >= rank) {
        return middle(b.getBin());
      }
    }
    return middle(bins.get(bins.size() - 1).getBin());
  }

  private static TreeMap<Integer, Long> toMap(List<LatencyBin> bins) {
    TreeMap<Integer, Long> m = new TreeMap<>();
    for (LatencyBin b : bins) {
      m.merge(b.getBin(), b.getCount(), Long::sum);
    }
    return m;
  }

  private static List<LatencyBin> fromMap(TreeMap<Integer, Long> m) {
    List<LatencyBin> out = new ArrayList<>(m.size());
    m.forEach((bin, count) -> out.add(new LatencyBin(bin, count)));
    return out;
  }
}
