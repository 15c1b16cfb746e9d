package io.schedlens.schemas;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.PodTimeline;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import org.apache.avro.LogicalTypes;
import org.apache.avro.Schema;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumReader;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.DecoderFactory;
import org.apache.avro.io.EncoderFactory;
import org.apache.avro.specific.SpecificDatumWriter;
import org.junit.jupiter.api.Test;

class OutputSchemasTest {

  @Test
  void shouldTypeEveryTimeFieldAsTimestampMillisAndNothingElse() {
    List<String> timestamps = new ArrayList<>();
    List<String> longs = new ArrayList<>();
    for (Schema s : List.of(OutputSchemas.podTimeline(), OutputSchemas.workloadTimeline())) {
      walk(s, s.getName(), timestamps, longs, new ArrayList<>());
    }

    assertThat(timestamps)
        .contains(
            "PodTimeline.createdAt",
            "PodTimeline.updatedAt",
            "Disruption.at",
            "ServiceInterval.start",
            "ServiceInterval.end",
            "Recovery.firstOkAt",
            "ReplicaPoint.at")
        .allSatisfy(f -> assertThat(f).doesNotEndWith("Ms"));
    // durations and counters stay plain longs
    assertThat(longs)
        .contains("PodTimeline.pendingMs", "PodTimeline.requests", "ServiceInterval.durationMs")
        .noneMatch(f -> f.endsWith("At") || f.endsWith(".at"));
    assertThat(OutputSchemas.preemption().getField("at").schema().getLogicalType())
        .isEqualTo(LogicalTypes.timestampMillis());
  }

  @Test
  void shouldWriteTheSameBytesAsTheGeneratedClass() throws Exception {
    PodTimeline t = PodTimeline.newBuilder().setUid("u-1").setUpdatedAt(1_764_000_000_123L).build();
    t.setCreatedAt(1_764_000_000_000L);
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    var enc = EncoderFactory.get().binaryEncoder(bytes, null);
    new SpecificDatumWriter<PodTimeline>(PodTimeline.class).write(t, enc);
    enc.flush();

    // read back with the published schema and no conversions: the longs come back as they were
    GenericRecord r =
        new GenericDatumReader<GenericRecord>(
                OutputSchemas.podTimeline(), OutputSchemas.podTimeline(), new GenericData())
            .read(null, DecoderFactory.get().binaryDecoder(bytes.toByteArray(), null));
    assertThat(r.get("createdAt")).isEqualTo(1_764_000_000_000L);
    assertThat(r.get("updatedAt")).isEqualTo(1_764_000_000_123L);
  }

  private static void walk(
      Schema s, String owner, List<String> ts, List<String> longs, List<String> seen) {
    switch (s.getType()) {
      case RECORD -> {
        if (seen.contains(s.getFullName())) {
          return;
        }
        seen.add(s.getFullName());
        for (Schema.Field f : s.getFields()) {
          Schema fs = f.schema();
          for (Schema b : fs.isUnion() ? fs.getTypes() : List.of(fs)) {
            if (b.getType() == Schema.Type.LONG) {
              (b.getLogicalType() != null ? ts : longs).add(s.getName() + "." + f.name());
            } else {
              walk(b, s.getName(), ts, longs, seen);
            }
          }
        }
      }
      case ARRAY -> walk(s.getElementType(), owner, ts, longs, seen);
      case MAP -> walk(s.getValueType(), owner, ts, longs, seen);
      default -> {}
    }
  }
}
