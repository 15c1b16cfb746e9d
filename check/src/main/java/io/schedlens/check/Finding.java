package io.schedlens.check;

/**
 * One thing the check found: how bad, which object and field, why it matters, how to fix it, and
 * where it was written.
 *
 * @param object {@code Kind namespace/name}
 * @param field the field path, e.g. {@code spec.template.spec.containers[server].resources}
 * @param file the manifest file, null for standard input or an object of the cluster
 * @param line the line of the field (or of its nearest written parent), 0 when unknown
 */
public record Finding(
    Severity severity,
    String rule,
    String object,
    String field,
    String why,
    String fix,
    String file,
    int line) {

  public enum Severity {
    ERROR,
    WARNING
  }

  /** A finding about a field of a manifest, located at that field's line. */
  static Finding of(
      Severity severity, Rule rule, Manifest m, String field, String why, String fix) {
    return new Finding(severity, rule.id(), m.ref(), field, why, fix, m.file(), m.lineOf(field));
  }

  /** A finding about another object (e.g. a PodDisruptionBudget of the cluster), located at m. */
  static Finding about(
      Severity severity,
      Rule rule,
      String object,
      Manifest m,
      String field,
      String why,
      String fix) {
    return new Finding(severity, rule.id(), object, field, why, fix, m.file(), m.lineOf(field));
  }

  /** {@code file:line}, {@code standard input:line}, or empty when unknown. */
  public String location() {
    if (line <= 0) {
      return file == null ? "" : file;
    }
    return (file == null ? "standard input" : file) + ":" + line;
  }

  @Override
  public String toString() {
    String where = location();
    return severity
        + " ["
        + rule
        + "] "
        + object
        + " "
        + field
        + (where.isEmpty() ? "" : " (" + where + ")")
        + "\n    why: "
        + why
        + "\n    fix: "
        + fix;
  }
}
