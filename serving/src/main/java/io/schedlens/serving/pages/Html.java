package io.schedlens.serving.pages;

import io.schedlens.avro.WorkloadTimeline;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.Locale;

/**
 * The pieces every page is made of: escaping, links, times and durations as people read them, and
 * the page frame with its style sheet (inline: the pages load nothing from anywhere else).
 */
final class Html {

  private static final DateTimeFormatter TIME =
      DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss'Z'").withZone(ZoneOffset.UTC);

  private static final String STYLE =
      """
      body{font:14px/1.4 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;margin:0;color:#1f2328;background:#fff}
      header{background:#1f2328;color:#fff;padding:8px 20px}header a{color:#fff;text-decoration:none;font-weight:600}
      main{padding:12px 20px;max-width:1400px}h1{font-size:20px;margin:8px 0}h2{font-size:16px;margin:18px 0 6px}
      a{color:#0550ae}a:focus,button:focus,select:focus,input:focus{outline:3px solid #fb8500;outline-offset:1px}
      .layout{display:flex;gap:20px;align-items:flex-start;flex-wrap:wrap}.charts{flex:0 1 1000px;min-width:0}aside{flex:1 1 300px}
      table{border-collapse:collapse;margin:4px 0 12px}th,td{border-bottom:1px solid #d0d7de;padding:3px 8px;text-align:left;vertical-align:top}
      th[scope=col]{background:#f6f8fa}td.n{text-align:right;font-variant-numeric:tabular-nums}
      abbr{text-decoration:underline dotted;cursor:help}.muted{color:#57606a}.bad{color:#cf222e;font-weight:600}
      .tag{display:inline-block;border:1px solid #d0d7de;border-radius:10px;padding:0 8px;margin:1px}
      svg{display:block;max-width:100%;height:auto}svg text{font:12px system-ui,sans-serif;fill:#1f2328}
      .band-queued{fill:#b5838d}.band-gated{fill:#e5989b}.band-pending{fill:#f4a261}.band-starting{fill:#e9c46a}.band-loading{fill:#8ecae6}.band-ready{fill:#90be6d}.band-serving{fill:#2a9d8f}
      .alloc{fill:#d0d7de}.busy{fill:none;stroke:#0550ae;stroke-width:2}.wasted{fill:#cf222e;fill-opacity:.25}
      .rate{fill:none;stroke:#0550ae;stroke-width:2}.err{fill:none;stroke:#cf222e;stroke-width:2}
      .p50{fill:none;stroke:#2a9d8f;stroke-width:2}.p99{fill:none;stroke:#6f42c1;stroke-width:2}
      .slo{stroke:#cf222e;stroke-dasharray:6 4;stroke-width:1.5}.breach{fill:#cf222e}.marker{stroke:#1f2328;stroke-width:1.5}
      .axis line{stroke:#d0d7de}.legend span{margin-right:14px}.sw{display:inline-block;width:12px;height:12px;vertical-align:-1px;margin-right:4px}
      .interrupted{fill:#cf222e;fill-opacity:.3}.degraded{fill:#f4a261;fill-opacity:.35}.desired{fill:none;stroke:#57606a;stroke-width:2;stroke-dasharray:4 3}.readyline{fill:none;stroke:#2a9d8f;stroke-width:2}
      form.filters label{margin-right:10px}
      """;

  private Html() {}

  static String esc(String s) {
    if (s == null) {
      return "";
    }
    StringBuilder b = new StringBuilder(s.length() + 16);
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      switch (c) {
        case '<' -> b.append("&lt;");
        case '>' -> b.append("&gt;");
        case '&' -> b.append("&amp;");
        case '"' -> b.append("&quot;");
        case '\'' -> b.append("&#39;");
        default -> b.append(c);
      }
    }
    return b.toString();
  }

  /** A path segment, encoded. */
  static String seg(String s) {
    return URLEncoder.encode(s == null ? "" : s, StandardCharsets.UTF_8).replace("+", "%20");
  }

  static String link(String href, String text) {
    return "<a href=\"" + esc(href) + "\">" + esc(text) + "</a>";
  }

  static String podHref(String uid) {
    return "/pods/" + seg(uid);
  }

  static String podByNameHref(String namespace, String name) {
    return "/pods/" + seg(namespace) + "/" + seg(name);
  }

  static String workloadHref(String namespace, String kind, String name) {
    return "/workloads/" + seg(namespace) + "/" + seg(kind) + "/" + seg(name);
  }

  /** The page of this very workload: its name, and its controller's UID when it has one. */
  static String workloadHref(WorkloadTimeline w) {
    String byName = workloadHref(w.getNamespace(), w.getKind(), w.getName());
    return w.getControllerUid() == null ? byName : byName + "/" + seg(w.getControllerUid());
  }

  static String time(Long epochMs) {
    return epochMs == null ? "—" : TIME.format(Instant.ofEpochMilli(epochMs));
  }

  /** A duration as people say it: 850 ms, 42 s, 12 min 5 s, 3 h 20 min, 2 d 4 h; "—" unknown. */
  static String duration(Long ms) {
    if (ms == null) {
      return "—";
    }
    long a = Math.abs(ms);
    String sign = ms < 0 ? "−" : "";
    if (a < 1000) {
      return sign + a + " ms";
    }
    long s = a / 1000;
    if (s < 60) {
      return sign + String.format(Locale.ROOT, "%.1f s", a / 1000.0);
    }
    long m = s / 60;
    if (m < 60) {
      return sign + m + " min" + (s % 60 == 0 ? "" : " " + (s % 60) + " s");
    }
    long h = m / 60;
    if (h < 48) {
      return sign + h + " h" + (m % 60 == 0 ? "" : " " + (m % 60) + " min");
    }
    return sign + (h / 24) + " d" + (h % 24 == 0 ? "" : " " + (h % 24) + " h");
  }

  static String number(Double v, String unit) {
    if (v == null) {
      return "—";
    }
    String n =
        Math.abs(v) >= 100
            ? String.format(Locale.ROOT, "%,.0f", v)
            : String.format(Locale.ROOT, "%.2f", v);
    return unit.isEmpty() ? n : n + " " + unit;
  }

  /** Formats a number for SVG coordinates (one decimal, no locale). */
  static String px(double v) {
    return String.format(Locale.ROOT, "%.1f", v);
  }

  /** A legend entry: a square of the chart's style {@code cls} and its label. */
  static String swatch(String cls, String label) {
    return "<span><svg class=\"sw\" viewBox=\"0 0 12 12\" width=\"12\" height=\"12\""
        + " aria-hidden=\"true\"><rect class=\""
        + cls
        + "\" width=\"12\" height=\"12\"/></svg>"
        + esc(label)
        + "</span>";
  }

  /** A whole page: title, navigation, body. */
  static String page(String title, String body) {
    return "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
        + "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">"
        + "<title>"
        + esc(title)
        + " · schedlens</title><style>"
        + STYLE
        + "</style></head><body><header><nav aria-label=\"schedlens\">"
        + "<a href=\"/\">schedlens</a> <span class=\"muted\">· pods pending, starving,"
        + " preempted</span></nav></header><main id=\"main\">"
        + body
        + "</main></body></html>\n";
  }

  /** An error page with what to do. */
  static String problem(String title, String detail) {
    return page(title, "<h1>" + esc(title) + "</h1><p>" + esc(detail) + "</p>");
  }
}
