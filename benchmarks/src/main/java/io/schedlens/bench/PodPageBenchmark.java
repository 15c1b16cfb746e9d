package io.schedlens.bench;

import io.schedlens.avro.ChangeType;
import io.schedlens.avro.ContainerStatus;
import io.schedlens.avro.GpuSample;
import io.schedlens.avro.OwnerReference;
import io.schedlens.avro.PodCondition;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.RequestLog;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.avro.internal.TimelineState;
import io.schedlens.schemas.WorkloadKey;
import io.schedlens.serving.api.Listing;
import io.schedlens.serving.pages.PageSource;
import io.schedlens.serving.pages.PagesAccess;
import io.schedlens.serving.pages.TimelinePages;
import io.schedlens.timeline.TimelineReducer;
import io.schedlens.timeline.TimelineSettings;
import io.schedlens.timeline.TimelineView;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
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
 * Server-side rendering of a pod's timeline page for a serving pod that lived a week: a DCGM sample
 * every 15 s (40,320) and a request every 2 s (302,400) went through the timeline reducer into its
 * state, whose published timeline the page is drawn from (the series bounded to 64 points). Target:
 * under 100 ms per page.
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class PodPageBenchmark {

  private static final long WEEK_MS = 7 * 86_400_000L;
  private TimelinePages pages;
  private PodTimeline timeline;

  @Setup
  public void setup() throws IOException {
    TimelineSettings settings = TimelineSettings.defaults().withSlos(Map.of("chat", 800.0));
    TimelineReducer reducer = new TimelineReducer(settings);
    long t0 = 1_764_411_330_000L;
    TimelineState s = TimelineReducer.empty("u-week");
    reducer.apply(
        s,
        PodObservation.newBuilder()
            .setUid("u-week")
            .setNamespace("ai-lab")
            .setName("chat-0")
            .setResourceVersion("100")
            .setChangeType(ChangeType.MODIFIED)
            .setObservedAt(t0)
            .setCreatedAt(t0 - 600_000)
            .setGpus(1)
            .setPriorityClassName("interactive")
            .setPriority(100000)
            .setNodeName("gpu-node-1")
            .setPhase("Running")
            .setOwner(new OwnerReference("ReplicaSet", "chat-5d8f7", "rs"))
            .setConditions(
                List.of(
                    new PodCondition("PodScheduled", "True", null, null, t0 - 300_000),
                    new PodCondition("Ready", "True", null, null, t0 - 60_000)))
            .setContainers(
                List.of(
                    ContainerStatus.newBuilder()
                        .setName("model")
                        .setReady(true)
                        .setRunningStartedAt(t0 - 240_000)
                        .build()))
            .build());
    Random random = new Random(1);
    for (long t = t0; t < t0 + WEEK_MS; t += 2_000) {
      if ((t - t0) % 15_000 < 2_000) {
        reducer.apply(
            s,
            GpuSample.newBuilder()
                .setTime(t)
                .setNode("gpu-node-1")
                .setGpu("0")
                .setUuid("GPU-1")
                .setNamespace("ai-lab")
                .setPod("chat-0")
                .setIntervalMs(15_000L)
                .setFields(Map.of("DCGM_FI_DEV_GPU_UTIL", 40.0 + random.nextInt(50)))
                .build());
      }
      reducer.apply(
          s,
          RequestLog.newBuilder()
              .setTime(t)
              .setNamespace("ai-lab")
              .setPod("chat-0")
              .setService("chat")
              .setStatus(random.nextInt(100) == 0 ? 503 : 200)
              .setLatencyMs(80.0 + random.nextInt(900))
              .setReceivedAt(t)
              .build());
    }
    timeline = new TimelineView(settings).view(s, t0 + WEEK_MS, false);
    if (timeline.getSeries().getPoints().size() > 64) {
      throw new IllegalStateException("the series is not bounded");
    }
    pages = new TimelinePages(onePod(timeline), PagesAccess.open());
  }

  /** Pages over one pod's timeline. */
  private static PageSource onePod(PodTimeline one) {
    return new PageSource() {
      @Override
      public Optional<PodTimeline> pod(String uid) {
        return uid.equals(one.getUid()) ? Optional.of(one) : Optional.empty();
      }

      @Override
      public Listing<PodTimeline> pods(String state, Map<String, String> filters, int limit) {
        return new Listing<>(List.of(one), 1, null);
      }

      @Override
      public Optional<WorkloadTimeline> workload(WorkloadKey key) {
        return Optional.empty();
      }

      @Override
      public Listing<WorkloadTimeline> workloads(Map<String, String> filters, int limit) {
        return new Listing<>(List.of(), 0, null);
      }

      @Override
      public long now() {
        return one.getUpdatedAt();
      }
    };
  }

  @Benchmark
  public String renderAWeekLongPod() throws IOException {
    return pages.podPage(timeline);
  }
}
