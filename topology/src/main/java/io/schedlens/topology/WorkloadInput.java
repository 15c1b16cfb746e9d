package io.schedlens.topology;

import io.schedlens.avro.WorkloadObservation;
import io.schedlens.avro.internal.StageMessage;
import io.schedlens.avro.internal.Watermark;
import io.schedlens.avro.internal.WorkloadEvent;
import io.schedlens.schemas.Topics;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * What the workload stage reads: the workload objects (with their producer's marks and tombstones),
 * the pods' facts for their workloads and the other tasks' watermarks.
 */
sealed interface WorkloadInput {

  void to(Reader reader);

  /** What the workload stage does with each kind of input. */
  interface Reader {
    void observation(WorkloadObservation o);

    /** A record without a value on the workloads topic. */
    void tombstone();

    /** A pod's fact for its workload. */
    void fact(WorkloadEvent e);

    /** Another task's watermark. */
    void heard(Watermark w);
  }

  record Observed(WorkloadObservation value) implements WorkloadInput {
    @Override
    public void to(Reader reader) {
      reader.observation(value);
    }
  }

  record Tombstone() implements WorkloadInput {
    @Override
    public void to(Reader reader) {
      reader.tombstone();
    }
  }

  record Fact(WorkloadEvent value) implements WorkloadInput {
    @Override
    public void to(Reader reader) {
      reader.fact(value);
    }
  }

  record Heard(Watermark value) implements WorkloadInput {
    @Override
    public void to(Reader reader) {
      reader.heard(value);
    }
  }

  /**
   * What the stage does not act on: the workload objects' progress marks (they decide nothing
   * here), a message of another kind.
   */
  record Ignored() implements WorkloadInput {
    @Override
    public void to(Reader reader) {}
  }

  static WorkloadInput of(StageMessage m) {
    Object p = m.getPayload();
    if (p instanceof Watermark w) {
      return new Heard(w);
    } else if (p instanceof WorkloadEvent e) {
      return new Fact(e);
    }
    return new Ignored();
  }

  /** How each topic the workload stage reads becomes its input, by topic name. */
  static Map<String, Deserializer<WorkloadInput>> readers(Topics topics) {
    Map<String, Deserializer<WorkloadInput>> r = new LinkedHashMap<>();
    r.put(
        topics.workloads.name(),
        new SourceReader<>(
            topics.workloads.valueSerde().deserializer(),
            Observed::new,
            t -> new Ignored(),
            Tombstone::new));
    r.put(topics.byWorkload.name(), StageMessages.reader(topics.byWorkload, WorkloadInput::of));
    return r;
  }
}
