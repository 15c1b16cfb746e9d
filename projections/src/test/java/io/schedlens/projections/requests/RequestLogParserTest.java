package io.schedlens.projections.requests;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.RequestLog;
import io.schedlens.projections.InputBounds;
import io.schedlens.projections.requests.RequestLogParser.Accepted;
import io.schedlens.projections.requests.RequestLogParser.Parsed;
import io.schedlens.projections.requests.RequestLogParser.Rejected;
import java.time.Instant;
import java.util.List;
import org.apache.kafka.common.config.ConfigException;
import org.assertj.core.api.Assertions;
import org.junit.jupiter.api.Test;

class RequestLogParserTest {

  /** Lines of recorded times: any time goes (the bounds have their own tests below). */
  private final RequestLogParser parser =
      new RequestLogParser(FieldMapping.defaults(), InputBounds.anyTime());

  private RequestLog accepted(String line) {
    Parsed p = parser.parseLine(line, 42L);
    assertThat(p).isInstanceOf(Accepted.class);
    return ((Accepted) p).log();
  }

  private Rejected rejected(String line) {
    Parsed p = parser.parseLine(line, 42L);
    assertThat(p).isInstanceOf(Rejected.class);
    return (Rejected) p;
  }

  @Test
  void shouldReadAFullLineWithAnRfc3339Time() {
    RequestLog r =
        accepted(
            "{\"time\":\"2026-11-29T10:15:30.250Z\",\"namespace\":\"ai-lab\",\"pod\":\"chat-0\","
                + "\"service\":\"chat\",\"route\":\"/v1/chat/completions\",\"status\":200,"
                + "\"latency_ms\":812.5,\"ttft_ms\":95,\"request_id\":\"r-1\"}");

    assertThat(r.getTime()).isEqualTo(Instant.parse("2026-11-29T10:15:30.250Z").toEpochMilli());
    assertThat(r.getNamespace()).isEqualTo("ai-lab");
    assertThat(r.getPod()).isEqualTo("chat-0");
    assertThat(r.getService()).isEqualTo("chat");
    assertThat(r.getRoute()).isEqualTo("/v1/chat/completions");
    assertThat(r.getStatus()).isEqualTo(200);
    assertThat(r.getLatencyMs()).isEqualTo(812.5);
    assertThat(r.getTtftMs()).isEqualTo(95.0);
    assertThat(r.getRequestId()).isEqualTo("r-1");
    assertThat(r.getReceivedAt()).isEqualTo(42L);
  }

  @Test
  void shouldReadEpochMillisecondsAndEpochSecondsAndOffsets() {
    String base = "\"namespace\":\"n\",\"pod\":\"p\",\"status\":200,\"latency_ms\":1";
    assertThat(accepted("{\"time\":1764411330250," + base + "}").getTime())
        .isEqualTo(1764411330250L);
    assertThat(accepted("{\"time\":1764411330.25," + base + "}").getTime())
        .isEqualTo(1764411330250L);
    assertThat(accepted("{\"time\":\"1764411330250\"," + base + "}").getTime())
        .isEqualTo(1764411330250L);
    assertThat(accepted("{\"time\":\"2026-11-29T11:15:30.25+01:00\"," + base + "}").getTime())
        .isEqualTo(Instant.parse("2026-11-29T10:15:30.250Z").toEpochMilli());
  }

  @Test
  void shouldTakeNullOrZeroStatusAsATransportFailure() {
    String base = "\"time\":1764411330250,\"namespace\":\"n\",\"pod\":\"p\",\"latency_ms\":30000";
    assertThat(accepted("{" + base + ",\"status\":null}").getStatus()).isNull();
    assertThat(accepted("{" + base + ",\"status\":0}").getStatus()).isNull();
    assertThat(accepted("{" + base + ",\"status\":\"503\"}").getStatus()).isEqualTo(503);
  }

  @Test
  void shouldSayWhichFieldIsMissingOrWrong() {
    assertThat(rejected("{\"time\":1,\"namespace\":\"n\",\"pod\":\"p\",\"latency_ms\":1}").detail())
        .isEqualTo("missing field 'status'");
    assertThat(
            rejected(
                "{\"time\":1764411330250,\"namespace\":\"n\",\"pod\":\"p\",\"status\":200,\"latency_ms\":-3}"))
        .satisfies(
            r -> {
              assertThat(r.reason()).isEqualTo(RequestLogParser.INVALID_FIELD);
              assertThat(r.detail()).contains("latency_ms").contains("-3").contains("non-negative");
            });
    assertThat(
            rejected(
                    "{\"time\":\"yesterday\",\"namespace\":\"n\",\"pod\":\"p\",\"status\":200,\"latency_ms\":3}")
                .detail())
        .contains("'time'");
    assertThat(
            rejected(
                    "{\"time\":1764411330250,\"namespace\":\"\",\"pod\":\"p\",\"status\":200,\"latency_ms\":3}")
                .detail())
        .contains("'namespace'");
    assertThat(
            rejected(
                    "{\"time\":1764411330250,\"namespace\":\"n\",\"pod\":\"p\",\"status\":700,\"latency_ms\":3}")
                .detail())
        .contains("'status'");
    assertThat(
            rejected(
                    "{\"time\":1764411330250,\"namespace\":\"n\",\"pod\":\"p\",\"status\":200,\"latency_ms\":\"fast\"}")
                .reason())
        .isEqualTo(RequestLogParser.INVALID_FIELD);
  }

