package io.schedlens.streams;

import static org.assertj.core.api.Assertions.assertThat;

import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.errors.TimeoutException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.streams.errors.StreamsException;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.junit.jupiter.api.Test;

class ThreadFailuresTest {

  /** As BrokerFaultsIT met it once: a commit after every broker of the cluster restarted. */
  private static StreamsException lostTransaction() {
    return new StreamsException(
        "Error encountered trying to commit a transaction",
        new InvalidTxnStateException(
            "The producer attempted a transactional operation in an invalid state."));
  }

  @Test
  void shouldReplaceAThreadThatFailedOnATransactionTheBrokersLostAFewTimesThenShutDown() {
    ThreadFailures failures = new ThreadFailures();
    for (int i = 0; i < ThreadFailures.MAX_REPLACED; i++) {
      assertThat(failures.handle(lostTransaction()))
          .isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
    }
    assertThat(failures.handle(lostTransaction()))
        .isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
  }

  /**
   * As BrokerFaultsIT met it again: the commit after every broker restarted, answered by the
   * coordinator with an unexpected error, which the producer reports without its type.
   */
  @Test
  void shouldReplaceAThreadWhoseCommitABrokerAnsweredWithAnUnexpectedError() {
    StreamsException commit =
        new StreamsException(
            "Error encountered trying to commit a transaction",
            new KafkaException(
                "Unhandled error in EndTxnResponse: " + Errors.UNKNOWN_SERVER_ERROR.message()));

    assertThat(new ThreadFailures().handle(commit))
        .isEqualTo(StreamThreadExceptionResponse.REPLACE_THREAD);
    assertThat(
            ThreadFailures.brokersTrouble(
                new KafkaException(
                    "Unhandled error in EndTxnResponse: " + Errors.INVALID_REQUEST.message())))
        .as("another error the producer reports the same way: a request the broker found malformed")
        .isFalse();
  }

  @Test
  void shouldShutDownOnWhatIsNotTheBrokersTrouble() {
    assertThat(
            new ThreadFailures()
                .handle(new StreamsException("bad record", new SerializationException("x"))))
        .isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
    assertThat(new ThreadFailures().handle(new IllegalStateException("a bug")))
        .isEqualTo(StreamThreadExceptionResponse.SHUTDOWN_CLIENT);
    assertThat(ThreadFailures.brokersTrouble(new StreamsException(new TimeoutException("t"))))
        .isTrue();
  }
}
