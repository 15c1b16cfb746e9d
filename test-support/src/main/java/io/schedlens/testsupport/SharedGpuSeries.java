package io.schedlens.testsupport;

import java.util.List;
import java.util.Locale;

/**
 * One GPU attributed to several pods, as dcgm-exporter writes a time-sliced GPU: the label sets of
 * testdata/real/dcgm/{@value #FIXTURE} (one RTX 4090 whose series a Prometheus query returned for
 * two pods, issue #340), each given a field, a value and a time of the test's (the issue lists the
 * series without values). With {@code --kubernetes-virtual-gpus} the exporter writes every pod's
 * copy in the same scrape with a {@code vgpu} label (internal/pkg/transformation/kubernetes.go);
 * without it, one pod's per scrape.
 */
public final class SharedGpuSeries {

  public static final String FIXTURE =
      "issue-dcgm-exporter-340-rtx4090-one-gpu-two-pods-prometheus-series.txt";

  /** The namespace and names of the pods the fixture's series are attributed to. */
  public static final String NAMESPACE = "default";

  public static final List<String> PODS = List.of("pod1", "pod2");

  private SharedGpuSeries() {}

  /** The fixture's label sets, {@code {...}} each, in its order. */
  public static List<String> labelSets() {
    return Fixtures.text("dcgm/" + FIXTURE)
        .lines()
        .filter(l -> !l.isBlank())
        .map(l -> l.substring(l.indexOf('{'), l.lastIndexOf('}') + 1))
        .toList();
  }

  /**
   * The exposition of one scrape in which every pod of the fixture holds a replica of the GPU
   * (virtual GPUs on): {@code field} at {@code value} for each, labelled {@code vgpu} 0, 1, ...
   */
  public static String virtualGpuScrape(String field, double value, long timeMs) {
    StringBuilder b = new StringBuilder();
    List<String> sets = labelSets();
    for (int i = 0; i < sets.size(); i++) {
      String set = sets.get(i);
      b.append(
          line(field, set.substring(0, set.length() - 1) + ", vgpu=\"" + i + "\"}", value, timeMs));
    }
    return b.toString();
  }

  /**
   * The exposition of one scrape attributing the GPU to the fixture's {@code index}-th pod only.
   */
  public static String oneHolderScrape(int index, String field, double value, long timeMs) {
    return line(field, labelSets().get(index), value, timeMs);
  }

  private static String line(String field, String labels, double value, long timeMs) {
    return String.format(Locale.ROOT, "%s%s %s %d%n", field, labels, value, timeMs);
  }
}
