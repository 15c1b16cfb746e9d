package io.schedlens.schemas;

import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.SchemaCompatibility;
import org.apache.avro.SchemaCompatibility.SchemaCompatibilityType;
import org.apache.avro.SchemaCompatibility.SchemaPairCompatibility;

/**
 * Backward and forward ("full") compatibility between two versions of a schema, as Avro's schema
 * resolution defines it. Backward: a reader on the new schema reads what the old one wrote (the
 * streams app reads old records after an upgrade). Forward: a reader on the old schema reads what
 * the new one writes (an old warehouse loader or consumer keeps working during a rollout).
 */
public final class MutualCompatibility {

  private MutualCompatibility() {}

  /** Human-readable incompatibilities between the two versions; empty when fully compatible. */
  public static List<String> problems(Schema current, Schema previous) {
    List<String> problems = new ArrayList<>();
    describe(
        "backward (new reads old)",
        SchemaCompatibility.checkReaderWriterCompatibility(current, previous),
        problems);
    describe(
        "forward (old reads new)",
        SchemaCompatibility.checkReaderWriterCompatibility(previous, current),
        problems);
    return problems;
  }

  private static void describe(String direction, SchemaPairCompatibility result, List<String> out) {
    if (result.getType() == SchemaCompatibilityType.COMPATIBLE) {
      return;
    }
    result
        .getResult()
        .getIncompatibilities()
        .forEach(
            i ->
                out.add(
                    direction
                        + ": "
                        + i.getType()
                        + " at "
                        + i.getLocation()
                        + " - "
                        + i.getMessage()));
  }
}
