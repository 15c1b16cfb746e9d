package io.schedlens.kafka;

import java.io.IOException;
import java.io.Reader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import kafka.server.KafkaConfig;
import kafka.server.KafkaRaftServer;
import org.apache.kafka.common.utils.Time;

/**
 * One node of an {@link EmbeddedKafkaCluster} (broker and KRaft controller), in a JVM of its own so
 * that it can be killed as a broker process is: {@code java -cp ... KafkaNodeMain
 * server.properties}, its storage formatted beforehand. Runs until killed.
 */
public final class KafkaNodeMain {

  private KafkaNodeMain() {}

  public static void main(String[] args) throws IOException {
    Properties p = new Properties();
    try (Reader in = Files.newBufferedReader(Path.of(args[0]), StandardCharsets.UTF_8)) {
      p.load(in);
    }
    KafkaRaftServer server = new KafkaRaftServer(KafkaConfig.fromProps(p, false), Time.SYSTEM);
    server.startup();
    server.awaitShutdown();
  }
}
