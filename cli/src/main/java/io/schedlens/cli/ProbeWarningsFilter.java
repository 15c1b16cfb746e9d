package io.schedlens.cli;

import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.filter.Filter;
import ch.qos.logback.core.spi.FilterReply;
import io.schedlens.common.kafka.KafkaReachability;

/**
 * Leaves out the Kafka client's own log lines about the reachability probe ("Connection to node -1
 * could not be established", every back-off): a command that needs Kafka says in one line that it
 * is unreachable and which setting names it ({@link KafkaReachability}). Every other client's lines
 * pass; the probe's client id is its own.
 */
public final class ProbeWarningsFilter extends Filter<ILoggingEvent> {

  private static final String MARK = "clientId=" + KafkaReachability.PROBE_CLIENT_ID;

  @Override
  public FilterReply decide(ILoggingEvent event) {
    if (event.getLoggerName().startsWith("org.apache.kafka")) {
      String message = event.getFormattedMessage();
      if (message != null && message.contains(MARK)) {
        return FilterReply.DENY;
      }
    }
    return FilterReply.NEUTRAL;
  }
}