  @Test
  void shouldRejectWhatIsNotAJsonObject() {
    assertThat(rejected("{\"time\": 1,").reason()).isEqualTo(RequestLogParser.MALFORMED_JSON);
    assertThat(rejected("[1,2]").reason()).isEqualTo(RequestLogParser.NOT_AN_OBJECT);
    assertThat(rejected("\"text\"").reason()).isEqualTo(RequestLogParser.NOT_AN_OBJECT);
  }

  @Test
  void shouldFollowAFieldMappingIntoNestedObjectsAsFluentBitWritesThem() {
    RequestLogParser fluentBit =
        new RequestLogParser(
            FieldMapping.parse(
                List.of(
                    "time=date",
                    "namespace=kubernetes.namespace_name",
                    "pod=kubernetes.pod_name",
                    "latency_ms=duration_ms",
                    "status=code")),
            InputBounds.anyTime());

    Parsed p =
        fluentBit.parseLine(
            "{\"date\":1764411330.25,\"code\":502,\"duration_ms\":12,"
                + "\"kubernetes\":{\"namespace_name\":\"ai-lab\",\"pod_name\":\"chat-1\"}}",
            0L);

    assertThat(p)
        .isInstanceOfSatisfying(
            Accepted.class,
            a -> {
              assertThat(a.log().getPod()).isEqualTo("chat-1");
              assertThat(a.log().getNamespace()).isEqualTo("ai-lab");
              assertThat(a.log().getStatus()).isEqualTo(502);
              assertThat(a.log().getTime()).isEqualTo(1764411330250L);
            });
    assertThat(fluentBit.parseLine("{\"date\":1,\"code\":200,\"duration_ms\":1}", 0L))
        .isInstanceOfSatisfying(
            Rejected.class,
            r -> assertThat(r.detail()).isEqualTo("missing field 'kubernetes.namespace_name'"));
  }

  @Test
  void shouldRejectAMalformedMappingNamingTheSetting() {
    Assertions.assertThatThrownBy(() -> FieldMapping.parse(List.of("latency=duration")))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("intake.field.mapping")
        .hasMessageContaining("unknown field 'latency'");
    Assertions.assertThatThrownBy(() -> FieldMapping.parse(List.of("pod")))
        .hasMessageContaining("FIELD=PATH");
  }

  /**
   * A line with a time Kafka would refuse (more than an hour ahead), an absurdly old one, or a
   * latency no request can have is rejected on its own, with why; its neighbours are not.
   */
  @Test
  void shouldRejectTimesAndLatenciesOutOfRangeLineByLine() {
    RequestLogParser live = new RequestLogParser(FieldMapping.defaults(), InputBounds.defaults());
    long now = Instant.parse("2026-11-29T10:00:00Z").toEpochMilli();
    String ok =
        "{\"time\":\"2026-11-29T09:59:58Z\",\"namespace\":\"ai-lab\",\"pod\":\"chat-0\","
            + "\"status\":200,\"latency_ms\":%s}";
    assertThat(live.parseLine(String.format(ok, "120"), now)).isInstanceOf(Accepted.class);
    assertThat(
            live.parseLine(
                "{\"time\":\"2026-11-29T12:00:00Z\",\"namespace\":\"ai-lab\",\"pod\":\"chat-0\","
                    + "\"status\":200,\"latency_ms\":5}",
                now))
        .isInstanceOfSatisfying(
            Rejected.class,
            r -> {
              assertThat(r.reason()).isEqualTo(InputBounds.TIME_OUT_OF_RANGE);
              assertThat(r.detail()).contains("PT2H after the collector's clock");
            });
    assertThat(
            live.parseLine(
                "{\"time\":\"2026-10-01T00:00:00Z\",\"namespace\":\"ai-lab\",\"pod\":\"chat-0\","
                    + "\"status\":200,\"latency_ms\":5}",
                now))
        .isInstanceOfSatisfying(
            Rejected.class, r -> assertThat(r.reason()).isEqualTo(InputBounds.TIME_OUT_OF_RANGE));
    assertThat(live.parseLine(String.format(ok, "1e308"), now))
        .isInstanceOfSatisfying(
            Rejected.class,
            r -> {
              assertThat(r.reason()).isEqualTo(InputBounds.LATENCY_OUT_OF_RANGE);
              assertThat(r.detail()).contains("latency_ms");
            });
    assertThat(live.parseLine(String.format(ok, "-3"), now))
        .isInstanceOfSatisfying(
            Rejected.class, r -> assertThat(r.reason()).isEqualTo(RequestLogParser.INVALID_FIELD));
  }
}
