package io.schedlens.collector.intake;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.CodedInputStream;
import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import org.junit.jupiter.api.Test;

/** A body kept as its chunks reads as the one array it stands for, across chunk boundaries. */
class BodyTest {

  private static byte[] bytes(int n) {
    byte[] b = new byte[n];
    for (int i = 0; i < n; i++) {
      b[i] = (byte) ('a' + i % 26);
    }
    return b;
  }

  @Test
  void shouldReadAcrossChunksAsOneArray() throws Exception {
    byte[] whole = bytes(3 * Body.CHUNK + 17);
    whole[Body.CHUNK + 5] = '\n';
    Body body = Body.of(whole);
    assertThat(body.length()).isEqualTo(whole.length);
    int from = Body.CHUNK - 3;
    int to = 2 * Body.CHUNK + 9;
    assertThat(body.copy(from, to)).isEqualTo(Arrays.copyOfRange(whole, from, to));
    assertThat(body.stream(from, to).readAllBytes()).isEqualTo(Arrays.copyOfRange(whole, from, to));
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    body.writeTo(out, from, to);
    assertThat(out.toByteArray()).isEqualTo(Arrays.copyOfRange(whole, from, to));
    CodedInputStream in = body.protobuf(from, to);
    assertThat(in.readRawBytes(to - from)).isEqualTo(Arrays.copyOfRange(whole, from, to));
    assertThat(in.isAtEnd()).isTrue();
    assertThat(body.indexOf((byte) '\n', 0)).isEqualTo(Body.CHUNK + 5);
    assertThat(body.at(2 * Body.CHUNK + 3)).isEqualTo(whole[2 * Body.CHUNK + 3]);
  }

  @Test
  void shouldBuildFromChunksAsRead() {
    Body.Builder b = new Body.Builder();
    b.add(bytes(Body.CHUNK));
    b.add(new byte[] {1, 2, 3});
    Body body = b.build();
    assertThat(body.length()).isEqualTo(Body.CHUNK + 3);
    assertThat(body.copy(Body.CHUNK, Body.CHUNK + 3)).containsExactly(1, 2, 3);
    assertThat(body.indexOf((byte) 99, Body.CHUNK)).isEqualTo(body.length());
  }
}
