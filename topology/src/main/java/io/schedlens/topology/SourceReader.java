package io.schedlens.topology;

import io.schedlens.schemas.ProgressMarks;
import java.util.function.Function;
import java.util.function.LongFunction;
import java.util.function.Supplier;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Reads an input topic into a stage's input type: a record with the progress header becomes the
 * stage's mark, a record without a value its tombstone, any other one its data, typed by the topic.
 * Where a record's bytes become a type, once; the stage sees nothing untyped.
 *
 * @param <T> the topic's data type
 * @param <I> the stage's input type
 */
final class SourceReader<T, I> implements Deserializer<I> {

  private final Deserializer<T> data;
  private final Function<T, I> wrap;
  private final LongFunction<I> mark;
  private final Supplier<I> tombstone;

  SourceReader(
      Deserializer<T> data, Function<T, I> wrap, LongFunction<I> mark, Supplier<I> tombstone) {
    this.data = data;
    this.wrap = wrap;
    this.mark = mark;
    this.tombstone = tombstone;
  }

  @Override
  public I deserialize(String topic, byte[] bytes) {
    return deserialize(topic, null, bytes);
  }

  @Override
  public I deserialize(String topic, Headers headers, byte[] bytes) {
    if (bytes == null) {
      return tombstone.get();
    }
    if (headers != null && ProgressMarks.isMark(headers)) {
      return mark.apply(ProgressMarks.decode(bytes).getTime());
    }
    return wrap.apply(data.deserialize(topic, headers, bytes));
  }
}
