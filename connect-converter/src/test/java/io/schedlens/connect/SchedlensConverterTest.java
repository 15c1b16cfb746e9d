package io.schedlens.connect;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.schedlens.avro.Disruption;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadRef;
import io.schedlens.schemas.AvroSerde;
import io.schedlens.schemas.OutputHeaders;
import io.schedlens.schemas.SchemaHistory;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Date;
import java.util.List;
import java.util.Map;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.connect.data.SchemaAndValue;
import org.apache.kafka.connect.data.Struct;
import org.apache.kafka.connect.data.Timestamp;
import org.apache.kafka.connect.errors.DataException;
import org.junit.jupiter.api.Test;

class SchedlensConverterTest {

  static final long T = 1_764_000_000_000L;

  static SchedlensConverter converter() {
    SchedlensConverter c = new SchedlensConverter();
    c.configure(Map.of(), false);
    return c;
  }

  static PodTimeline timeline() {
    PodTimeline t = PodTimeline.newBuilder().setUid("u-1").setUpdatedAt(T + 9).build();
    t.setNamespace("ai-lab");
    t.setWorkload(new WorkloadRef("Job", "asr-batch"));
    t.setCreatedAt(T);
    t.setPendingMs(1_500L);
    t.setPendingReasons(Map.of("Insufficient nvidia.com/gpu", 3));
    t.setVictims(List.of("u-2"));
    t.setDisruption(new Disruption("preemption", T + 5, "ai-lab/chat-1"));
    t.setFinal$(true);
    return t;
  }

  @Test
  void shouldGiveAStructWithTimesAsConnectTimestampsAndDurationsAsLongs() {
    byte[] bytes = AvroSerde.of(PodTimeline.class).serialize("t", timeline());

    SchemaAndValue sv = converter().toConnectData("schedlens.pod-timelines", bytes);

    Struct s = (Struct) sv.value();
    assertThat(sv.schema().name()).isEqualTo("io.schedlens.avro.PodTimeline");
    assertThat(sv.schema().field("createdAt").schema().name()).isEqualTo(Timestamp.LOGICAL_NAME);
    assertThat(s.get("createdAt")).isEqualTo(new Date(T));
    assertThat(s.get("updatedAt")).isEqualTo(new Date(T + 9));
    assertThat(s.get("pendingMs")).isEqualTo(1_500L);
    assertThat(s.get("scheduledAt")).isNull();
    assertThat(s.getStruct("workload").getString("name")).isEqualTo("asr-batch");
    assertThat(s.getStruct("disruption").get("at")).isEqualTo(new Date(T + 5));
    assertThat(s.getMap("pendingReasons")).containsEntry("Insufficient nvidia.com/gpu", 3);
    assertThat(s.getArray("victims")).containsExactly("u-2");
    assertThat(s.getBoolean("final")).isTrue();
    s.validate();
  }

  @Test
  void shouldEncodeAStructBackToTheSameRecord() {
    AvroSerde<PodTimeline> serde = AvroSerde.of(PodTimeline.class);
    SchedlensConverter c = converter();
    SchemaAndValue sv = c.toConnectData("t", serde.serialize("t", timeline()));

    byte[] again = c.fromConnectData("t", sv.schema(), sv.value());

    assertThat(serde.deserialize("t", again)).isEqualTo(timeline());
  }

  @Test
  void shouldDecodeARecordWrittenWithTheFirstRecordedSchema() throws Exception {
    Schema v1 = SchemaHistory.versionsOf("PodTimeline").get(0);
    GenericRecord old = new GenericData.Record(v1);
    for (Schema.Field f : v1.getFields()) {
      if (f.hasDefaultValue()) {
        old.put(f.pos(), GenericData.get().getDefaultValue(f));
      }
    }
    old.put("uid", "u-old");
    old.put("updatedAt", T);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.write(new byte[] {(byte) 0xC3, 0x01});
    out.write(
        ByteBuffer.allocate(8)
            .order(ByteOrder.LITTLE_ENDIAN)
            .putLong(OutputHeaders.fingerprint(v1))
            .array());
    BinaryEncoder enc = EncoderFactory.get().binaryEncoder(out, null);
    new GenericDatumWriter<Object>(v1).write(old, enc);
    enc.flush();

    Struct s = (Struct) converter().toConnectData("t", out.toByteArray()).value();

    assertThat(s.getString("uid")).isEqualTo("u-old");
    assertThat(s.get("updatedAt")).isEqualTo(new Date(T));
    assertThat(s.getString("application")).as("a field added since: its default").isNull();
  }

  @Test
  void shouldSayWhatIsWrongWithBytesThatAreNotASchedlensRecord() {
    assertThatThrownBy(() -> converter().toConnectData("other", "{\"a\":1}".getBytes()))
        .isInstanceOf(DataException.class)
        .hasMessageContaining("not in Avro single-object encoding");
    byte[] unknown = new byte[12];
    unknown[0] = (byte) 0xC3;
    unknown[1] = 0x01;
    assertThatThrownBy(() -> converter().toConnectData("t", unknown))
        .hasMessageContaining("fingerprint 0000000000000000")
        .hasMessageContaining("newer schedlens");
  }

  @Test
  void shouldReadKeysAsStrings() {
    SchedlensConverter keys = new SchedlensConverter();
    keys.configure(Map.of(), true);

    assertThat(keys.toConnectData("t", "ai-lab/Job/asr".getBytes()).value())
        .isEqualTo("ai-lab/Job/asr");
  }
}
