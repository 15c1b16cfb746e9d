package io.schedlens.check;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.schedlens.check.Finding.Severity;
import java.io.IOException;
import java.io.InputStream;
import java.nio.file.Path;
import java.util.List;
import java.util.Properties;

/** The check's findings as text (for people), JSON (for scripts) and SARIF 2.1.0 (for CI UIs). */
public final class Reports {

  public static final String INFORMATION_URI = "https://github.com/schedlens/schedlens";
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  private Reports() {}

  public static String text(List<Finding> findings, int objects) {
    StringBuilder b = new StringBuilder();
    findings.forEach(f -> b.append(f).append('\n'));
    b.append(summary(findings, objects)).append('\n');
    return b.toString();
  }

  public static String summary(List<Finding> findings, int objects) {
    long errors = errors(findings);
    return String.format(
        "%ncheck: %d objects, %d errors, %d warnings", objects, errors, findings.size() - errors);
  }

  static long errors(List<Finding> findings) {
    return findings.stream().filter(f -> f.severity() == Severity.ERROR).count();
  }

  public static String json(List<Finding> findings, int objects) throws IOException {
    ObjectNode root = JSON.createObjectNode();
    root.put("objects", objects);
    root.put("errors", errors(findings));
    root.put("warnings", findings.size() - errors(findings));
    ArrayNode list = root.putArray("findings");
    for (Finding f : findings) {
      ObjectNode o = list.addObject();
      o.put("severity", f.severity().name().toLowerCase());
      o.put("rule", f.rule());
      o.put("object", f.object());
      o.put("field", f.field());
      o.put("why", f.why());
      o.put("fix", f.fix());
      if (f.file() != null) {
        o.put("file", f.file());
      }
      if (f.line() > 0) {
        o.put("line", f.line());
      }
      o.put("doc", Rule.byId(f.rule()).doc());
    }
    return JSON.writeValueAsString(root) + "\n";
  }

  /**
   * SARIF 2.1.0: one run, every rule in the driver (with its page), each finding a result located
   * at its manifest line (files relative to the working folder, under {@code %SRCROOT%}) and named
   * logically by object and field; findings read from standard input have only the logical name.
   */
  public static String sarif(List<Finding> findings) throws IOException {
    ObjectNode root = JSON.createObjectNode();
    root.put("$schema", "https://json.schemastore.org/sarif-2.1.0.json");
    root.put("version", "2.1.0");
    ObjectNode run = root.putArray("runs").addObject();
    ObjectNode driver = run.putObject("tool").putObject("driver");
    driver.put("name", "schedlens check");
    driver.put("version", version());
    driver.put("informationUri", INFORMATION_URI);
    ArrayNode rules = driver.putArray("rules");
    for (Rule r : Rule.values()) {
      ObjectNode o = rules.addObject();
      o.put("id", r.id());
      o.putObject("shortDescription").put("text", r.title());
      o.putObject("fullDescription").put("text", r.description());
      o.put("helpUri", INFORMATION_URI + "/blob/main/" + r.doc());
      o.putObject("help").put("text", r.description() + " See " + r.doc() + ".");
    }
    ArrayNode results = run.putArray("results");
    for (Finding f : findings) {
      Rule rule = Rule.byId(f.rule());
      ObjectNode o = results.addObject();
      o.put("ruleId", rule.id());
      o.put("ruleIndex", rule.ordinal());
      o.put("level", f.severity() == Severity.ERROR ? "error" : "warning");
      o.putObject("message")
          .put("text", f.object() + " " + f.field() + ": " + f.why() + ". Fix: " + f.fix());
      ObjectNode location = o.putArray("locations").addObject();
      if (f.file() != null) {
        ObjectNode physical = location.putObject("physicalLocation");
        ObjectNode artifact = physical.putObject("artifactLocation");
        Path p = Path.of(f.file());
        if (p.isAbsolute()) {
          artifact.put("uri", p.toUri().toString());
        } else {
          artifact.put("uri", p.normalize().toString().replace('\\', '/'));
          artifact.put("uriBaseId", "%SRCROOT%");
        }
        if (f.line() > 0) {
          physical.putObject("region").put("startLine", f.line());
        }
      }
      location
          .putArray("logicalLocations")
          .addObject()
          .put("fullyQualifiedName", f.object() + " " + f.field())
          .put("kind", "object");
      o.putObject("partialFingerprints")
          .put("schedlensFinding/v1", f.rule() + ":" + f.object() + ":" + f.field());
    }
    return JSON.writeValueAsString(root) + "\n";
  }

  /** The version of the check's jar, or {@code dev} when run from classes. */
  static String version() {
    try (InputStream in =
        Reports.class.getResourceAsStream(
            "/META-INF/maven/io.schedlens/schedlens-check/pom.properties")) {
      if (in != null) {
        Properties p = new Properties();
        p.load(in);
        return p.getProperty("version", "dev");
      }
    } catch (IOException e) {
      // fall through
    }
    return "dev";
  }
}
