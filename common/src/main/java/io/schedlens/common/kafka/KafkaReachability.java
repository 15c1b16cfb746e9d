package io.schedlens.common.kafka;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.kafka.clients.CommonClientConfigs;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.DescribeClusterOptions;

/**
 * For commands that need Kafka to do anything at all (export, report --from kafka): ask the cluster
 * once, within a bound, and say which address did not answer and which setting names it, instead of
 * a minute of client retries and network warnings.
 */
public final class KafkaReachability {

  /** Kafka did not answer at the configured address. */
  public static final class UnreachableException extends RuntimeException {
    UnreachableException(String message, Throwable cause) {
      super(message, cause);
    }
  }

  /**
   * The client id of the probe's admin client: its connection warnings are the probe's business
   * (the launcher's logging leaves them out, see the cli's ProbeWarningsFilter), the one line it
   * throws says what went wrong.
   */
  public static final String PROBE_CLIENT_ID = "schedlens-reachability-probe";

  private KafkaReachability() {}

  public static void require(Map<String, Object> clientSettings, Duration timeout) {
    Map<String, Object> c = new HashMap<>(clientSettings);
    c.put(AdminClientConfig.CLIENT_ID_CONFIG, PROBE_CLIENT_ID);
    int ms = (int) timeout.toMillis();
    c.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, ms);
    c.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, ms);
    c.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 2000);
    Object bootstrap = c.get(CommonClientConfigs.BOOTSTRAP_SERVERS_CONFIG);
    try (Admin admin = Admin.create(c)) {
      admin
          .describeCluster(new DescribeClusterOptions().timeoutMs(ms))
          .nodes()
          .get(ms + 1000L, TimeUnit.MILLISECONDS);
    } catch (ExecutionException | TimeoutException e) {
      Throwable cause = e instanceof ExecutionException ? e.getCause() : e;
      throw new UnreachableException(
          "Kafka unreachable at "
              + bootstrap
              + " (no answer within "
              + timeout.toSeconds()
              + " s: "
              + cause.getClass().getSimpleName()
              + "); set KAFKA_BOOTSTRAP_SERVERS or --kafka bootstrap.servers=HOST:PORT to a"
              + " reachable broker (and KAFKA_SECURITY_PROTOCOL etc. if it needs TLS or SASL)",
          cause);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new UnreachableException("interrupted while asking Kafka at " + bootstrap, e);
    }
  }
}
