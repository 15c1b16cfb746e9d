package io.schedlens.topology;

import io.schedlens.avro.PodRef;
import io.schedlens.avro.internal.NodeFact;
import io.schedlens.avro.internal.NodeState;
import io.schedlens.avro.internal.PreemptorDetails;
import io.schedlens.avro.internal.StageMessage;
import io.schedlens.avro.internal.VictimLink;
import io.schedlens.avro.internal.Watermark;
import io.schedlens.schemas.PodName;
import io.schedlens.timeline.PodLife;
import io.schedlens.timeline.PreemptorInference;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import org.apache.kafka.streams.processor.PunctuationType;
import org.apache.kafka.streams.processor.api.Processor;
import org.apache.kafka.streams.processor.api.ProcessorContext;
import org.apache.kafka.streams.processor.api.Record;

/**
 * The node stage, keyed by node: names the preemptor of a victim that no Kubernetes object named
 * ({@link PreemptorInference}), once every pod-stage task has passed the victim's preemption plus
 * the grace period (so every nomination and binding that could be the answer is known), and tells
 * both the victim and the preemptor, marked inferred.
 */
final class NodeStage
    implements Processor<String, NodeInput, String, StageMessage>, NodeInput.Reader {

  /** Candidates kept per node at most (the most recent). */
  static final int MAX_CANDIDATES = 256;

  private final long graceMs;
  private final int hot;
  private final Watermarks heard;
  private ProcessorContext<String, StageMessage> context;

  /** The key of the record being read: the node. */
  private String key;

  private HotStore<NodeState> nodes;
  private TimerIndex timers;
  private long decidedUpTo = Long.MIN_VALUE;
  private final AnsweredBroadcast answered =
      new AnsweredBroadcast(Watermarks.NODES, TopologyNames.NODES_TO_POD_SINK);

  NodeStage(TopologySettings settings) {
    this.graceMs = settings.timeline().grace().toMillis();
    this.hot = settings.hotObjects();
    this.heard = new Watermarks(settings.partitions());
  }

  @Override
  public void init(ProcessorContext<String, StageMessage> context) {
    this.context = context;
    this.nodes = new HotStore<>(context.getStateStore(TopologyNames.NODES_STORE), hot);
    this.timers = new TimerIndex(context.getStateStore(TopologyNames.NODE_TIMERS_STORE));
    context.schedule(
        TopologySettings.WATERMARK_INTERVAL, PunctuationType.WALL_CLOCK_TIME, this::broadcast);
  }

  @Override
  public void process(Record<String, NodeInput> record) {
    this.key = record.key();
    record.value().to(this);
  }

  @Override
  public void heard(Watermark w) {
    heard.heard(w);
    long firstOrder = heard.firstOrder();
    if (firstOrder > decidedUpTo) {
      decidedUpTo = firstOrder;
      for (String id : timers.due(TimerIndex.DECIDE, firstOrder)) {
        decide(TimerTarget.parse(id));
      }
    }
  }

  @Override
  public void fact(NodeFact f) {
    if (key == null) {
      return;
    }
    NodeState st = state(key);
    if ("victim".equals(f.getKind())) {
      List<NodeFact> victims = new ArrayList<>(st.getVictims());
      victims.add(f);
      st.setVictims(victims);
      timers.add(
          TimerIndex.DECIDE, f.getAt() + graceMs, new TimerTarget(key, f.getPod().getUid()).id());
    } else {
      List<NodeFact> candidates = new ArrayList<>(st.getCandidates());
      candidates.add(f);
      candidates.sort(Comparator.comparingLong(NodeFact::getAt));
      if (candidates.size() > MAX_CANDIDATES) {
        candidates =
            new ArrayList<>(
                candidates.subList(candidates.size() - MAX_CANDIDATES, candidates.size()));
      }
      st.setCandidates(candidates);
    }
    nodes.put(key, st);
  }

  private void decide(TimerTarget id) {
    String node = id.key();
    String victimUid = id.uid();
    NodeState st = nodes.get(node);
    if (st == null) {
      return;
    }
    NodeFact victim = null;
    List<NodeFact> rest = new ArrayList<>();
    for (NodeFact v : st.getVictims()) {
      if (victim == null && v.getPod().getUid().equals(victimUid)) {
        victim = v;
      } else {
        rest.add(v);
      }
    }
    if (victim == null) {
      return;
    }
    st.setVictims(rest);
    nodes.put(node, st);
    Optional<PodRef> preemptor =
        PreemptorInference.preemptorOf(
            st.getCandidates(), victim, PodLife.CREATION_TOLERANCE_MS, graceMs);
    if (preemptor.isEmpty()) {
      return;
    }
    PodRef p = preemptor.get();
    PodRef v = victim.getPod();
    long at = Math.max(0, victim.getAt());
    context.forward(
        new Record<>(
            new PodName(v.getNamespace(), v.getName()).key(),
            new StageMessage(v.getUid(), new PreemptorDetails(v.getUid(), p)),
            at),
        TopologyNames.NODES_TO_POD_SINK);
    VictimLink link =
        VictimLink.newBuilder()
            .setVictimUid(v.getUid())
            .setVictimNamespace(v.getNamespace())
            .setVictimName(v.getName())
            .setPreemptorUid(p.getUid())
            .setPreemptorNamespace(p.getNamespace())
            .setPreemptorName(p.getName())
            .setAt(victim.getAt())
            .setInferred(true)
            .build();
    context.forward(
        new Record<>(
            new PodName(p.getNamespace(), p.getName()).key(),
            new StageMessage(p.getUid(), link),
            at),
        TopologyNames.NODES_TO_POD_SINK);
  }

  private NodeState state(String node) {
    NodeState st = nodes.get(node);
    return st != null
        ? st
        : NodeState.newBuilder()
            .setCandidates(new ArrayList<>())
            .setVictims(new ArrayList<>())
            .build();
  }

  /** Every question up to what every pod-stage task passed is answered. */
  private void broadcast(long wallNow) {
    answered.send(context, heard.firstOrder(), wallNow);
  }
}
