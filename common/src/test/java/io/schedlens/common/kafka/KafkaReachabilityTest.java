package io.schedlens.common.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.net.InetAddress;
import java.net.ServerSocket;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class KafkaReachabilityTest {

  @Test
  void shouldNameTheAddressAndTheSettingWhenKafkaDoesNotAnswer() throws Exception {
    int port;
    try (ServerSocket s = new ServerSocket(0, 1, InetAddress.getByName("127.0.0.1"))) {
      port = s.getLocalPort();
    }
    long start = System.nanoTime();
    assertThatThrownBy(
            () ->
                KafkaReachability.require(
                    Map.of("bootstrap.servers", "127.0.0.1:" + port), Duration.ofSeconds(2)))
        .isInstanceOf(KafkaReachability.UnreachableException.class)
        .hasMessageContaining("Kafka unreachable at 127.0.0.1:" + port)
        .hasMessageContaining("KAFKA_BOOTSTRAP_SERVERS");
    assertThat((System.nanoTime() - start) / 1_000_000).as("within its bound").isLessThan(10_000);
  }
}
