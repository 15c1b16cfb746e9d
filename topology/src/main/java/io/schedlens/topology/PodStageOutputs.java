package io.schedlens.topology;

import io.schedlens.avro.DeadLetter;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.Preemption;
import io.schedlens.avro.internal.StageMessage;
import io.schedlens.avro.internal.VictimLink;
import io.schedlens.avro.internal.Watermark;
import io.schedlens.schemas.OutputHeaders;
import io.schedlens.schemas.PodName;
import io.schedlens.timeline.FactsToTell;
import io.schedlens.timeline.Outbound;
import io.schedlens.topology.metrics.StreamsMetrics;
import org.apache.avro.specific.SpecificRecord;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * Everything the pod stage writes, and where: the record's key, timestamp (event time, never below
 * 0) and headers for each sink. The stage decides what to say; this says it.
 */
final class PodStageOutputs {

  /** Headers of the outputs (see OutputHeaders): the schema, and which records are final. */
  private static final OutputHeaders TIMELINE_HEADERS =
      OutputHeaders.of(PodTimeline.getClassSchema());

  private static final OutputHeaders PREEMPTION_HEADERS =
      OutputHeaders.of(Preemption.getClassSchema());

  private final ProcessorContext<String, SpecificRecord> context;
  private final StreamsMetrics metrics;

  PodStageOutputs(ProcessorContext<String, SpecificRecord> context, StreamsMetrics metrics) {
    this.context = context;
    this.metrics = metrics;
  }

  /** A pod's timeline, keyed by UID, at its last update's time. */
  void timeline(String uid, PodTimeline t, long updatedAt, boolean isFinal) {
    context.forward(
        new Record<>(uid, t, Math.max(updatedAt, 0), TIMELINE_HEADERS.headers(isFinal)),
        TopologyNames.POD_TIMELINES_SINK);
  }

  /** A victim's preemption, keyed by the victim's UID, at its time; final (it goes out once). */
  void preemption(String victimUid, Preemption p, long preemptedAt) {
    context.forward(
        new Record<>(victimUid, p, preemptedAt, PREEMPTION_HEADERS.headers(true)),
        TopologyNames.PREEMPTIONS_SINK);
  }

  /** A message between pods: a victim to its preemptor (by name), a preemptor's answer. */
  void send(Outbound o, long at) {
    if (o instanceof Outbound.ToPreemptor p) {
      VictimLink l = p.link();
      if (l.getPreemptorNamespace() != null && l.getPreemptorName() != null) {
        context.forward(
            new Record<>(
                new PodName(l.getPreemptorNamespace(), l.getPreemptorName()).key(),
                new StageMessage(l.getPreemptorUid(), l),
                Math.max(0, l.getAt())),
            TopologyNames.PODS_TO_POD_SINK);
      }
      // Named by UID only: the victim asks its node, which knows the pods bound and nominated
      // there (see FactsToTell.victimQuestion).
    } else if (o instanceof Outbound.ToVictim v && v.victim() != null) {
      context.forward(
          new Record<>(
              v.victim(),
              new StageMessage(v.details().getVictimUid(), v.details()),
              Math.max(0, at)),
          TopologyNames.PODS_TO_POD_SINK);
    }
  }

  /** A pod's fact for its workload or its node. */
  void tell(FactsToTell.Tell t) {
    if (t instanceof FactsToTell.ToWorkload w) {
      context.forward(
          new Record<>(
              w.key(),
              new StageMessage(w.event().getUid(), w.event()),
              Math.max(0, w.event().getAt())),
          TopologyNames.PODS_TO_WORKLOAD_SINK);
    } else if (t instanceof FactsToTell.ToNode n) {
      context.forward(
          new Record<>(
              n.node(),
              new StageMessage(n.fact().getPod().getUid(), n.fact()),
              Math.max(0, n.fact().getAt())),
          TopologyNames.PODS_TO_NODE_SINK);
    }
  }

  /** The task's watermark, to every stage: after the messages it covers. */
  void watermark(Watermark w) {
    Record<String, SpecificRecord> r =
        new Record<>(
            "watermark", new StageMessage(null, w), Math.max(0, context.currentStreamTimeMs()));
    context.forward(r, TopologyNames.PODS_TO_POD_SINK);
    context.forward(r, TopologyNames.PODS_TO_WORKLOAD_SINK);
    context.forward(r, TopologyNames.PODS_TO_NODE_SINK);
  }

  /** A dead letter standing for {@code count} inputs, counted by its reason. */
  void deadLetter(DeadLetter d, long timestamp, long count) {
    metrics.deadLetters.labelValues(d.getReason()).inc(count);
    context.forward(
        new Record<>(d.getSource(), d, Math.max(0, timestamp)), TopologyNames.PODS_DLQ_SINK);
  }
}
