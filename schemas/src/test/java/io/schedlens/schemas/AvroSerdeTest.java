package io.schedlens.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.schedlens.avro.ChangeType;
import io.schedlens.avro.ContainerStatus;
import io.schedlens.avro.PodCondition;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.PodRef;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.RequestLog;
import java.nio.ByteBuffer;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageEncoder;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;

class AvroSerdeTest {

  private static final long CREATED = Instant.parse("2023-07-19T04:20:29Z").toEpochMilli();

  @Test
  void shouldRoundTripAPodObservationWithNestedRecordsAndTimes() {
    AvroSerde<PodObservation> serde = AvroSerde.of(PodObservation.class);
    PodObservation pod =
        PodObservation.newBuilder()
            .setUid("0b5d7e52-5d1c-4c8b-9a4e-8f0d6a1b2c3d")
            .setNamespace("ai-lab")
            .setName("asr-batch-7x2kq")
            .setChangeType(ChangeType.MODIFIED)
            .setObservedAt(CREATED + 31_123)
            .setCreatedAt(CREATED)
            .setGpus(1)
            .setPriority(1000)
            .setConditions(
                List.of(
                    PodCondition.newBuilder()
                        .setType("PodScheduled")
                        .setStatus("False")
                        .setReason("Unschedulable")
                        .setLastTransitionTime(CREATED)
                        .build()))
            .setContainers(
                List.of(
                    ContainerStatus.newBuilder()
                        .setName("model")
                        .setWaitingReason("ContainerCreating")
                        .build()))
            .setLabels(Map.of("schedlens.io/arm", "treatment"))
            .build();

    byte[] bytes = serde.serialize("schedlens.pods", pod);

    assertThat(bytes[0]).isEqualTo((byte) 0xC3);
    assertThat(bytes[1]).isEqualTo((byte) 0x01);
    assertThat(serde.deserialize("schedlens.pods", bytes)).isEqualTo(pod);
  }

  @Test
  void shouldRoundTripAFieldNamedFinalAndNestedPreemptor() {
    AvroSerde<PodTimeline> serde = AvroSerde.of(PodTimeline.class);
    PodTimeline timeline =
        PodTimeline.newBuilder()
            .setUid("u-1")
            .setPreemptor(PodRef.newBuilder().setUid("u-2").setPriority(100000).build())
            .setVictims(List.of())
            .setUpdatedAt(CREATED)
            .setFinal$(true)
            .build();

    assertThat(serde.deserialize("t", serde.serialize("t", timeline))).isEqualTo(timeline);
  }

  @Test
  void shouldDecodeARecordWrittenWithAnOlderSchemaVersion() throws Exception {
    Schema older = SchemaCompatibilityTest.testSchema("older/RequestLog-without-ttft.avsc");
    GenericRecord old = new GenericData.Record(older);
    old.put("time", CREATED);
    old.put("namespace", "ai-lab");
    old.put("pod", "interactive-inference-0");
    old.put("status", 200);
    old.put("latencyMs", 41.5);
    old.put("receivedAt", CREATED);
    ByteBuffer encoded =
        new BinaryMessageEncoder<GenericRecord>(GenericData.get(), older).encode(old);
    byte[] bytes = new byte[encoded.remaining()];
    encoded.get(bytes);

    AvroSerde<RequestLog> serde = new AvroSerde<>(RequestLog.class, List.of(older));
    RequestLog decoded = serde.deserialize("schedlens.requests", bytes);

    assertThat(decoded.getPod()).isEqualTo("interactive-inference-0");
    assertThat(decoded.getLatencyMs()).isEqualTo(41.5);
    assertThat(decoded.getTtftMs()).isNull();
    assertThat(decoded.getTime()).isEqualTo(CREATED);
  }

  @Test
  void shouldRejectARecordOfAnUnknownSchemaWithAClearMessage() throws Exception {
    Schema older = SchemaCompatibilityTest.testSchema("older/RequestLog-without-ttft.avsc");
    GenericRecord old = new GenericData.Record(older);
    old.put("time", 0L);
    old.put("namespace", "n");
    old.put("pod", "p");
    old.put("receivedAt", 0L);
    ByteBuffer encoded =
        new BinaryMessageEncoder<GenericRecord>(GenericData.get(), older).encode(old);
    byte[] bytes = new byte[encoded.remaining()];
    encoded.get(bytes);

    AvroSerde<RequestLog> serde = AvroSerde.of(RequestLog.class);

    assertThatThrownBy(() -> serde.deserialize("schedlens.requests", bytes))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("schedlens.requests")
        .hasMessageContaining("known schema version");
  }

