package io.schedlens.projections.dcgm;

import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Parser of the Prometheus text exposition format (0.0.4) and of OpenMetrics text (1.0), as
 * dcgm-exporter and Prometheus-compatible exporters write them: HELP, TYPE, UNIT and comment lines,
 * {@code # EOF}, optional per-sample timestamps (milliseconds in the Prometheus format, seconds in
 * OpenMetrics), escaped label values, optional spaces after commas, a trailing comma, quoted UTF-8
 * metric names and OpenMetrics exemplars.
 *
 * <p>Written here because no maintained Java library parses the format (client_java only writes
 * it). It is a single pass over the characters without regular expressions, and parses each
 * distinct label block once per input: dcgm-exporter repeats the same label block for every field
 * of a GPU. Anything it cannot read ends in an {@link ExpositionFormatException} naming the line
 * and column; no other exception escapes (the fuzz test holds it to that).
 */
public final class ExpositionParser {

  /** Which dialect to read; decides the unit of timestamps. */
  public enum Format {
    /** Prometheus text 0.0.4: timestamps are integer milliseconds. */
    PROMETHEUS_TEXT,
    /** OpenMetrics text 1.0: timestamps are (fractional) seconds. */
    OPENMETRICS
  }

  private static final int MAX_LABELS = 256;

  private ExpositionParser() {}

  /** Chooses the format from an HTTP Content-Type header, defaulting to the Prometheus format. */
  public static Format formatOf(String contentType) {
    return contentType != null && contentType.toLowerCase().contains("application/openmetrics-text")
        ? Format.OPENMETRICS
        : Format.PROMETHEUS_TEXT;
  }

  /** Parses a whole exposition. */
  public static List<ExpositionSample> parse(CharSequence text, Format format)
      throws ExpositionFormatException {
    List<ExpositionSample> out = new ArrayList<>();
    Map<String, Map<String, String>> labelBlocks = new HashMap<>();
    int n = text.length();
    int lineNo = 0;
    int pos = 0;
    boolean eof = false;
    while (pos < n) {
      int end = pos;
      while (end < n && text.charAt(end) != '\n') {
        end++;
      }
      lineNo++;
      int lineEnd = end > pos && text.charAt(end - 1) == '\r' ? end - 1 : end;
      CharSequence line = text.subSequence(pos, lineEnd);
      if (eof && !isBlank(line)) {
        throw new ExpositionFormatException(lineNo, 1, "content after # EOF", line);
      }
      if (line.length() > 0 && line.charAt(0) == '#') {
        if (isEof(line)) {
          eof = true;
        }
      } else if (!isBlank(line)) {
        out.add(parseSample(line, lineNo, format, labelBlocks));
      }
      pos = end + 1;
    }
    return out;
  }

  private static boolean isEof(CharSequence line) {
    return line.length() >= 5
        && line.charAt(1) == ' '
        && line.charAt(2) == 'E'
        && line.charAt(3) == 'O'
        && line.charAt(4) == 'F'
        && isBlank(line.subSequence(5, line.length()));
  }

