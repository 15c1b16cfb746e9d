package io.schedlens.projections.dcgm;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.schedlens.projections.dcgm.ExpositionParser.Format;
import java.util.List;
import org.junit.jupiter.api.Test;

class ExpositionParserTest {

  @Test
  void shouldSkipHelpTypeAndCommentLinesAndBlankLines() throws Exception {
    List<ExpositionSample> s =
        ExpositionParser.parse(
            "# HELP DCGM_FI_DEV_SM_CLOCK SM clock frequency (in MHz).\n"
                + "# TYPE DCGM_FI_DEV_SM_CLOCK gauge\n"
                + "\n"
                + "# a comment\n"
                + "DCGM_FI_DEV_SM_CLOCK{gpu=\"0\"} 139\r\n",
            Format.PROMETHEUS_TEXT);

    assertThat(s)
        .singleElement()
        .satisfies(
            x -> {
              assertThat(x.name()).isEqualTo("DCGM_FI_DEV_SM_CLOCK");
              assertThat(x.labels()).containsEntry("gpu", "0");
              assertThat(x.value()).isEqualTo(139.0);
              assertThat(x.timestampMs()).isNull();
              assertThat(x.line()).isEqualTo(5);
            });
  }

  @Test
  void shouldUnescapeLabelValuesAndAcceptSpacesAndATrailingComma() throws Exception {
    ExpositionSample s =
        ExpositionParser.parse(
                "m{a=\"x\\\"y\", b = \"line\\nbreak\",c=\"back\\\\slash\",d=\"}{,=\",} 1.5e3 1700000000123",
                Format.PROMETHEUS_TEXT)
            .get(0);

    assertThat(s.labels())
        .containsEntry("a", "x\"y")
        .containsEntry("b", "line\nbreak")
        .containsEntry("c", "back\\slash")
        .containsEntry("d", "}{,=");
    assertThat(s.value()).isEqualTo(1500.0);
    assertThat(s.timestampMs()).isEqualTo(1_700_000_000_123L);
  }

  @Test
  void shouldReadSpecialValuesAndOpenMetricsSecondsAndExemplars() throws Exception {
    List<ExpositionSample> s =
        ExpositionParser.parse(
            "a NaN\nb +Inf 1700000000.5\nc -Inf\nd_total 3 # {trace_id=\"abc\"} 1\n# EOF\n",
            Format.OPENMETRICS);

    assertThat(s.get(0).value()).isNaN();
    assertThat(s.get(1).value()).isInfinite();
    assertThat(s.get(1).timestampMs()).isEqualTo(1_700_000_000_500L);
    assertThat(s.get(2).value()).isEqualTo(Double.NEGATIVE_INFINITY);
    assertThat(s.get(3).value()).isEqualTo(3.0);
  }

  @Test
  void shouldReadAQuotedUtf8MetricName() throws Exception {
    ExpositionSample s =
        ExpositionParser.parse("{\"dcgm.field\", gpu=\"0\"} 7", Format.PROMETHEUS_TEXT).get(0);

    assertThat(s.name()).isEqualTo("dcgm.field");
    assertThat(s.labels()).containsOnlyKeys("gpu");
  }

  @Test
  void shouldShareOneLabelMapPerDistinctLabelBlock() throws Exception {
    List<ExpositionSample> s =
        ExpositionParser.parse(
            "a{gpu=\"0\"} 1\nb{gpu=\"0\"} 2\nc{gpu=\"1\"} 3\n", Format.PROMETHEUS_TEXT);

    assertThat(s.get(0).labels()).isSameAs(s.get(1).labels());
    assertThat(s.get(2).labels()).isNotSameAs(s.get(0).labels());
  }

  @Test
  void shouldSayWhereAndWhyABrokenLineFails() {
    assertThatThrownBy(
            () -> ExpositionParser.parse("ok 1\nbad{gpu=\"0} 1\n", Format.PROMETHEUS_TEXT))
        .isInstanceOf(ExpositionFormatException.class)
        .hasMessageContaining("line 2")
        .hasMessageContaining("unterminated");
    assertThatThrownBy(() -> ExpositionParser.parse("m 12abc", Format.PROMETHEUS_TEXT))
        .hasMessageContaining("'12abc' is not a number");
    assertThatThrownBy(() -> ExpositionParser.parse("m 1.0d", Format.PROMETHEUS_TEXT))
        .hasMessageContaining("is not a number");
    assertThatThrownBy(() -> ExpositionParser.parse("m{a=\"\\t\"} 1", Format.PROMETHEUS_TEXT))
        .hasMessageContaining("invalid escape");
    assertThatThrownBy(() -> ExpositionParser.parse("m{a=\"1\",a=\"2\"} 1", Format.PROMETHEUS_TEXT))
        .hasMessageContaining("repeated");
    assertThatThrownBy(() -> ExpositionParser.parse("m 1 12.5", Format.PROMETHEUS_TEXT))
        .hasMessageContaining("milliseconds");
    assertThatThrownBy(() -> ExpositionParser.parse("m 1 2 3", Format.PROMETHEUS_TEXT))
        .hasMessageContaining("unexpected text");
    assertThatThrownBy(() -> ExpositionParser.parse("<html>502</html>", Format.PROMETHEUS_TEXT))
        .hasMessageContaining("line 1, column 1");
    assertThatThrownBy(() -> ExpositionParser.parse("# EOF\nm 1\n", Format.OPENMETRICS))
        .hasMessageContaining("after # EOF");
  }

  @Test
  void shouldChooseTheFormatFromTheContentType() {
    assertThat(ExpositionParser.formatOf("application/openmetrics-text; version=1.0.0"))
        .isEqualTo(Format.OPENMETRICS);
    assertThat(ExpositionParser.formatOf("text/plain; version=0.0.4"))
        .isEqualTo(Format.PROMETHEUS_TEXT);
    assertThat(ExpositionParser.formatOf(null)).isEqualTo(Format.PROMETHEUS_TEXT);
  }
}
