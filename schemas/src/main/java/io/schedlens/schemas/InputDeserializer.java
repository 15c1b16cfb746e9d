package io.schedlens.schemas;

import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Reads an input topic whose partitions carry both data records of type {@code T} and {@link
 * ProgressMarks progress marks}: a record with the progress header becomes a {@link
 * io.schedlens.avro.ProgressMark}, any other one a {@code T}.
 */
public final class InputDeserializer<T> implements Deserializer<Object> {

  private final Deserializer<T> data;

  public InputDeserializer(Deserializer<T> data) {
    this.data = data;
  }

  @Override
  public Object deserialize(String topic, byte[] bytes) {
    return data.deserialize(topic, bytes);
  }

  @Override
  public Object deserialize(String topic, Headers headers, byte[] bytes) {
    if (ProgressMarks.isMark(headers)) {
      return bytes == null ? null : ProgressMarks.decode(bytes);
    }
    return data.deserialize(topic, headers, bytes);
  }
}
