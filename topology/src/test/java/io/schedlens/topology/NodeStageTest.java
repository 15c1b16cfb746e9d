package io.schedlens.topology;

import static io.schedlens.testsupport.Inputs.at;
import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.PodRef;
import io.schedlens.avro.internal.NodeFact;
import io.schedlens.avro.internal.NodeState;
import io.schedlens.avro.internal.PreemptorDetails;
import io.schedlens.avro.internal.StageMessage;
import io.schedlens.avro.internal.VictimLink;
import io.schedlens.avro.internal.Watermark;
import io.schedlens.schemas.AvroSerde;
import java.util.List;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.processor.api.Record;
import org.junit.jupiter.api.Test;

/**
 * The node stage's processor on its own ({@link MockStage}): it names a victim's preemptor that no
 * Kubernetes object named once every pod-stage task passed the preemption plus the grace period,
 * and not before, however early the facts arrived.
 */
class NodeStageTest {

  static final TopologySettings SETTINGS = TopologySettings.defaults().withHotObjects(0);
  static final long GRACE = SETTINGS.timeline().grace().toMillis();
  static final String NODE = "gpu-node-3";

  MockStage stage() {
    return new MockStage(
            new NodeStage(SETTINGS),
            NodeInput.readers(StageDriver.TOPICS),
            StageDriver.TOPICS.byNode.name())
        .store(TopologyNames.NODES_STORE, AvroSerde.of(NodeState.class))
        .store(TopologyNames.NODE_TIMERS_STORE, Serdes.String())
        .init();
  }

  static PodRef pod(String uid, String name, int priority) {
    return PodRef.newBuilder()
        .setUid(uid)
        .setNamespace("ai-lab")
        .setName(name)
        .setPriority(priority)
        .build();
  }

  static void fact(MockStage s, String kind, double at, PodRef pod) {
    NodeFact f =
        NodeFact.newBuilder().setNode(NODE).setKind(kind).setAt(at(at)).setPod(pod).build();
    s.message(NODE, new StageMessage(pod.getUid(), f), at(at));
  }

  @Test
  void shouldNameTheNominatedPodAsPreemptorOnceThePodStagePassedThePreemptionPlusGrace() {
    MockStage s = stage();
    PodRef victim = pod("u-victim", "asr-batch-x1", 100);
    PodRef preemptor = pod("u-chat", "chat-0", 100_000);
    fact(s, "victim", 10, victim);
    fact(s, "nominated", 10.5, preemptor);
    fact(s, "nominated", 11, pod("u-low", "embed-0", 50)); // outranked: not a preemptor
    s.watermark(Watermarks.PODS, 0, at(10) + GRACE - 1, Long.MIN_VALUE);
    assertThat(s.records(TopologyNames.NODES_TO_POD_SINK))
        .as("a nomination may still come")
        .isEmpty();

    s.watermark(Watermarks.PODS, 0, at(10) + GRACE, Long.MIN_VALUE);
    List<Record<String, Object>> out = s.records(TopologyNames.NODES_TO_POD_SINK);
    assertThat(out).hasSize(2);
    assertThat(out.get(0).key()).as("to the victim, by name").isEqualTo("ai-lab/asr-batch-x1");
    PreemptorDetails d = (PreemptorDetails) ((StageMessage) out.get(0).value()).getPayload();
    assertThat(d.getVictimUid()).isEqualTo("u-victim");
    assertThat(d.getPreemptor().getUid()).isEqualTo("u-chat");
    assertThat(d.getPreemptor().getInferred()).as("no Kubernetes object said so").isTrue();
    assertThat(out.get(1).key()).as("to the preemptor, by name").isEqualTo("ai-lab/chat-0");
    VictimLink l = (VictimLink) ((StageMessage) out.get(1).value()).getPayload();
    assertThat(l.getVictimUid()).isEqualTo("u-victim");
    assertThat(l.getInferred()).isTrue();
    assertThat(out).allMatch(r -> r.timestamp() == at(10));

    s.clear();
    s.watermark(Watermarks.PODS, 0, at(10) + 2 * GRACE, Long.MIN_VALUE);
    assertThat(s.records(TopologyNames.NODES_TO_POD_SINK)).as("decided once").isEmpty();
  }

  @Test
  void shouldSayItAnsweredEverythingUpToWhatThePodStagePassed() {
    MockStage s = stage();
    s.watermark(Watermarks.PODS, 0, at(30), Long.MIN_VALUE);
    s.punctuate(TopologySettings.WATERMARK_INTERVAL, 1_000);
    List<Watermark> w = s.watermarks(TopologyNames.NODES_TO_POD_SINK);
    assertThat(w).hasSize(1);
    assertThat(w.get(0).getStage()).isEqualTo(Watermarks.NODES);
    assertThat(w.get(0).getAnswered()).isEqualTo(at(30));
  }
}