  @Test
  void shouldRejectBytesThatAreNotSingleObjectEncoded() {
    AvroSerde<RequestLog> serde = AvroSerde.of(RequestLog.class);

    assertThatThrownBy(() -> serde.deserialize("schedlens.requests", "{\"pod\":1}".getBytes()))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("not an Avro single-object encoded RequestLog");
    assertThatThrownBy(
            () -> serde.deserialize("schedlens.requests", new byte[] {(byte) 0xC3, 1, 2}))
        .isInstanceOf(SerializationException.class);
  }

  @Test
  void shouldMapNullToNullForTombstones() {
    AvroSerde<PodTimeline> serde = AvroSerde.of(PodTimeline.class);

    assertThat(serde.serialize("t", null)).isNull();
    assertThat(serde.deserialize("t", null)).isNull();
  }

  @Test
  void shouldDescribeEveryTopicWithItsSettings() {
    Topics topics = Topics.defaults();

    assertThat(topics.all())
        .extracting(Topic::name)
        .containsExactly(
            "schedlens.pods",
            "schedlens.workloads",
            "schedlens.k8s-events",
            "schedlens.experiments",
            "schedlens.gpu-samples",
            "schedlens.requests",
            "schedlens.pod-timelines",
            "schedlens.workload-timelines",
            "schedlens.preemptions",
            "schedlens.dlq",
            "schedlens.internal.to-pod",
            "schedlens.internal.by-workload",
            "schedlens.internal.by-node");
    assertThat(topics.podTimelines.configs()).containsEntry("cleanup.policy", "compact");
    assertThat(topics.pods.configs()).containsEntry("cleanup.policy", "delete");
    assertThat(topics.newTopics(3, (short) 1))
        .allSatisfy(t -> assertThat(t.numPartitions()).isEqualTo(3));
  }

  /** The schema a later version would have: {@code schema} with a field appended at the end. */
  static Schema appended(Schema schema) {
    List<Schema.Field> fields = new java.util.ArrayList<>();
    for (Schema.Field f : schema.getFields()) {
      fields.add(new Schema.Field(f, f.schema()));
    }
    fields.add(
        new Schema.Field(
            "tenant", Schema.create(Schema.Type.STRING), "added by a later version", "none"));
    return Schema.createRecord(
        schema.getName(), schema.getDoc(), schema.getNamespace(), false, fields);
  }

  /**
   * A rolling upgrade with the collector first: its records carry a newer RequestLog the streams
   * app does not know; they are read as its own version, not dead-lettered.
   */
  @Test
  void shouldReadARecordOfANewerAppendOnlyVersionAsTheCurrentOne() {
    AvroSerde<RequestLog> serde = AvroSerde.of(RequestLog.class);
    Schema newer = appended(serde.schema());
    GenericRecord r = new GenericData.Record(newer);
    r.put("time", 1_700_000_000_000L);
    r.put("namespace", "ai-lab");
    r.put("pod", "chat-0");
    r.put("service", "chat");
    r.put("route", null);
    r.put("status", 200);
    r.put("latencyMs", 40.0);
    r.put("ttftMs", 12.5);
    r.put("requestId", "req-1");
    r.put("receivedAt", 1_700_000_000_100L);
    r.put("tenant", "team-a");
    byte[] bytes;
    try {
      bytes = new BinaryMessageEncoder<GenericRecord>(GenericData.get(), newer).encode(r).array();
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }

    RequestLog read = serde.deserialize("schedlens.requests", bytes);

    assertThat(read.getPod()).isEqualTo("chat-0");
    assertThat(read.getLatencyMs()).isEqualTo(40.0);
    assertThat(read.getTtftMs()).isEqualTo(12.5);
    assertThat(read.getRequestId()).isEqualTo("req-1");
    assertThat(read.getReceivedAt()).isEqualTo(1_700_000_000_100L);
  }

  @Test
  void shouldStillRefuseARecordOfAnUnknownSchemaForATypeThatIsNotAppendOnly() {
    // TimelineState moved fields into a nested record once (SchemaMigrations): not append-only.
    AvroSerde<io.schedlens.avro.internal.TimelineState> serde =
        AvroSerde.of(io.schedlens.avro.internal.TimelineState.class);
    Schema other = appended(serde.schema());
    byte[] bytes = new byte[10 + 4];
    bytes[0] = (byte) 0xC3;
    bytes[1] = 0x01;
    long fp = org.apache.avro.SchemaNormalization.parsingFingerprint64(other);
    for (int i = 0; i < 8; i++) {
      bytes[2 + i] = (byte) (fp >>> (8 * i));
    }
    assertThatThrownBy(() -> serde.deserialize("pod-state-changelog", bytes))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("known schema version");
  }
}
