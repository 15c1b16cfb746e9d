package io.schedlens.collector.intake;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpHandler;
import java.io.IOException;
import java.io.OutputStream;
import java.util.stream.Collectors;

/**
 * {@code POST /v1/traces} or {@code /v1/logs}: OpenTelemetry's OTLP/HTTP, protobuf or JSON,
 * optionally gzip-encoded, walked item by item ({@link OtlpBody}) and read as request logs ({@link
 * OtlpRequests}). Its answer is OTLP's: 200, with a partial success naming the rejected spans or
 * log records (which the exporter does not retry; they are in the dead-letter topic).
 */
final class OtlpRoute implements HttpHandler, RequestLogIntake.Format {

  private final RequestLogIntake intake;
  private final OtlpBody.Signal signal;

  OtlpRoute(RequestLogIntake intake, OtlpBody.Signal signal) {
    this.intake = intake;
    this.signal = signal;
  }

  @Override
  public void handle(HttpExchange exchange) throws IOException {
    intake.serve(exchange, this);
  }

  @Override
  public String path() {
    return signal == OtlpBody.Signal.TRACES ? OtlpRequests.TRACES : OtlpRequests.LOGS;
  }

  @Override
  public RequestLogIntake.Decoding open(HttpExchange exchange) throws RequestLogIntake.Refused {
    OtlpRequests.Encoding e =
        OtlpRequests.Encoding.of(exchange.getRequestHeaders().getFirst("Content-Type"));
    if (e == null) {
      throw new RequestLogIntake.Refused(
          415, "OTLP/HTTP takes Content-Type application/x-protobuf or application/json");
    }
    return new Encoded(e);
  }

  /** A request in one of the encodings. */
  private final class Encoded implements RequestLogIntake.Decoding {
    private final OtlpRequests.Encoding encoding;

    Encoded(OtlpRequests.Encoding encoding) {
      this.encoding = encoding;
    }

    @Override
    public void walk(Body body, Items items) throws OtlpRequests.Undecodable {
      OtlpBody.walk(body, signal, encoding, intake.otlpReading(), items);
    }

    @Override
    public int answer(HttpExchange exchange, RequestLogIntake.Taken taken) throws IOException {
      RejectedLines rejected = taken.batch().rejected();
      String message =
          rejected.isEmpty()
              ? ""
              : rejected.count()
                  + " rejected (dead-lettered): "
                  + rejected.examples().stream()
                      .map(r -> "item " + r.line() + ": " + r.reason() + ": " + r.detail())
                      .limit(3)
                      .collect(Collectors.joining("; "));
      byte[] bytes =
          signal == OtlpBody.Signal.TRACES
              ? OtlpRequests.tracesAnswer(encoding, rejected.count(), message)
              : OtlpRequests.logsAnswer(encoding, rejected.count(), message);
      exchange.getResponseHeaders().set("Content-Type", encoding.contentType);
      exchange.sendResponseHeaders(200, bytes.length == 0 ? -1 : bytes.length);
      if (bytes.length > 0) {
        try (OutputStream o = exchange.getResponseBody()) {
          o.write(bytes);
        }
      }
      return 200;
    }
  }
}
