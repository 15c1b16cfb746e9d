package io.schedlens.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.io.InputStream;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.specific.SpecificData;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class SchemaCompatibilityTest {

  static List<String> wireTypes() {
    return SchemaHistory.allTypes();
  }

  @ParameterizedTest
  @MethodSource("wireTypes")
  void shouldRecordTheCurrentSchemaInTheHistory(String name) throws Exception {
    Schema current = currentSchema(name);
    List<Schema> versions = SchemaHistory.versionsOf(name);

    assertThat(versions)
        .as(
            "the current %s schema must be recorded: run `mvn -q -pl schemas -am install"
                + " -DskipTests && mvn -q -pl schemas exec:java` and commit the new file",
            name)
        .contains(current);
  }

  @ParameterizedTest
  @MethodSource("wireTypes")
  void shouldStayBackwardAndForwardCompatibleWithEveryRecordedVersion(String name)
      throws Exception {
    Schema current = currentSchema(name);
    for (Schema previous : SchemaHistory.versionsOf(name)) {
      assertThat(MutualCompatibility.problems(current, previous))
          .as("%s against a recorded version", name)
          .isEmpty();
    }
  }

  static List<String> inputTypes() {
    return SchemaHistory.INPUT_TYPES;
  }

  /**
   * The rolling-upgrade rule: an input type only grows by fields appended at the end, so a streams
   * app older than the collector reads its records (AvroSerde). A change that inserts, moves or
   * retypes a field of an input fails here.
   */
  @ParameterizedTest
  @MethodSource("inputTypes")
  void shouldOnlyAppendFieldsToAnInputType(String name) throws Exception {
    List<Schema> versions = new java.util.ArrayList<>(SchemaHistory.versionsOf(name));
    versions.add(currentSchema(name));
    assertThat(SchemaHistory.appendOnly(versions))
        .as(
            "%s: each version must be the one before with fields appended at the end, with"
                + " defaults (docs/operators/streams-app.md, upgrades)",
            name)
        .isTrue();
  }

  @Test
  void shouldTellAnInsertedOrRetypedFieldFromAnAppendedOne() throws Exception {
    Schema current = currentSchema("RequestLog");
    Schema older = testSchema("older/RequestLog-without-ttft.avsc");
    Schema retyped = testSchema("incompatible/PodObservation-gpus-as-string.avsc");

    assertThat(SchemaHistory.appendOnly(List.of(current, current))).isTrue();
    assertThat(SchemaHistory.appendOnly(List.of(current, AvroSerdeTest.appended(current))))
        .isTrue();
    // ttftMs was inserted before requestId, not appended: compatible, but not append-only
    assertThat(SchemaHistory.appendOnly(List.of(older, current))).isFalse();
    assertThat(SchemaHistory.appendOnly(List.of(currentSchema("PodObservation"), retyped)))
        .isFalse();
  }

  @Test
  void shouldRejectAChangeThatRetypesAField() throws Exception {
    Schema current = currentSchema("PodObservation");
    Schema retyped = testSchema("incompatible/PodObservation-gpus-as-string.avsc");

    assertThat(MutualCompatibility.problems(retyped, current))
        .anySatisfy(p -> assertThat(p).startsWith("backward").contains("/fields/"))
        .anySatisfy(p -> assertThat(p).startsWith("forward"));
  }

  @Test
  void shouldRejectANewFieldWithoutDefaultAsNotBackwardCompatible() throws Exception {
    Schema current = currentSchema("RequestLog");
    Schema withRequiredField = testSchema("incompatible/RequestLog-required-field.avsc");

    assertThat(MutualCompatibility.problems(withRequiredField, current))
        .singleElement()
        .satisfies(
            p -> assertThat(p).startsWith("backward").contains("READER_FIELD_MISSING_DEFAULT"));
  }

  @Test
  void shouldAcceptANewOptionalFieldWithADefault() throws Exception {
    Schema current = currentSchema("RequestLog");
    Schema withOptionalField = testSchema("older/RequestLog-without-ttft.avsc");

    assertThat(MutualCompatibility.problems(current, withOptionalField)).isEmpty();
  }

  /** The published schema: for an output record, with its times as timestamp-millis. */
  static Schema currentSchema(String name) throws ClassNotFoundException {
    return OutputSchemas.published(name);
  }

  @ParameterizedTest
  @MethodSource("wireTypes")
  void shouldKeepTheGeneratedClassOnTheWireOfThePublishedSchema(String name) throws Exception {
    Schema generated = SpecificData.get().getSchema(Class.forName(SchemaHistory.className(name)));

    assertThat(OutputHeaders.fingerprint(currentSchema(name)))
        .as("logical types leave the single-object fingerprint of %s as it was", name)
        .isEqualTo(OutputHeaders.fingerprint(generated));
    assertThat(MutualCompatibility.problems(generated, currentSchema(name))).isEmpty();
  }

  static Schema testSchema(String resource) throws IOException {
    try (InputStream in =
        SchemaCompatibilityTest.class.getClassLoader().getResourceAsStream(resource)) {
      assertThat(in).as(resource).isNotNull();
      return new Schema.Parser().parse(in);
    }
  }
}
