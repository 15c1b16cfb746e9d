package io.schedlens.simulator.cluster;

/** Where served requests' logs go: the collector's intake (live runs) or nowhere. */
public interface RequestSink {

  /**
   * One request log line.
   *
   * @param time when the request arrived, virtual epoch ms
   * @param status HTTP status
   * @param latencyMs time to the full answer
   * @param ttftMs time to the first token
   */
  void request(
      long time,
      String namespace,
      String pod,
      String service,
      String route,
      int status,
      double latencyMs,
      double ttftMs,
      String requestId);

  RequestSink NONE = (t, ns, pod, service, route, status, latency, ttft, id) -> {};
}
