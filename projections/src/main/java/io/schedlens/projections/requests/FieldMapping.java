package io.schedlens.projections.requests;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigException;

/**
 * Where each request-log field is found in an incoming JSON line. Defaults to the intake's own
 * names; a shipper that sends other names is mapped with entries such as {@code
 * pod=kubernetes.pod_name} (a dotted path reaches into nested objects, as Fluent Bit's kubernetes
 * filter writes them).
 */
public final class FieldMapping {

  public static final String TIME = "time";
  public static final String NAMESPACE = "namespace";
  public static final String POD = "pod";
  public static final String SERVICE = "service";
  public static final String ROUTE = "route";
  public static final String STATUS = "status";
  public static final String LATENCY_MS = "latency_ms";
  public static final String TTFT_MS = "ttft_ms";
  public static final String REQUEST_ID = "request_id";

  static final List<String> FIELDS =
      List.of(TIME, NAMESPACE, POD, SERVICE, ROUTE, STATUS, LATENCY_MS, TTFT_MS, REQUEST_ID);

  private final Map<String, String[]> paths;

  private FieldMapping(Map<String, String[]> paths) {
    this.paths = paths;
  }

  /** The identity mapping. */
  public static FieldMapping defaults() {
    return parse(List.of());
  }

  /**
   * Builds a mapping from {@code field=path} entries.
   *
   * @throws ConfigException naming the entry when it is malformed or names an unknown field
   */
  public static FieldMapping parse(List<String> entries) {
    Map<String, String[]> paths = new LinkedHashMap<>();
    for (String f : FIELDS) {
      paths.put(f, new String[] {f});
    }
    for (String entry : entries) {
      int eq = entry.indexOf('=');
      if (eq <= 0 || eq == entry.length() - 1) {
        throw new ConfigException(
            "intake.field.mapping", entry, "expected FIELD=PATH, e.g. pod=kubernetes.pod_name");
      }
      String field = entry.substring(0, eq).trim();
      if (!FIELDS.contains(field)) {
        throw new ConfigException(
            "intake.field.mapping", entry, "unknown field '" + field + "'; fields are " + FIELDS);
      }
      paths.put(field, entry.substring(eq + 1).trim().split("\\."));
    }
    return new FieldMapping(paths);
  }

  /** The JSON path (object keys) of a field. */
  String[] path(String field) {
    return paths.get(field);
  }
}
