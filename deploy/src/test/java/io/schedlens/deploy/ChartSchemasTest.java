package io.schedlens.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.IOException;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The schema checks refuse what the API servers would refuse, so the chart passes them honestly.
 */
class ChartSchemasTest {

  static List<String> validate(String yaml) throws IOException {
    JsonNode doc = Manifests.YAML.readTree(yaml);
    return ChartSchemas.validate(doc.path("apiVersion").asText(), doc.path("kind").asText(), doc);
  }

  static final String TOPIC =
      """
      apiVersion: kafka.strimzi.io/v1
      kind: KafkaTopic
      metadata: {name: t, labels: {strimzi.io/cluster: c}}
      spec: {topicName: t, partitions: 6, replicas: 3, config: {cleanup.policy: compact}}
      """;

  @Test
  void shouldAcceptAStrimziV1Topic() throws IOException {
    assertThat(validate(TOPIC)).isEmpty();
  }

  @Test
  void shouldRefuseTheV1beta2ApiThatStrimzi1RemovedAsTheInstallUsedToShipIt() throws IOException {
    assertThat(validate(TOPIC.replace("kafka.strimzi.io/v1", "kafka.strimzi.io/v1beta2")))
        .singleElement()
        .asString()
        .contains("Strimzi 1.x serves only kafka.strimzi.io/v1");
  }

  @Test
  void shouldRefuseAFieldStrimzisModelDoesNotHave() throws IOException {
    assertThat(validate(TOPIC.replace("partitions: 6", "partitions: 6, retention: 7d")))
        .anySatisfy(p -> assertThat(p).contains("retention"));
  }

  @Test
  void shouldRefuseWhatV1RemovedAndRequireWhatItRequires() throws IOException {
    // v1 Kafka has its nodes in KafkaNodePools: spec.kafka.replicas and storage are gone.
    String kafka =
        """
        apiVersion: kafka.strimzi.io/v1
        kind: Kafka
        metadata: {name: c}
        spec:
          kafka:
            replicas: 3
            listeners: [{name: tls, port: 9093, type: internal, tls: true}]
        """;
    assertThat(validate(kafka)).anySatisfy(p -> assertThat(p).contains("replicas"));
    assertThat(
            validate(
                """
                apiVersion: kafka.strimzi.io/v1
                kind: KafkaUser
                metadata: {name: u}
                """))
        .anySatisfy(p -> assertThat(p).contains("spec is required in v1"));
  }

  @Test
  void shouldRefuseAServiceMonitorFieldThePrometheusOperatorDoesNotKnow() throws IOException {
    String monitor =
        """
        apiVersion: monitoring.coreos.com/v1
        kind: ServiceMonitor
        metadata: {name: m}
        spec:
          selector: {matchLabels: {app: x}}
          endpoints: [{port: http, honorLabels: true}]
        """;
    assertThat(validate(monitor)).isEmpty();
    assertThat(validate(monitor.replace("honorLabels", "honourLabels")))
        .anySatisfy(p -> assertThat(p).contains("honourLabels"));
    assertThat(validate(monitor.replace("port: http", "port: 9471")))
        .as("port is a name, a string")
        .isNotEmpty();
  }

  @Test
  void shouldOrderApiVersionsAsKubernetesDoes() {
    assertThat(ChartSchemas.inRange("v1+", "v1")).isTrue();
    assertThat(ChartSchemas.inRange("v1beta2+", "v1")).isTrue();
    assertThat(ChartSchemas.inRange("v1beta2", "v1")).isFalse();
    assertThat(ChartSchemas.inRange("v1alpha1-v1beta2", "v1")).isFalse();
    assertThat(ChartSchemas.rank("v1beta1")).isLessThan(ChartSchemas.rank("v1beta2"));
    assertThat(ChartSchemas.rank("v1beta2")).isLessThan(ChartSchemas.rank("v1"));
    assertThat(ChartSchemas.rank("v1")).isLessThan(ChartSchemas.rank("v2alpha1"));
  }
}
