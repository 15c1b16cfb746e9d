package io.schedlens.topology;

import io.schedlens.avro.internal.TimelineState;
import io.schedlens.timeline.FactsToTell;
import io.schedlens.timeline.Outbound;
import io.schedlens.timeline.PodEffect;
import io.schedlens.timeline.PodTimer;
import io.schedlens.topology.metrics.PodMetrics;
import java.util.Set;
import java.util.function.Consumer;

/** The stage's side of a pod's effects: its sinks, its timers, its metrics, its flush. */
final class PodEffectCarrier implements PodEffect.Carrier {
  private final String key;
  private final PodStageOutputs out;
  private final PodEventTime eventTime;
  private final PodMetrics podMetrics;
  private final Set<String> dirty;
  private final Consumer<TimelineState> publish;

  /**
   * @param key the name whose pods' effects these are
   * @param dirty timelines to publish at the next flush
   * @param publish publishes a timeline now
   */
  PodEffectCarrier(
      String key,
      PodStageOutputs out,
      PodEventTime eventTime,
      PodMetrics podMetrics,
      Set<String> dirty,
      Consumer<TimelineState> publish) {
    this.key = key;
    this.out = out;
    this.eventTime = eventTime;
    this.podMetrics = podMetrics;
    this.dirty = dirty;
    this.publish = publish;
  }

  @Override
  public void send(Outbound message, long at) {
    out.send(message, at);
  }

  @Override
  public void tell(FactsToTell.Tell fact) {
    out.tell(fact);
  }

  @Override
  public void callAt(PodTimer timer, long at, String uid) {
    eventTime.callAt(timer, at, new TimerTarget(key, uid));
  }

  @Override
  public void observed(TimelineState pod) {
    podMetrics.observeDurations(pod);
  }

  @Override
  public void publish(TimelineState pod, boolean flushed) {
    publish.accept(pod);
    if (flushed) {
      dirty.remove(new TimerTarget(key, pod.getUid()).id());
    }
  }

  @Override
  public void dirty(TimelineState pod) {
    dirty.add(new TimerTarget(key, pod.getUid()).id());
  }
}
