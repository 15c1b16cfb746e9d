package io.schedlens.check;

/**
 * One thing the check found: how bad, which object and field, why it matters, how to fix it.
 *
 * @param object {@code Kind namespace/name}
 * @param field the field path, e.g. {@code spec.template.spec.containers[server].resources}
 */
public record Finding(
    Severity severity, String rule, String object, String field, String why, String fix) {

  public enum Severity {
    ERROR,
    WARNING
  }

  @Override
  public String toString() {
    return severity
        + " ["
        + rule
        + "] "
        + object
        + " "
        + field
        + "\n    why: "
        + why
        + "\n    fix: "
        + fix;
  }
}