  private static boolean isBlank(CharSequence s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c != ' ' && c != '\t') {
        return false;
      }
    }
    return true;
  }

  private static ExpositionSample parseSample(
      CharSequence line, int lineNo, Format format, Map<String, Map<String, String>> labelBlocks)
      throws ExpositionFormatException {
    int n = line.length();
    int i = skipSpaces(line, 0);
    String name = null;
    int nameStart = i;
    while (i < n && isNameChar(line.charAt(i), i == nameStart)) {
      i++;
    }
    if (i > nameStart) {
      name = line.subSequence(nameStart, i).toString();
    }
    Map<String, String> labels = Collections.emptyMap();
    if (i < n && line.charAt(i) == '{') {
      int close = findBlockEnd(line, i, lineNo);
      String block = line.subSequence(i, close + 1).toString();
      Map<String, String> parsed = labelBlocks.get(block);
      String quotedName = null;
      if (parsed == null || name == null) {
        LabelBlock lb = parseLabels(line, i, close, lineNo);
        parsed = lb.labels;
        quotedName = lb.quotedName;
        if (quotedName == null) {
          labelBlocks.put(block, parsed);
        }
      }
      if (name == null) {
        if (quotedName == null) {
          throw new ExpositionFormatException(lineNo, i + 1, "missing metric name", line);
        }
        name = quotedName;
      } else if (quotedName != null) {
        throw new ExpositionFormatException(lineNo, i + 1, "metric name given twice", line);
      }
      labels = parsed;
      i = close + 1;
    } else if (name == null) {
      throw new ExpositionFormatException(
          lineNo, i + 1, "expected a metric name ([a-zA-Z_:][a-zA-Z0-9_:]*)", line);
    }
    int afterName = i;
    i = skipSpaces(line, i);
    if (i == afterName || i >= n) {
      throw new ExpositionFormatException(
          lineNo, i + 1, i >= n ? "missing value" : "expected a space before the value", line);
    }
    int valueStart = i;
    while (i < n && line.charAt(i) != ' ' && line.charAt(i) != '\t') {
      i++;
    }
    String rawValue = line.subSequence(valueStart, i).toString();
    double value = parseNumber(rawValue, lineNo, valueStart, line);
    i = skipSpaces(line, i);
    Long timestamp = null;
    if (i < n && line.charAt(i) != '#') {
      int tsStart = i;
      while (i < n && line.charAt(i) != ' ' && line.charAt(i) != '\t') {
        i++;
      }
      timestamp =
          parseTimestamp(line.subSequence(tsStart, i).toString(), format, lineNo, tsStart, line);
      i = skipSpaces(line, i);
    }
    if (i < n) {
      // OpenMetrics exemplar: " # {labels} value [timestamp]"; not used, but accepted.
      if (format == Format.OPENMETRICS && line.charAt(i) == '#') {
        return new ExpositionSample(name, labels, rawValue, value, timestamp, lineNo);
      }
      throw new ExpositionFormatException(lineNo, i + 1, "unexpected text after the sample", line);
    }
    return new ExpositionSample(name, labels, rawValue, value, timestamp, lineNo);
  }

  private record LabelBlock(Map<String, String> labels, String quotedName) {}

  /** Index of the '}' closing the block opened at {@code open}, honouring quoted strings. */
  private static int findBlockEnd(CharSequence line, int open, int lineNo)
      throws ExpositionFormatException {
    boolean quoted = false;
    for (int i = open + 1; i < line.length(); i++) {
      char c = line.charAt(i);
      if (quoted) {
        if (c == '\\') {
          i++;
        } else if (c == '"') {
          quoted = false;
        }
      } else if (c == '"') {
        quoted = true;
      } else if (c == '}') {
        return i;
      }
    }
    throw new ExpositionFormatException(
        lineNo, open + 1, quoted ? "unterminated label value" : "missing '}'", line);
  }

  private static LabelBlock parseLabels(CharSequence line, int open, int close, int lineNo)
      throws ExpositionFormatException {
    Map<String, String> labels = new LinkedHashMap<>();
    String quotedName = null;
    int i = open + 1;
    while (true) {
      i = skipSpaces(line, i);
      if (i == close) {
        break;
      }
      String labelName;
      if (line.charAt(i) == '"') {
        int[] end = new int[1];
        labelName = readQuoted(line, i, close, lineNo, end);
        i = skipSpaces(line, end[0]);
        if (i == close || line.charAt(i) == ',') {
          // A quoted string standing alone is the metric name (Prometheus 3 UTF-8 names).
          if (quotedName != null || !labels.isEmpty()) {
            throw new ExpositionFormatException(
                lineNo, i + 1, "a quoted metric name must come first", line);
          }
          quotedName = labelName;
          if (i < close) {
            i++;
          }
          continue;
        }
      } else {
        int start = i;
        while (i < close && isLabelChar(line.charAt(i), i == start)) {
          i++;
        }
        if (i == start) {
          throw new ExpositionFormatException(lineNo, i + 1, "expected a label name", line);
        }
        labelName = line.subSequence(start, i).toString();
        i = skipSpaces(line, i);
      }
      if (i >= close || line.charAt(i) != '=') {
        throw new ExpositionFormatException(
            lineNo, i + 1, "expected '=' after label " + labelName, line);
      }
      i = skipSpaces(line, i + 1);
      if (i >= close || line.charAt(i) != '"') {
        throw new ExpositionFormatException(
            lineNo, i + 1, "expected a quoted value for label " + labelName, line);
      }
      int[] end = new int[1];
      String value = readQuoted(line, i, close, lineNo, end);
      if (labels.put(labelName, value) != null) {
        throw new ExpositionFormatException(
            lineNo, i + 1, "label " + labelName + " repeated", line);
      }
      if (labels.size() > MAX_LABELS) {
        throw new ExpositionFormatException(
            lineNo, i + 1, "more than " + MAX_LABELS + " labels", line);
      }
      i = skipSpaces(line, end[0]);
      if (i == close) {
        break;
      }
      if (line.charAt(i) != ',') {
        throw new ExpositionFormatException(lineNo, i + 1, "expected ',' or '}'", line);
      }
      i++;
    }
    return new LabelBlock(Collections.unmodifiableMap(labels), quotedName);
  }

  /** Reads a double-quoted string starting at {@code open}; sets end[0] past the closing quote. */
  private static String readQuoted(CharSequence line, int open, int limit, int lineNo, int[] end)
      throws ExpositionFormatException {
    StringBuilder sb = null;
    int i = open + 1;
    int runStart = i;
    while (i < limit) {
      char c = line.charAt(i);
      if (c == '"') {
        end[0] = i + 1;
        if (sb == null) {
          return line.subSequence(runStart, i).toString();
        }
        return sb.append(line, runStart, i).toString();
      }
      if (c == '\\') {
        if (sb == null) {
          sb = new StringBuilder();
        }
        sb.append(line, runStart, i);
        if (i + 1 >= limit) {
          break;
        }
        char e = line.charAt(i + 1);
        switch (e) {
          case '\\' -> sb.append('\\');
          case '"' -> sb.append('"');
          case 'n' -> sb.append('\n');
          default ->
              throw new ExpositionFormatException(
                  lineNo, i + 1, "invalid escape \\" + e + " (only \\\\, \\\" and \\n)", line);
        }
        i += 2;
        runStart = i;
        continue;
      }
      i++;
    }
    throw new ExpositionFormatException(lineNo, open + 1, "unterminated quoted string", line);
  }

  private static double parseNumber(String s, int lineNo, int col, CharSequence line)
      throws ExpositionFormatException {
    switch (s) {
      case "NaN", "nan" -> {
        return Double.NaN;
      }
      case "+Inf", "Inf", "inf", "+inf" -> {
        return Double.POSITIVE_INFINITY;
      }
      case "-Inf", "-inf" -> {
        return Double.NEGATIVE_INFINITY;
      }
      default -> {}
    }
    if (!isDecimal(s)) {
      throw new ExpositionFormatException(lineNo, col + 1, "'" + s + "' is not a number", line);
    }
    return Double.parseDouble(s);
  }

  /** [+-]? digits [. digits] [eE [+-] digits], or with the integer part omitted. */
  static boolean isDecimal(String s) {
    int i = 0;
    int n = s.length();
    if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
      i++;
    }
    int digits = 0;
    while (i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
      i++;
      digits++;
    }
    if (i < n && s.charAt(i) == '.') {
      i++;
      while (i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
        i++;
        digits++;
      }
    }
    if (digits == 0) {
      return false;
    }
    if (i < n && (s.charAt(i) == 'e' || s.charAt(i) == 'E')) {
      i++;
      if (i < n && (s.charAt(i) == '+' || s.charAt(i) == '-')) {
        i++;
      }
      int exp = 0;
      while (i < n && s.charAt(i) >= '0' && s.charAt(i) <= '9') {
        i++;
        exp++;
      }
      if (exp == 0) {
        return false;
      }
    }
    return i == n;
  }

  private static Long parseTimestamp(
      String s, Format format, int lineNo, int col, CharSequence line)
      throws ExpositionFormatException {
    if (format == Format.OPENMETRICS) {
      if (!isDecimal(s)) {
        throw new ExpositionFormatException(
            lineNo, col + 1, "'" + s + "' is not a timestamp in seconds", line);
      }
      double seconds = Double.parseDouble(s);
      if (!(Math.abs(seconds) < 9.2e15)) {
        throw new ExpositionFormatException(lineNo, col + 1, "timestamp out of range", line);
      }
      return Math.round(seconds * 1000.0);
    }
    int i = 0;
    if (!s.isEmpty() && (s.charAt(0) == '-' || s.charAt(0) == '+')) {
      i = 1;
    }
    if (i == s.length() || s.length() - i > 18) {
      throw new ExpositionFormatException(
          lineNo, col + 1, "'" + s + "' is not a timestamp in milliseconds", line);
    }
    for (int k = i; k < s.length(); k++) {
      if (s.charAt(k) < '0' || s.charAt(k) > '9') {
        throw new ExpositionFormatException(
            lineNo, col + 1, "'" + s + "' is not a timestamp in milliseconds", line);
      }
    }
    return Long.parseLong(s);
  }

  private static int skipSpaces(CharSequence s, int i) {
    while (i < s.length() && (s.charAt(i) == ' ' || s.charAt(i) == '\t')) {
      i++;
    }
    return i;
  }

  private static boolean isNameChar(char c, boolean first) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || c == '_'
        || c == ':'
        || (!first && c >= '0' && c <= '9');
  }

  private static boolean isLabelChar(char c, boolean first) {
    return (c >= 'a' && c <= 'z')
        || (c >= 'A' && c <= 'Z')
        || c == '_'
        || (!first && c >= '0' && c <= '9');
  }
}
