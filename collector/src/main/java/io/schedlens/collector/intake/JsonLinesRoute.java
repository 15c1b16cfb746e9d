package io.schedlens.collector.intake;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import io.schedlens.common.http.HttpEndpoint;
import java.io.IOException;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * {@code POST /v1/request-logs}: request logs as JSON lines or a JSON array ({@link
 * JsonLinesBody}), optionally gzip-encoded. Answered 202 with the counts of accepted and rejected
 * lines once Kafka has acknowledged them (each rejected line is in the dead-letter topic with a
 * reason, and the first few are listed with their line number and why: a line whose time or latency
 * is out of range is rejected on its own, its neighbours accepted), or 400 when no line was usable.
 */
final class JsonLinesRoute
    implements HttpHandler, RequestLogIntake.Format, RequestLogIntake.Decoding {

  static final String PATH = "/v1/request-logs";

  private final RequestLogIntake intake;

  JsonLinesRoute(RequestLogIntake intake) {
    this.intake = intake;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    intake.serve(exchange, this);
  }

  @Override
  public String path() {
    return PATH;
  }

  /** Any content type: shippers send application/json, application/x-ndjson or none. */
  @Override
  public RequestLogIntake.Decoding open(HttpExchange exchange) {
    return this;
  }

  @Override
  public void walk(Body body, Items items) {
    JsonLinesBody.walk(body, intake.maxLine(), intake.parser(), intake.now(), items);
  }

  @Override
  public int answer(HttpExchange exchange, RequestLogIntake.Taken taken) throws IOException {
    IntakeBatch batch = taken.batch();
    RejectedLines rejected = batch.rejected();
    Map<String, Object> answer = new LinkedHashMap<>();
    answer.put("accepted", batch.accepted());
    answer.put("rejected", rejected.count());
    if (!taken.delivered()) {
      // Kafka is slower than intake.ack.timeout: the lines wait in the send buffer.
      answer.put("delivered", false);
    }
    if (batch.ack().refused() > 0) {
      answer.put(
          "refused",
          Map.of(
              "lines",
              batch.ack().refused(),
              "reason",
              String.valueOf(batch.ack().firstError()),
              "what",
              "Kafka refused these lines for good; sending them again will not help"));
    }
    if (!rejected.isEmpty()) {
      answer.put("rejectedByReason", rejected.byReason());
      answer.put(
          "errors",
          rejected.examples().stream()
              .map(r -> Map.of("line", r.line(), "reason", r.reason(), "detail", r.detail()))
              .toList());
    }
    int code = batch.accepted() == 0 && !rejected.isEmpty() ? 400 : 202;
    HttpEndpoint.respondJson(exchange, code, answer);
    return code;
  }
}
