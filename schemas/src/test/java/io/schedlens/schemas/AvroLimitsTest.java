package io.schedlens.schemas;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.schedlens.avro.DeadLetter;
import io.schedlens.avro.PodTimeline;
import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.AbstractMap;
import java.util.AbstractSet;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;
import org.apache.avro.Schema;
import org.apache.avro.SchemaNormalization;
import org.apache.avro.generic.GenericData;
import org.apache.avro.generic.GenericDatumWriter;
import org.apache.avro.generic.GenericRecord;
import org.apache.avro.io.BinaryEncoder;
import org.apache.avro.io.EncoderFactory;
import org.apache.kafka.common.errors.SerializationException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Every input topic's serde holds what it reads to {@link AvroLimits}: a record over the size
 * bound, one claiming a 600 MB string in a few bytes, one claiming a billion items, a real string
 * over the string limit and a real collection over the collection limit are each an {@link
 * AvroLimits.OverLimit}, never an {@link OutOfMemoryError}; a record within them still decodes. A
 * record whose collections hold collections is walked before it is decoded, so that a claim inside
 * is held to the bytes it has.
 */
class AvroLimitsTest {

  static Stream<Arguments> inputs() {
    Topics t = Topics.defaults();
    return Stream.of(t.pods, t.events, t.gpuSamples, t.requests, t.workloads, t.experiments)
        .map(topic -> Arguments.of(topic.name(), topic));
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("inputs")
  void shouldReadARecordWithinTheLimits(String name, Topic<String, ?> topic) {
    Schema schema = schemaOf(topic);
    GenericRecord r = filled(schema);
    Object read = topic.valueSerde().deserializer().deserialize(name, encode(schema, r));
    assertThat(read).isNotNull();
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("inputs")
  void shouldRefuseARecordOverTheSizeBoundUnread(String name, Topic<String, ?> topic) {
    byte[] big = new byte[AvroLimits.MAX_INPUT_RECORD_BYTES + 1];
    System.arraycopy(header(schemaOf(topic)), 0, big, 0, 10);
    assertOverLimit(topic, big, "over the limit of " + AvroLimits.MAX_INPUT_RECORD_BYTES);
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("inputs")
  void shouldRefuseAFewBytesClaimingAHugeString(String name, Topic<String, ?> topic) {
    Schema schema = schemaOf(topic);
    GenericRecord r = filled(schema);
    String field = firstOf(schema, Schema.Type.STRING);
    r.put(field, "HOSTILE");
    byte[] bytes = encode(schema, r);
    // The string's length (zig-zag 7 = 0x0E) becomes 600,000,000, and the record ends after it.
    int at = indexOf(bytes, "HOSTILE".getBytes(StandardCharsets.UTF_8)) - 1;
    assertThat(bytes[at]).isEqualTo((byte) 0x0E);
    byte[] claim = varint(600_000_000L);
    byte[] hostile = Arrays.copyOf(bytes, at + claim.length + 2);
    System.arraycopy(claim, 0, hostile, at, claim.length);
    assertThat(hostile.length).isLessThan(200);
    assertOverLimit(topic, hostile, "String length 600000000 exceeds maximum allowed");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("inputs")
  void shouldRefuseAFewBytesClaimingABillionItems(String name, Topic<String, ?> topic) {
    Schema schema = schemaOf(topic);
    String field = firstCollection(schema);
    if (field == null) {
      // Without an array or map, no claim of items can be made (ClusterEvent, RequestLog).
      return;
    }
    GenericRecord r = filled(schema);
    byte[] withNone = encode(schema, r);
    r.put(field, one(schema.getField(field).schema()));
    byte[] withOne = encode(schema, r);
    // Where the two encodings first differ is the collection's count: 0 becomes 1 (0x02).
    int at = 0;
    while (withNone[at] == withOne[at]) {
      at++;
    }
    assertThat(withOne[at]).isEqualTo((byte) 0x02);
    byte[] claim = varint(1_000_000_000L);
    byte[] hostile = new byte[at + claim.length + 3];
    System.arraycopy(withOne, 0, hostile, 0, at);
    System.arraycopy(claim, 0, hostile, at, claim.length);
    assertOverLimit(topic, hostile, "Collection length 1000000000 exceeds the maximum allowed");
  }

  /**
   * In a record whose collections hold collections (a pod timeline's series of points, each with
   * its latency bins), a claim inside each of many items would each be allowed by Avro's limit: the
   * record is walked first, and one inner claim its bytes do not hold refuses it.
   */
  @Test
  void shouldWalkARecordOfNestedCollectionsBeforeDecodingIt() {
    AvroSerde<PodTimeline> serde = AvroSerde.of(PodTimeline.class).asInput();
    Schema schema = serde.schema();
    GenericRecord r = filled(schema);
    Schema series = nonNull(schema.getField("series").schema());
    GenericRecord s = filled(series);
    Schema point = nonNull(series.getField("points").schema()).getElementType();
    GenericRecord p = filled(point);
    GenericData.Array<Object> latency =
        new GenericData.Array<>(1, nonNull(point.getField("latency").schema()));
    latency.add(smallestNonNull(nonNull(point.getField("latency").schema()).getElementType()));
    p.put("latency", latency);
    GenericData.Array<Object> points =
        new GenericData.Array<>(1, nonNull(series.getField("points").schema()));
    points.add(p);
    s.put("points", points);
    r.put("series", s);
    byte[] one = encode(schema, r);
    assertThat(serde.deserialize("pod-timelines", one)).isNotNull();
    // The point's latency list claims 900,000 bins (within Avro's limit) in the bytes of one.
    p.put("latency", new GenericData.Array<>(0, latency.getSchema()));
    byte[] none = encode(schema, r);
    int at = 0;
    while (none[at] == one[at]) {
      at++;
    }
    byte[] claim = varint(900_000L);
    byte[] hostile = new byte[at + claim.length + 4];
    System.arraycopy(one, 0, hostile, 0, at);
    System.arraycopy(claim, 0, hostile, at, claim.length);
    assertThatThrownBy(() -> serde.deserialize("pod-timelines", hostile))
        .isInstanceOf(AvroLimits.OverLimit.class)
        .hasMessageContaining("claims more than its bytes hold");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("inputs")
  void shouldRefuseARealStringOverTheStringLimit(String name, Topic<String, ?> topic) {
    Schema schema = schemaOf(topic);
    GenericRecord r = filled(schema);
    r.put(firstOf(schema, Schema.Type.STRING), "x".repeat(AvroLimits.MAX_STRING_BYTES + 1));
    assertOverLimit(topic, encode(schema, r), "String length");
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("inputs")
  void shouldRefuseARealCollectionOverTheCollectionLimit(String name, Topic<String, ?> topic) {
    Schema schema = schemaOf(topic);
    String field = firstMapOfStrings(schema);
    if (field == null) {
      return; // no map of strings: nothing of a million items fits the size bound
    }
    GenericRecord r = filled(schema);
    // A million and one entries of an empty key and value: two bytes each, 2 MB in all.
    r.put(field, repeated(AvroLimits.MAX_COLLECTION_ITEMS + 1));
    byte[] bytes = encode(schema, r);
    assertThat(bytes.length).isLessThan(AvroLimits.MAX_INPUT_RECORD_BYTES);
    assertOverLimit(topic, bytes, "Collection");
  }

  /**
   * No input has a bytes value; the one of a topic, a dead letter's raw input, is held to Avro's
   * bytes limit by every serde, not only an input's: the limits are the JVM's.
   */
  @Test
  void shouldRefuseBytesOverTheBytesLimitEvenWhereNoInputHasThem() {
    Schema schema = AvroSerde.of(DeadLetter.class).schema();
    GenericRecord r = filled(schema);
    String field = firstOf(schema, Schema.Type.BYTES);
    r.put(field, ByteBuffer.wrap(new byte[AvroLimits.MAX_BYTES_BYTES + 1]));
    byte[] bytes = encode(schema, r);
    assertThatThrownBy(() -> AvroSerde.of(DeadLetter.class).deserialize("dlq", bytes))
        .isInstanceOf(AvroLimits.OverLimit.class)
        .hasMessageContaining("Bytes length");
  }

  private static void assertOverLimit(Topic<String, ?> topic, byte[] bytes, String why) {
    assertThatThrownBy(() -> topic.valueSerde().deserializer().deserialize(topic.name(), bytes))
        .isInstanceOf(AvroLimits.OverLimit.class)
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining(topic.name())
        .hasMessageContaining(why);
    assertThat(AvroLimits.isOverLimit(new RuntimeException(new AvroLimits.OverLimit("x", null))))
        .isTrue();
  }

  // ---- records of any schema ----

  private static Schema schemaOf(Topic<String, ?> topic) {
    return ((AvroSerde<?>) topic.valueSerde()).schema();
  }

  private static byte[] header(Schema schema) {
    ByteBuffer b = ByteBuffer.allocate(10).order(ByteOrder.LITTLE_ENDIAN);
    b.put((byte) 0xC3).put((byte) 0x01).putLong(SchemaNormalization.parsingFingerprint64(schema));
    return b.array();
  }

  private static byte[] encode(Schema schema, GenericRecord r) {
    try {
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      out.write(header(schema));
      BinaryEncoder e = EncoderFactory.get().binaryEncoder(out, null);
      new GenericDatumWriter<GenericRecord>(schema).write(r, e);
      e.flush();
      return out.toByteArray();
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /** A record with every field given its smallest value: null where it may be. */
  private static GenericRecord filled(Schema schema) {
    GenericRecord r = new GenericData.Record(schema);
    for (Schema.Field f : schema.getFields()) {
      r.put(f.name(), smallest(f.schema()));
    }
    return r;
  }

  private static Object smallest(Schema s) {
    return switch (s.getType()) {
      case NULL -> null;
      case UNION ->
          s.getTypes().stream().anyMatch(t -> t.getType() == Schema.Type.NULL)
              ? null
              : smallest(s.getTypes().get(0));
      case STRING -> "s";
      case INT -> 0;
      case LONG -> 0L;
      case FLOAT -> 0f;
      case DOUBLE -> 0.0;
      case BOOLEAN -> false;
      case BYTES -> ByteBuffer.allocate(0);
      case ENUM -> new GenericData.EnumSymbol(s, s.getEnumSymbols().get(0));
      case FIXED -> new GenericData.Fixed(s, new byte[s.getFixedSize()]);
      case RECORD -> filled(s);
      case ARRAY -> new GenericData.Array<>(0, s);
      case MAP -> Collections.emptyMap();
    };
  }

  /** A collection of one smallest item, of the collection's own type. */
  private static Object one(Schema s) {
    Schema c = nonNull(s);
    if (c.getType() == Schema.Type.MAP) {
      return Map.of("k", smallestNonNull(c.getValueType()));
    }
    GenericData.Array<Object> a = new GenericData.Array<>(1, c);
    a.add(smallestNonNull(c.getElementType()));
    return a;
  }

  private static Object smallestNonNull(Schema s) {
    Schema n = nonNull(s);
    return smallest(n);
  }

  private static Schema nonNull(Schema s) {
    if (s.getType() != Schema.Type.UNION) {
      return s;
    }
    return s.getTypes().stream().filter(t -> t.getType() != Schema.Type.NULL).findFirst().get();
  }

  private static String firstOf(Schema schema, Schema.Type type) {
    for (Schema.Field f : schema.getFields()) {
      if (nonNull(f.schema()).getType() == type) {
        return f.name();
      }
    }
    throw new AssertionError(schema.getName() + " has no " + type + " field");
  }

  private static String firstCollection(Schema schema) {
    for (Schema.Field f : schema.getFields()) {
      Schema.Type t = nonNull(f.schema()).getType();
      if (t == Schema.Type.MAP || t == Schema.Type.ARRAY) {
        return f.name();
      }
    }
    return null;
  }

  private static String firstMapOfStrings(Schema schema) {
    for (Schema.Field f : schema.getFields()) {
      Schema s = nonNull(f.schema());
      if (s.getType() == Schema.Type.MAP
          && nonNull(s.getValueType()).getType() == Schema.Type.STRING) {
        return f.name();
      }
    }
    return null;
  }

  /** A map of {@code n} entries with an empty key and value (Avro writes what it iterates). */
  private static Map<String, String> repeated(int n) {
    return new AbstractMap<>() {
      @Override
      public Set<Map.Entry<String, String>> entrySet() {
        return new AbstractSet<>() {
          @Override
          public Iterator<Map.Entry<String, String>> iterator() {
            List<Map.Entry<String, String>> one = new ArrayList<>(List.of(Map.entry("", "")));
            return new Iterator<>() {
              int i;

              @Override
              public boolean hasNext() {
                return i < n;
              }

              @Override
              public Map.Entry<String, String> next() {
                i++;
                return one.get(0);
              }
            };
          }

          @Override
          public int size() {
            return n;
          }
        };
      }
    };
  }

  private static byte[] varint(long n) {
    long z = (n << 1) ^ (n >> 63);
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    while ((z & ~0x7FL) != 0) {
      out.write((int) ((z & 0x7F) | 0x80));
      z >>>= 7;
    }
    out.write((int) z);
    return out.toByteArray();
  }

  private static int indexOf(byte[] in, byte[] what) {
    outer:
    for (int i = 0; i + what.length <= in.length; i++) {
      for (int j = 0; j < what.length; j++) {
        if (in[i + j] != what[j]) {
          continue outer;
        }
      }
      return i;
    }
    throw new AssertionError("not found");
  }
}
