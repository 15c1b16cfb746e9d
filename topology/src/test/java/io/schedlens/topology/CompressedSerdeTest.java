package io.schedlens.topology;

import static io.schedlens.testsupport.Inputs.at;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.github.luben.zstd.Zstd;
import io.schedlens.avro.ChangeType;
import io.schedlens.avro.internal.PodsOfName;
import io.schedlens.avro.internal.RetiredPod;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.schemas.AvroSerde;
import io.schedlens.testsupport.Inputs;
import io.schedlens.timeline.Incarnations;
import io.schedlens.timeline.TimelineReducer;
import io.schedlens.timeline.TimelineSettings;
import java.util.Arrays;
import java.util.Random;
import org.apache.kafka.common.errors.SerializationException;
import org.apache.kafka.common.serialization.Serdes;
import org.junit.jupiter.api.Test;

/**
 * The pod stage's state compressed in its stores: a serving pod's state read back as it was, in
 * fewer bytes; what an earlier release wrote (uncompressed) read as before; damage named.
 */
class CompressedSerdeTest {

  final CompressedSerde<PodsOfName> serde = TimelineTopology.podsSerde();
  final AvroSerde<PodsOfName> uncompressed = AvroSerde.of(PodsOfName.class);

  /** A serving pod ten minutes into its life: a sample every 15 s, two requests a second. */
  static PodsOfName servingPod() {
    TimelineReducer reducer = new TimelineReducer(TimelineSettings.defaults());
    TimelineState s = TimelineReducer.empty("u-chat-0");
    reducer.applyAny(
        s,
        new Inputs.Pod(
                "u-chat-0", "ai-lab", "chat-0", "ReplicaSet", "chat-7d9f", "interactive", 1000, 1)
            .label("app", "chat")
            .node("gpu-node-1")
            .phase("Running")
            .running("server", 20, 0, true)
            .seen(ChangeType.MODIFIED, 30));
    Random r = new Random(7);
    for (int i = 0; i < 600; i++) {
      if (i % 15 == 0) {
        reducer.applyAny(
            s, Inputs.gpu("GPU-1", "ai-lab", "chat-0", at(30 + i), 40 + r.nextInt(50), 15_000L));
      }
      for (int k = 0; k < 2; k++) {
        reducer.applyAny(
            s,
            Inputs.request(
                "ai-lab", "chat-0", "chat", at(30 + i + k * 0.5), 200, 40 + r.nextGaussian() * 15));
      }
    }
    PodsOfName name = Incarnations.none();
    name.getPods().add(s);
    return name;
  }

  @Test
  void shouldReadAServingPodsStateBackFromFewerBytes() {
    PodsOfName name = servingPod();
    byte[] plain = uncompressed.serialize("", name);
    byte[] stored = serde.serialize("", name);

    assertThat(CompressedSerde.compressed(stored)).isTrue();
    assertThat(stored.length)
        .as("a fifth saved at least: its series and names repeat")
        .isLessThan(plain.length * 4 / 5);
    assertThat(serde.deserialize("", stored)).isEqualTo(name);
    assertThat(serde.plain("", stored)).isEqualTo(plain);
  }

  @Test
  void shouldReadWhatAnEarlierReleaseWroteUncompressed() {
    PodsOfName name = servingPod();
    assertThat(serde.deserialize("", uncompressed.serialize("", name))).isEqualTo(name);
    assertThat(serde.deserialize("", null)).isNull();
  }

  @Test
  void shouldLeaveAValueAsItIsWhenCompressingItWouldNotSaveBytes() {
    PodsOfName stub = Incarnations.none();
    stub.getRetired().add(new RetiredPod("u-1", 1L, 2L));
    byte[] small = serde.serialize("", stub);
    assertThat(small).isEqualTo(uncompressed.serialize("", stub));
    assertThat(small.length).isLessThan(CompressedSerde.MIN_BYTES);

    CompressedSerde<byte[]> bytes = CompressedSerde.of(Serdes.ByteArray());
    byte[] noise = new byte[4096];
    new Random(1).nextBytes(noise);
    assertThat(bytes.serialize("", noise)).as("incompressible").isEqualTo(noise);
  }

  @Test
  void shouldSayTheStoreIsDamagedWhenAFrameIsNot() {
    byte[] stored = serde.serialize("", servingPod());
    byte[] cut = Arrays.copyOf(stored, stored.length / 2);
    assertThatThrownBy(() -> serde.deserialize("pods-by-name", cut))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("pods-by-name")
        .hasMessageContaining("reset the application's state");

    byte[] huge = Zstd.compress(new byte[CompressedSerde.MAX_BYTES + 1]);
    assertThat(huge.length).as("a frame that claims 16 MiB in a few bytes").isLessThan(1024);
    assertThatThrownBy(() -> CompressedSerde.of(Serdes.ByteArray()).plain("pod-series", huge))
        .isInstanceOf(SerializationException.class)
        .hasMessageContaining("claims " + (CompressedSerde.MAX_BYTES + 1) + " bytes");
  }
}
