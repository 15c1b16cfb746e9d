package io.schedlens.simulator.scenario;

import com.fasterxml.jackson.databind.JsonNode;
import io.schedlens.base.Durations;
import java.time.Duration;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Typed fields of a scenario's YAML tree, each read with its default and its bounds: a field that
 * is missing, of the wrong type, out of bounds or unknown is a {@link ScenarioException} naming the
 * source, the field's path ({@code workloads[1].work}) and what was expected.
 */
final class YamlFields {

  private static final Pattern DNS_LABEL = Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?");

  private final String source;

  /**
   * @param source what the YAML was read from, for the messages
   */
  YamlFields(String source) {
    this.source = source;
  }

  interface Each {
    void accept(JsonNode item, String path);
  }

  void forEach(JsonNode n, String field, boolean required, Each each) {
    forEach(n, "", field, required, each);
  }

  void forEach(JsonNode n, String p, String field, Each each) {
    forEach(n, p, field, false, each);
  }

  void forEach(JsonNode n, String p, String field, boolean required, Each each) {
    JsonNode x = n.get(field);
    String q = join(p, field);
    if (x == null || x.isNull()) {
      if (required) {
        throw fail(q, "required (a list)");
      }
      return;
    }
    if (!x.isArray()) {
      throw fail(q, "expected a list");
    }
    if (required && x.isEmpty()) {
      throw fail(q, "must not be empty");
    }
    for (int i = 0; i < x.size(); i++) {
      if (!x.get(i).isObject()) {
        throw fail(q + "[" + i + "]", "expected a mapping");
      }
      each.accept(x.get(i), q + "[" + i + "]");
    }
  }

  void known(JsonNode n, String p, String... fields) {
    Set<String> allowed = Set.of(fields);
    Iterator<String> it = n.fieldNames();
    while (it.hasNext()) {
      String f = it.next();
      if (!allowed.contains(f)) {
        throw fail(join(p, f), "unknown field; known here: " + String.join(", ", fields));
      }
    }
  }

  String text(JsonNode n, String p, String field, String dflt) {
    JsonNode x = n.get(field);
    if (x == null || x.isNull()) {
      if (dflt == null) {
        throw fail(join(p, field), "required");
      }
      return dflt;
    }
    if (!x.isValueNode()) {
      throw fail(join(p, field), "expected a single value");
    }
    return x.asText();
  }

  String dnsName(JsonNode n, String p, String field, String dflt) {
    String v = text(n, p, field, dflt);
    if (v.length() > 63 || !DNS_LABEL.matcher(v).matches()) {
      throw fail(
          join(p, field),
          "'" + v + "' is not a Kubernetes name (lower-case letters, digits, '-', at most 63)");
    }
    return v;
  }

  boolean bool(JsonNode n, String p, String field, boolean dflt) {
    JsonNode x = n.get(field);
    if (x == null || x.isNull()) {
      return dflt;
    }
    if (!x.isBoolean()) {
      throw fail(join(p, field), "expected true or false, got '" + x.asText() + "'");
    }
    return x.booleanValue();
  }

  long longValue(JsonNode n, String p, String field) {
    JsonNode x = n.get(field);
    if (!x.canConvertToLong() || !x.isIntegralNumber()) {
      throw fail(join(p, field), "expected a whole number, got '" + x.asText() + "'");
    }
    return x.longValue();
  }

  int intValue(JsonNode n, String p, String field, Integer dflt, int min, int max) {
    JsonNode x = n.get(field);
    if (x == null || x.isNull()) {
      if (dflt == null) {
        throw fail(join(p, field), "required");
      }
      return dflt;
    }
    if (!x.isIntegralNumber() || !x.canConvertToInt()) {
      throw fail(join(p, field), "expected a whole number, got '" + x.asText() + "'");
    }
    int v = x.intValue();
    if (v < min || v > max) {
      throw fail(join(p, field), "must be between " + min + " and " + max + ", got " + v);
    }
    return v;
  }

  double number(JsonNode n, String p, String field, Double dflt, double min, double max) {
    JsonNode x = n.get(field);
    if (x == null || x.isNull()) {
      if (dflt == null) {
        throw fail(join(p, field), "required");
      }
      return dflt;
    }
    if (!x.isNumber()) {
      throw fail(join(p, field), "expected a number, got '" + x.asText() + "'");
    }
    double v = x.doubleValue();
    if (v < min || v > max) {
      throw fail(join(p, field), "must be between " + min + " and " + max + ", got " + v);
    }
    return v;
  }

  double positive(JsonNode n, String p, String field, Double dflt) {
    double v = number(n, p, field, dflt, 0, Double.MAX_VALUE);
    if (v <= 0) {
      throw fail(join(p, field), "must be positive");
    }
    return v;
  }

  Duration duration(JsonNode n, String p, String field, Duration dflt) {
    JsonNode x = n.get(field);
    if (x == null || x.isNull()) {
      if (dflt == null) {
        throw fail(join(p, field), "required (a duration like 90s, 20m, 1h)");
      }
      return dflt;
    }
    try {
      Duration d = Durations.parse(x.asText());
      if (d.isNegative()) {
        throw fail(join(p, field), "must not be negative");
      }
      return d;
    } catch (IllegalArgumentException e) {
      throw fail(join(p, field), "expected a duration like 90s, 20m, 1h, got '" + x.asText() + "'");
    }
  }

  Map<String, String> stringMap(JsonNode n, String p, String field) {
    JsonNode x = n.get(field);
    Map<String, String> m = new LinkedHashMap<>();
    if (x == null || x.isNull()) {
      return m;
    }
    if (!x.isObject()) {
      throw fail(join(p, field), "expected a mapping of strings");
    }
    x.fields().forEachRemaining(e -> m.put(e.getKey(), e.getValue().asText()));
    return m;
  }

  /** Refuses a name that appears twice in {@code list}: at {@code list[i].field}. */
  void unique(List<String> values, String list, String field) {
    Set<String> seen = new HashSet<>();
    for (int i = 0; i < values.size(); i++) {
      if (!seen.add(values.get(i))) {
        throw fail(list + "[" + i + "]." + field, "'" + values.get(i) + "' appears twice");
      }
    }
  }

  static String join(String p, String field) {
    return p.isEmpty() ? field : p + "." + field;
  }

  ScenarioException fail(String path, String what) {
    return new ScenarioException(source + ": " + path + ": " + what);
  }
}
