package io.schedlens.collector.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.collector.CollectorMetrics;
import io.schedlens.projections.records.Outgoing;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The send buffer holds, while Kafka is away, at most its bytes, whatever the record sizes. */
class KafkaSinkBoundTest {

  static Outgoing record(int valueBytes, int n) {
    return new Outgoing(
        "schedlens.requests",
        "intake",
        ("key-" + n).getBytes(StandardCharsets.UTF_8),
        new byte[valueBytes],
        0L,
        null,
        "ai-lab/chat-" + n,
        false);
  }

  @Test
  void shouldRefuseRecordsPastItsBytesLongBeforeItsRecordCount() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      port = s.getLocalPort();
    }
    CollectorMetrics metrics = new CollectorMetrics();
    long capacityBytes = 1L << 20;
    try (KafkaSink sink =
        new KafkaSink(
            Map.of("bootstrap.servers", "127.0.0.1:" + port), 200_000, capacityBytes, metrics)) {
      int taken = 0;
      for (int i = 0; i < 200; i++) {
        if (sink.offer(record(64 * 1024, i))) {
          taken++;
        }
      }
      // 64 KiB lines: 15 fit in 1 MiB (the pump may hold one more out of the queue).
      assertThat(taken).isBetween(15, 16);
      assertThat(sink.bufferedBytes()).isLessThanOrEqualTo(capacityBytes);
      assertThat(sink.saturated()).as("the intake answers 503").isTrue();
      assertThat(metrics.bufferOverflows.labelValues("intake").get()).isEqualTo(200 - taken);
      // All or nothing for a batch that does not fit.
      assertThat(sink.offerAll("intake", List.of(record(10, 1), record(10, 2)))).isTrue();
      assertThat(sink.offerAll("intake", List.of(record(600_000, 3), record(600_000, 4))))
          .isFalse();
    }
  }
}
