package io.schedlens.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.internal.PodsOfName;
import io.schedlens.avro.internal.TimelineState;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.message.BinaryMessageEncoder;
import org.junit.jupiter.api.Test;

/**
 * A state written before a move of fields into nested records keeps every moved field: plain schema
 * resolution would read it without complaint and drop them (a pod's facts told again, its
 * preemption published twice).
 */
class SchemaMigrationsTest {

  /** A pod's state as TimelineState {@code version} had it, with its bookkeeping at the top. */
  static GenericRecord flatState(Schema version) {
    GenericData.Record r = new GenericData.Record(version);
    for (Schema.Field f : version.getFields()) {
      if (f.hasDefaultValue()) {
        r.put(f.name(), GenericData.get().getDefaultValue(f));
      }
    }
    r.put("uid", "u-1");
    r.put("workloadFacts", new ArrayList<>(List.of("member", "preempted@1000")));
    r.put("observed", new ArrayList<>(List.of("pending")));
    if (version.getField("nodeFactsSent") != null) {
      r.put("nodeFactsSent", new ArrayList<>(List.of("bound:gpu-node-1", "asked")));
    }
    if (version.getField("memberSentHash") != null) {
      r.put("memberSentHash", 42L);
    }
    if (version.getField("firstInputAt") != null) {
      r.put("firstInputAt", 1000L);
    }
    r.put("namespace", "ai-lab");
    r.put("createdAt", 500L);
    r.put("requests", 7L);
    r.put("gone", true);
    Schema ref =
        version.getField("preemptor").schema().getTypes().stream()
            .filter(t -> t.getType() == Schema.Type.RECORD)
            .findFirst()
            .orElseThrow();
    GenericData.Record preemptor = new GenericData.Record(ref);
    for (Schema.Field f : ref.getFields()) {
      if (f.hasDefaultValue()) {
        preemptor.put(f.name(), GenericData.get().getDefaultValue(f));
      }
    }
    preemptor.put("uid", "u-chat");
    r.put("preemptor", preemptor);
    r.put("preemptionEmitted", true);
    r.put("linkedQuality", 3);
    r.put("detailsOwed", new ArrayList<>(List.of("u-victim|ai-lab/asr-0")));
    return r;
  }

  static byte[] encode(Schema schema, GenericRecord r) throws Exception {
    ByteBuffer b = new BinaryMessageEncoder<GenericRecord>(GenericData.get(), schema).encode(r);
    byte[] out = new byte[b.remaining()];
    b.get(out);
    return out;
  }

  @Test
  void shouldMoveTheBookkeepingOfEveryVersionBeforeTheMoveIntoItsRecord() throws Exception {
    SchemaMigrations.Migration m = SchemaMigrations.of("TimelineState").orElseThrow();
    List<Schema> versions = SchemaHistory.versionsOf("TimelineState");
    assertThat(versions).hasSizeGreaterThan(m.lastBefore());
    AvroSerde<TimelineState> serde = AvroSerde.of(TimelineState.class);
    for (Schema version : versions.subList(0, m.lastBefore())) {
      TimelineState s = serde.deserialize("", encode(version, flatState(version)));
      String v = "v" + (versions.indexOf(version) + 1);
      assertThat(s.getUid()).as(v).isEqualTo("u-1");
      assertThat(s.getIdentity().getNamespace()).as(v).isEqualTo("ai-lab");
      assertThat(s.getLifecycle().getCreatedAt()).as(v).isEqualTo(500L);
      assertThat(s.getLifecycle().getGone()).as(v).isTrue();
      assertThat(s.getServing().getRequests()).as(v).isEqualTo(7L);
      assertThat(s.getDisruption().getPreemptor().getUid()).as(v).isEqualTo("u-chat");
      assertThat(s.getBookkeeping().getWorkloadFacts())
          .as(v)
          .containsExactly("member", "preempted@1000");
      assertThat(s.getBookkeeping().getObserved()).as(v).containsExactly("pending");
      assertThat(s.getBookkeeping().getPreemptionEmitted()).as(v).isTrue();
      assertThat(s.getBookkeeping().getLinkedQuality()).as(v).isEqualTo(3);
      assertThat(s.getBookkeeping().getDetailsOwed())
          .as(v)
          .containsExactly("u-victim|ai-lab/asr-0");
      if (version.getField("nodeFactsSent") != null) {
        assertThat(s.getBookkeeping().getNodeFactsSent())
            .as(v)
            .containsExactly("bound:gpu-node-1", "asked");
      }
    }
  }

  @Test
  void shouldMoveTheBookkeepingOfEveryPodOfANameWrittenBeforeTheMove() throws Exception {
    SchemaMigrations.Migration m = SchemaMigrations.of("PodsOfName").orElseThrow();
    Schema before = m.lastBeforeSchema();
    Schema pod = before.getField("pods").schema().getElementType();
    GenericData.Record name = new GenericData.Record(before);
    for (Schema.Field f : before.getFields()) {
      if (f.hasDefaultValue()) {
        name.put(f.name(), GenericData.get().getDefaultValue(f));
      }
    }
    name.put("pods", new ArrayList<>(List.of(flatState(pod), flatState(pod))));
    PodsOfName read = AvroSerde.of(PodsOfName.class).deserialize("", encode(before, name));
    assertThat(read.getPods()).hasSize(2);
    assertThat(read.getPods())
        .allSatisfy(
            s -> {
              assertThat(s.getBookkeeping().getPreemptionEmitted()).isTrue();
              assertThat(s.getBookkeeping().getMemberSentHash()).isEqualTo(42L);
              assertThat(s.getBookkeeping().getFirstInputAt()).isEqualTo(1000L);
            });
  }

  @Test
  void shouldMoveTheFieldsBackOutAsTheLastVersionBeforeHadThem() throws Exception {
    SchemaMigrations.Migration m = SchemaMigrations.of("TimelineState").orElseThrow();
    Schema before = m.lastBeforeSchema();
    GenericRecord flat = flatState(before);
    GenericRecord nested = m.forward(flat, TimelineState.getClassSchema());
    assertThat(((GenericRecord) nested.get("bookkeeping")).get("linkedQuality")).isEqualTo(3);
    assertThat(((GenericRecord) nested.get("lifecycle")).get("createdAt")).isEqualTo(500L);
    assertThat(m.backward(nested)).isEqualTo(flat);
  }
}
