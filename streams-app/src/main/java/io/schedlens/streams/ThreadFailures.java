package io.schedlens.streams;

import java.util.concurrent.atomic.AtomicInteger;
import org.apache.kafka.common.errors.InvalidTxnStateException;
import org.apache.kafka.common.errors.RetriableException;
import org.apache.kafka.common.errors.TransactionAbortedException;
import org.apache.kafka.common.errors.UnknownServerException;
import org.apache.kafka.common.protocol.Errors;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What becomes of a stream thread that failed. A transaction the brokers lost while they were away
 * (every broker of the cluster restarted: {@code InvalidTxnStateException}, an aborted transaction,
 * a retriable error past the client's retries, a broker's unexpected error on a transaction
 * request) is transient: the thread is replaced, its tasks start again from their last committed
 * transaction and nothing is counted twice (exactly-once). Anything else, or more than {@link
 * #MAX_REPLACED} such failures in the life of the process, shuts the client down so that the pod
 * restarts.
 */
final class ThreadFailures implements StreamsUncaughtExceptionHandler {

  private static final Logger log = LoggerFactory.getLogger(ThreadFailures.class);

  static final int MAX_REPLACED = 3;

  private final AtomicInteger replaced = new AtomicInteger();

  @Override
  public StreamThreadExceptionResponse handle(Throwable e) {
    if (brokersTrouble(e) && replaced.incrementAndGet() <= MAX_REPLACED) {
      log.warn(
          "stream thread failed on a transaction the brokers lost ({}); replacing it ({} of {})",
          e.toString(),
          replaced.get(),
          MAX_REPLACED);
      return StreamThreadExceptionResponse.REPLACE_THREAD;
    }
    log.error("stream thread failed; shutting down so that the pod restarts", e);
    return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
  }

  /** Whether a failure is the brokers' transient trouble rather than the app's. */
  static boolean brokersTrouble(Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause() == t ? null : t.getCause()) {
      if (t instanceof InvalidTxnStateException
          || t instanceof TransactionAbortedException
          || t instanceof RetriableException
          || t instanceof UnknownServerException
          || brokerErrorOnTransaction(t)) {
        return true;
      }
    }
    return false;
  }

  /**
   * A broker's unexpected error (UNKNOWN_SERVER_ERROR) in answer to a transaction request. The
   * producer's transaction manager reports it without its type, as {@code KafkaException("Unhandled
   * error in EndTxnResponse: <the error's message>")} (likewise for the other transaction
   * requests), so the message is all there is to tell it by. Met by BrokerFaultsIT: a commit sent
   * as the restarted coordinator was fencing the transaction's epoch (its timeout passed while
   * every broker was away) failed on the broker with "Preparing transaction state transition to
   * ONGOING while it already a pending state PREPARE_EPOCH_FENCE".
   */
  static boolean brokerErrorOnTransaction(Throwable t) {
    String m = t.getMessage();
    return m != null
        && m.startsWith("Unhandled error in ")
        && m.endsWith(Errors.UNKNOWN_SERVER_ERROR.message());
  }
}
