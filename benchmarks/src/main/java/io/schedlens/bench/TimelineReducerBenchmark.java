package io.schedlens.bench;

import io.schedlens.avro.ChangeType;
import io.schedlens.avro.ClusterEvent;
import io.schedlens.avro.ContainerStatus;
import io.schedlens.avro.GpuSample;
import io.schedlens.avro.ObjectReference;
import io.schedlens.avro.OwnerReference;
import io.schedlens.avro.PodCondition;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.RequestLog;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.schemas.AvroSerde;
import io.schedlens.timeline.TimelineReducer;
import io.schedlens.timeline.TimelineSettings;
import io.schedlens.timeline.TimelineView;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/**
 * One input through the timeline stage as its processor handles it: read the pod's state from the
 * store's bytes, apply the input, write the state back as bytes. The mix of inputs is the one of a
 * busy GPU cluster (mostly GPU samples and requests).
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.SECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class TimelineReducerBenchmark {

  private final AvroSerde<TimelineState> serde = AvroSerde.of(TimelineState.class);
  private final TimelineReducer reducer =
      new TimelineReducer(TimelineSettings.defaults().withSlos(Map.of("chat", 800.0)));
  private final TimelineView view = new TimelineView(TimelineSettings.defaults());
  private byte[] stored;
  private PodObservation observation;
  private ClusterEvent event;
  private long t = 1_764_411_330_000L;

  @Setup
  public void setup() {
    observation =
        PodObservation.newBuilder()
            .setUid("u-1")
            .setNamespace("ai-lab")
            .setName("chat-0")
            .setResourceVersion("100")
            .setChangeType(ChangeType.MODIFIED)
            .setObservedAt(t)
            .setCreatedAt(t - 60_000)
            .setGpus(1)
            .setPriorityClassName("interactive")
            .setPriority(100000)
            .setNodeName("gpu-node-1")
            .setPhase("Running")
            .setOwner(new OwnerReference("ReplicaSet", "chat-5d8f7", "rs"))
            .setConditions(
                List.of(
                    new PodCondition("PodScheduled", "True", null, null, t - 50_000),
                    new PodCondition("Ready", "True", null, null, t - 20_000)))
            .setContainers(
                List.of(
                    ContainerStatus.newBuilder()
                        .setName("model")
                        .setReady(true)
                        .setRunningStartedAt(t - 45_000)
                        .build()))
            .setLabels(Map.of("pod-template-hash", "5d8f7", "schedlens.io/arm", "treatment"))
            .build();
    event =
        ClusterEvent.newBuilder()
            .setUid("e-1")
            .setApiVersion("events.k8s.io/v1")
            .setChangeType(ChangeType.ADDED)
            .setObservedAt(t)
            .setReason("FailedScheduling")
            .setNote(
                "0/4 nodes are available: 1 node(s) had untolerated taint(s), 3 Insufficient nvidia.com/gpu. preemption: 0/4 nodes are available: 4 No preemption victims found for incoming pod.")
            .setRegarding(ObjectReference.newBuilder().setKind("Pod").setUid("u-1").build())
            .setEventTime(t - 55_000)
            .setSeriesCount(4)
            .build();
    TimelineState s = TimelineReducer.empty("u-1");
    reducer.apply(s, observation);
    reducer.apply(s, event);
    for (int i = 0; i < 200; i++) {
      reducer.apply(s, sample(t + i * 15_000L));
      reducer.apply(s, request(t + i * 1_000L));
    }
    stored = serde.serialize("s", s);
  }

  private GpuSample sample(long time) {
    return GpuSample.newBuilder()
        .setTime(time)
        .setNode("gpu-node-1")
        .setGpu("0")
        .setUuid("GPU-1")
        .setNamespace("ai-lab")
        .setPod("chat-0")
        .setFields(Map.of("DCGM_FI_DEV_GPU_UTIL", 63.0, "DCGM_FI_DEV_FB_USED", 70000.0))
        .build();
  }

  private RequestLog request(long time) {
    return RequestLog.newBuilder()
        .setTime(time)
        .setNamespace("ai-lab")
        .setPod("chat-0")
        .setService("chat")
        .setStatus(200)
        .setLatencyMs(120.0 + (time % 900))
        .setReceivedAt(time)
        .build();
  }

  private byte[] roundTrip(Object input) {
    TimelineState s = serde.deserialize("s", stored);
    reducer.applyAny(s, input);
    return serde.serialize("s", s);
  }

  @Benchmark
  public byte[] gpuSample() {
    t += 15_000;
    return roundTrip(sample(t));
  }

  @Benchmark
  public byte[] request() {
    t += 250;
    return roundTrip(request(t));
  }

  @Benchmark
  public byte[] podObservation() {
    return roundTrip(observation);
  }

  @Benchmark
  public byte[] failedSchedulingEvent() {
    return roundTrip(event);
  }

  @Benchmark
  public Object viewOfALivePod() {
    return view.view(serde.deserialize("s", stored), t, false);
  }
}
