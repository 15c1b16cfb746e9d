package io.schedlens.collector.intake;

import io.schedlens.avro.RequestLog;

/**
 * Where a walk through a body gives what it finds, one item at a time, so that no walk holds more
 * than the item it is on: the request logs it could read, the items it could not (with why), and
 * the entries that carry no request (an OTLP resource or scope, a span that is not a server's),
 * which count towards the items a request may carry all the same.
 */
interface Items {

  /** A usable item. */
  void accepted(RequestLog log);

  /**
   * An item that cannot be used, its raw bytes {@code raw[from, to)}.
   *
   * @param item its number in the body: the line, the array element, the span or log record
   */
  void rejected(int item, String reason, String detail, Body raw, int from, int to);

  /** An entry that carries no request: nothing to send, but an item to count. */
  void passedOver();
}
