package io.schedlens.topology;

import io.schedlens.avro.ClusterEvent;
import io.schedlens.avro.GpuSample;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.RequestLog;
import io.schedlens.avro.internal.PreemptorDetails;
import io.schedlens.avro.internal.StageMessage;
import io.schedlens.avro.internal.VictimLink;
import io.schedlens.avro.internal.Watermark;
import io.schedlens.avro.internal.WorkloadStatus;
import io.schedlens.schemas.Topics;
import java.util.LinkedHashMap;
import java.util.Map;
import org.apache.kafka.common.serialization.Deserializer;

/**
 * What the pod stage reads, one type per kind: the four inputs about pods, their producers'
 * progress marks and tombstones, and the messages of the other stages (the {@code StageMessage}
 * union of the internal topic, decoded here, once). A stage takes an input by {@link #to}: each
 * kind calls its own method of the {@link Reader}.
 */
sealed interface PodInput {

  /** Hands this input to the reader's method for its kind. */
  void to(Reader reader);

  /** What the pod stage does with each kind of input. */
  interface Reader {
    void observation(PodObservation o);

    void event(ClusterEvent e);

    void sample(GpuSample g);

    void request(RequestLog r);

    /** A producer's promise that everything of {@code source} up to {@code time} is written. */
    void mark(String source, long time);

    /** A record without a value on an input topic. */
    void tombstone(String source);

    /** Another task's watermark. */
    void heard(Watermark w);

    /** A victim names a pod of this name as its preemptor. */
    void link(String uid, VictimLink l);

    /** A preemptor's answer to its victim. */
    void details(String uid, PreemptorDetails d);

    /** What the workload stage knows of a pod's workload. */
    void status(String uid, WorkloadStatus w);
  }

  record Observed(PodObservation value) implements PodInput {
    @Override
    public void to(Reader reader) {
      reader.observation(value);
    }
  }

  record Event(ClusterEvent value) implements PodInput {
    @Override
    public void to(Reader reader) {
      reader.event(value);
    }
  }

  record Sample(GpuSample value) implements PodInput {
    @Override
    public void to(Reader reader) {
      reader.sample(value);
    }
  }

  record Request(RequestLog value) implements PodInput {
    @Override
    public void to(Reader reader) {
      reader.request(value);
    }
  }

  record Mark(String source, long time) implements PodInput {
    @Override
    public void to(Reader reader) {
      reader.mark(source, time);
    }
  }

  record Tombstone(String source) implements PodInput {
    @Override
    public void to(Reader reader) {
      reader.tombstone(source);
    }
  }

  record Heard(Watermark value) implements PodInput {
    @Override
    public void to(Reader reader) {
      reader.heard(value);
    }
  }

  record Link(String uid, VictimLink value) implements PodInput {
    @Override
    public void to(Reader reader) {
      reader.link(uid, value);
    }
  }

  record Details(String uid, PreemptorDetails value) implements PodInput {
    @Override
    public void to(Reader reader) {
      reader.details(uid, value);
    }
  }

  record Status(String uid, WorkloadStatus value) implements PodInput {
    @Override
    public void to(Reader reader) {
      reader.status(uid, value);
    }
  }

  /** A message of a kind the pod stage does not take: nothing to do. */
  record Ignored(Object payload) implements PodInput {
    @Override
    public void to(Reader reader) {}
  }

  /** A message from another stage, by what it carries. */
  static PodInput of(StageMessage m) {
    Object p = m.getPayload();
    if (p instanceof Watermark w) {
      return new Heard(w);
    } else if (p instanceof VictimLink l) {
      return new Link(m.getUid(), l);
    } else if (p instanceof PreemptorDetails d) {
      return new Details(m.getUid(), d);
    } else if (p instanceof WorkloadStatus w) {
      return new Status(m.getUid(), w);
    }
    return new Ignored(p);
  }

  /** How each topic the pod stage reads becomes its input, by topic name. */
  static Map<String, Deserializer<PodInput>> readers(Topics topics) {
    Map<String, Deserializer<PodInput>> r = new LinkedHashMap<>();
    r.put(
        topics.pods.name(),
        new SourceReader<>(
            topics.pods.valueSerde().deserializer(),
            Observed::new,
            t -> new Mark(SourceMarks.PODS, t),
            () -> new Tombstone(SourceMarks.PODS)));
    r.put(
        topics.events.name(),
        new SourceReader<>(
            topics.events.valueSerde().deserializer(),
            Event::new,
            t -> new Mark(SourceMarks.EVENTS, t),
            () -> new Tombstone(SourceMarks.EVENTS)));
    r.put(
        topics.gpuSamples.name(),
        new SourceReader<>(
            topics.gpuSamples.valueSerde().deserializer(),
            Sample::new,
            t -> new Mark(SourceMarks.GPU, t),
            () -> new Tombstone(SourceMarks.GPU)));
    r.put(
        topics.requests.name(),
        new SourceReader<>(
            topics.requests.valueSerde().deserializer(),
            Request::new,
            t -> new Mark(SourceMarks.REQUESTS, t),
            () -> new Tombstone(SourceMarks.REQUESTS)));
    r.put(topics.toPod.name(), StageMessages.reader(topics.toPod, PodInput::of));
    return r;
  }
}
