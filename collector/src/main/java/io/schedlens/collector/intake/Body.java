package io.schedlens.collector.intake;

import com.google.protobuf.CodedInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;

/**
 * A request body as the chunks it was read in, never copied whole: what the intake holds of a body
 * is its bytes, once. The walks read it by position, as a stream, or as buffers; the few bytes of
 * one item are copied out when the item is parsed.
 */
final class Body {

  /** Every chunk is this long but the last. */
  static final int CHUNK = 64 * 1024;

  private final List<byte[]> chunks;
  private final int length;

  private Body(List<byte[]> chunks, int length) {
    this.chunks = chunks;
    this.length = length;
  }

  /** A body of one array (tests, and an item's own bytes). */
  static Body of(byte[] bytes) {
    List<byte[]> chunks = new ArrayList<>();
    for (int i = 0; i < bytes.length; i += CHUNK) {
      byte[] c = new byte[Math.min(CHUNK, bytes.length - i)];
      System.arraycopy(bytes, i, c, 0, c.length);
      chunks.add(c);
    }
    return new Body(chunks, bytes.length);
  }

  /** Builds a body from chunks read in order, all {@link #CHUNK} long but the last. */
  static final class Builder {
    private final List<byte[]> chunks = new ArrayList<>();
    private int length;
    private boolean ended;

    void add(byte[] chunk) {
      if (ended) {
        throw new IllegalStateException("a short chunk ends a body");
      }
      ended = chunk.length < CHUNK;
      chunks.add(chunk);
      length += chunk.length;
    }

    int length() {
      return length;
    }

    Body build() {
      return new Body(chunks, length);
    }
  }

  int length() {
    return length;
  }

  byte at(int i) {
    return chunks.get(i / CHUNK)[i % CHUNK];
  }

  /** The first position at or after {@code from} holding {@code b}, or {@link #length}. */
  int indexOf(byte b, int from) {
    for (int i = from; i < length; ) {
      int chunk = i / CHUNK;
      byte[] c = chunks.get(chunk);
      for (int j = i % CHUNK; j < c.length; j++) {
        if (c[j] == b) {
          return chunk * CHUNK + j;
        }
      }
      i = (chunk + 1) * CHUNK;
    }
    return length;
  }

  /** Bytes {@code [from, to)}, copied. */
  byte[] copy(int from, int to) {
    byte[] out = new byte[to - from];
    int at = 0;
    for (int i = from; i < to; ) {
      byte[] c = chunks.get(i / CHUNK);
      int off = i % CHUNK;
      int n = Math.min(c.length - off, to - i);
      System.arraycopy(c, off, out, at, n);
      at += n;
      i += n;
    }
    return out;
  }

  /** Writes bytes {@code [from, to)} to {@code out}. */
  void writeTo(ByteArrayOutputStream out, int from, int to) {
    for (int i = from; i < to; ) {
      byte[] c = chunks.get(i / CHUNK);
      int off = i % CHUNK;
      int n = Math.min(c.length - off, to - i);
      out.write(c, off, n);
      i += n;
    }
  }

  /**
   * Bytes {@code [from, to)} for protobuf's reader: over the chunk's array when they lie in one
   * chunk (a reader of an array is the cheap one), else over the chunks as buffers.
   */
  CodedInputStream protobuf(int from, int to) {
    if (from / CHUNK == (to - 1) / CHUNK || from == to) {
      byte[] c =
          chunks.isEmpty() ? new byte[0] : chunks.get(Math.min(from / CHUNK, chunks.size() - 1));
      return CodedInputStream.newInstance(c, from == to ? 0 : from % CHUNK, to - from);
    }
    return CodedInputStream.newInstance(buffers(from, to));
  }

  /** Bytes {@code [from, to)} as buffers over the chunks. */
  List<ByteBuffer> buffers(int from, int to) {
    List<ByteBuffer> out = new ArrayList<>();
    for (int i = from; i < to; ) {
      byte[] c = chunks.get(i / CHUNK);
      int off = i % CHUNK;
      int n = Math.min(c.length - off, to - i);
      out.add(ByteBuffer.wrap(c, off, n).slice());
      i += n;
    }
    return out;
  }

  /** Bytes {@code [from, to)} as a stream over the chunks (for Jackson's streaming parser). */
  InputStream stream(int from, int to) {
    return new InputStream() {
      private int at = from;

      @Override
      public int read() {
        return at < to ? at(at++) & 0xFF : -1;
      }

      @Override
      public int read(byte[] b, int off, int len) {
        if (at >= to) {
          return -1;
        }
        byte[] c = chunks.get(at / CHUNK);
        int o = at % CHUNK;
        int n = Math.min(Math.min(c.length - o, to - at), len);
        System.arraycopy(c, o, b, off, n);
        at += n;
        return n;
      }

      @Override
      public int available() throws IOException {
        return to - at;
      }
    };
  }
}
