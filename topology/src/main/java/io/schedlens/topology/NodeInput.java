package io.schedlens.topology;

import io.schedlens.avro.internal.NodeFact;
import io.schedlens.avro.internal.StageMessage;
import io.schedlens.avro.internal.Watermark;
import io.schedlens.schemas.Topics;
import java.util.Map;
import org.apache.kafka.common.serialization.Deserializer;

/** What the node stage reads: the pods' facts about a node and the other tasks' watermarks. */
sealed interface NodeInput {

  void to(Reader reader);

  /** What the node stage does with each kind of input. */
  interface Reader {
    /** A pod bound or nominated to the node, or a victim on it. */
    void fact(NodeFact f);

    /** Another task's watermark. */
    void heard(Watermark w);
  }

  record Fact(NodeFact value) implements NodeInput {
    @Override
    public void to(Reader reader) {
      reader.fact(value);
    }
  }

  record Heard(Watermark value) implements NodeInput {
    @Override
    public void to(Reader reader) {
      reader.heard(value);
    }
  }

  /** A message of a kind the node stage does not take. */
  record Ignored() implements NodeInput {
    @Override
    public void to(Reader reader) {}
  }

  static NodeInput of(StageMessage m) {
    Object p = m.getPayload();
    if (p instanceof Watermark w) {
      return new Heard(w);
    } else if (p instanceof NodeFact f) {
      return new Fact(f);
    }
    return new Ignored();
  }

  /** How the topic the node stage reads becomes its input, by topic name. */
  static Map<String, Deserializer<NodeInput>> readers(Topics topics) {
    return Map.of(topics.byNode.name(), StageMessages.reader(topics.byNode, NodeInput::of));
  }
}
