package io.schedlens.topology;

import io.schedlens.avro.internal.StageMessage;
import io.schedlens.schemas.Topic;
import java.util.function.Function;
import org.apache.kafka.common.header.Headers;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * Reads an internal topic into a stage's input type: each {@link StageMessage} decoded by what it
 * carries ({@code decode}, the one place a stage looks into the message union); a record without a
 * value (none is ever written) decodes as {@code decode} says of null.
 */
final class StageMessages {

  private StageMessages() {}

  static <I> Deserializer<I> reader(
      Topic<String, StageMessage> topic, Function<StageMessage, I> decode) {
    Deserializer<StageMessage> messages = topic.valueSerde().deserializer();
    return new Deserializer<>() {
      @Override
      public I deserialize(String name, byte[] bytes) {
        return deserialize(name, null, bytes);
      }

      @Override
      public I deserialize(String name, Headers headers, byte[] bytes) {
        StageMessage m = bytes == null ? null : messages.deserialize(name, headers, bytes);
        return decode.apply(m == null ? new StageMessage(null, null) : m);
      }
    };
  }
}
