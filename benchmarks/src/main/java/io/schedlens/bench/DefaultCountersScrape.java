package io.schedlens.bench;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * A full scrape of an 8-GPU node with dcgm-exporter's default counters, built from real parts: the
 * field list of {@code dcgm-exporter-default-counters.csv} and the eight label blocks of the
 * recorded EKS H100 scrape (one GPU attributed to a vLLM pod), with HELP and TYPE lines as the
 * exporter writes them.
 */
public final class DefaultCountersScrape {

  private DefaultCountersScrape() {}

  /** The exposition text; {@code repoRoot} holds {@code testdata/real}. */
  public static String build(Path repoRoot) {
    Path dcgm = repoRoot.resolve("testdata/real/dcgm");
    try {
      List<String[]> fields = new ArrayList<>();
      for (String line : Files.readAllLines(dcgm.resolve("dcgm-exporter-default-counters.csv"))) {
        String l = line.trim();
        if (l.isEmpty() || l.startsWith("#")) {
          continue;
        }
        String[] parts = l.split(",", 3);
        if (!parts[1].trim().equals("label")) {
          fields.add(new String[] {parts[0].trim(), parts[1].trim(), parts[2].trim()});
        }
      }
      List<String> labelBlocks = new ArrayList<>();
      for (String line :
          Files.readAllLines(dcgm.resolve("aicr-h100-eks-8gpu-exposition-2026-02-19.prom"))) {
        if (line.startsWith("DCGM_FI_DEV_GPU_TEMP{")) {
          labelBlocks.add(line.substring(line.indexOf('{'), line.lastIndexOf('}') + 1));
        }
      }
      StringBuilder sb = new StringBuilder();
      int f = 0;
      for (String[] field : fields) {
        sb.append("# HELP ").append(field[0]).append(' ').append(field[2]).append('\n');
        sb.append("# TYPE ").append(field[0]).append(' ').append(field[1]).append('\n');
        for (int gpu = 0; gpu < labelBlocks.size(); gpu++) {
          sb.append(field[0])
              .append(labelBlocks.get(gpu))
              .append(' ')
              .append((f * 37 + gpu * 11) % 1000)
              .append('\n');
        }
        f++;
      }
      return sb.toString();
    } catch (IOException e) {
      throw new UncheckedIOException("run from the repository root (testdata/real is read)", e);
    }
  }
}
