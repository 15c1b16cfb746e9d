package io.schedlens.projections.dcgm;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads DCGM samples from a Prometheus HTTP API answer ({@code /api/v1/query} vector or {@code
 * /api/v1/query_range} matrix), so that a post-mortem can start from the Prometheus that scraped
 * dcgm-exporter when no raw scrapes were kept. Each point becomes an {@link ExpositionSample} with
 * its timestamp; the labels keep Prometheus' target labels, which {@link GpuSampleAssembler}
 * recognises.
 */
public final class PrometheusQueryResultParser {

  private static final ObjectMapper JSON = new ObjectMapper();

  private PrometheusQueryResultParser() {}

  /** Whether the text looks like a Prometheus API answer rather than exposition text. */
  public static boolean looksLikeQueryResult(CharSequence text) {
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (!Character.isWhitespace(c)) {
        return c == '{';
      }
    }
    return false;
  }

  /** Parses the answer; throws {@link ExpositionFormatException} saying what is wrong. */
  public static List<ExpositionSample> parse(String json) throws ExpositionFormatException {
    JsonNode root;
    try {
      root = JSON.readTree(json);
    } catch (IOException e) {
      throw new ExpositionFormatException(1, 1, "not JSON: " + e.getMessage(), json);
    }
    JsonNode data = root == null ? null : root.get("data");
    if (data == null || !data.has("result") || !data.get("result").isArray()) {
      throw new ExpositionFormatException(
          1, 1, "not a Prometheus API answer (no data.result)", json);
    }
    List<ExpositionSample> out = new ArrayList<>();
    int index = 0;
    for (JsonNode series : data.get("result")) {
      index++;
      JsonNode metric = series.get("metric");
      if (metric == null || !metric.isObject() || !metric.has("__name__")) {
        throw new ExpositionFormatException(
            index,
            1,
            "result " + index + " has no metric name",
            json.substring(0, Math.min(80, json.length())));
      }
      Map<String, String> labels = new LinkedHashMap<>();
      Iterator<Map.Entry<String, JsonNode>> it = metric.fields();
      while (it.hasNext()) {
        Map.Entry<String, JsonNode> e = it.next();
        if (!e.getKey().equals("__name__")) {
          labels.put(e.getKey(), e.getValue().asText());
        }
      }
      String name = metric.get("__name__").asText();
      if (series.has("value")) {
        out.add(point(name, labels, series.get("value"), index));
      } else if (series.has("values")) {
        for (JsonNode v : series.get("values")) {
          out.add(point(name, labels, v, index));
        }
      }
    }
    return out;
  }

  private static ExpositionSample point(
      String name, Map<String, String> labels, JsonNode point, int index)
      throws ExpositionFormatException {
    if (point == null || !point.isArray() || point.size() != 2 || !point.get(0).isNumber()) {
      throw new ExpositionFormatException(
          index,
          1,
          "result " + index + " has a malformed [time, value] point",
          String.valueOf(point));
    }
    String raw = point.get(1).asText();
    double value;
    switch (raw) {
      case "NaN" -> value = Double.NaN;
      case "+Inf" -> value = Double.POSITIVE_INFINITY;
      case "-Inf" -> value = Double.NEGATIVE_INFINITY;
      default -> {
        if (!ExpositionParser.isDecimal(raw)) {
          throw new ExpositionFormatException(
              index, 1, "'" + raw + "' is not a number", String.valueOf(point));
        }
        value = Double.parseDouble(raw);
      }
    }
    long ms = Math.round(point.get(0).asDouble() * 1000.0);
    return new ExpositionSample(name, labels, raw, value, ms, index);
  }
}
