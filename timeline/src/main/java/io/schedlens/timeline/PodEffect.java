package io.schedlens.timeline;

import io.schedlens.avro.internal.TimelineState;

/**
 * One thing that follows from an input to a pod, for the stage to carry out, in the order {@link
 * PodLife} lists them: a message to another pod, a fact for the workload or node stage, a timer,
 * the pod's durations to observe, its timeline to publish now or at the next flush.
 */
public sealed interface PodEffect {

  /** Hands this effect to the carrier's method for its kind. */
  void to(Carrier carrier);

  /** What carries the effects out (the pod stage). */
  interface Carrier {
    void send(Outbound message, long at);

    void tell(FactsToTell.Tell fact);

    void callAt(PodTimer timer, long at, String uid);

    void observed(TimelineState pod);

    /** Publishes the pod's timeline now; {@code flushed}: nothing of it waits for the flush. */
    void publish(TimelineState pod, boolean flushed);

    /** The pod's counters moved: publish it at the next flush. */
    void dirty(TimelineState pod);
  }

  record Send(Outbound message, long at) implements PodEffect {
    @Override
    public void to(Carrier carrier) {
      carrier.send(message, at);
    }
  }

  record Tell(FactsToTell.Tell fact) implements PodEffect {
    @Override
    public void to(Carrier carrier) {
      carrier.tell(fact);
    }
  }

  record CallAt(PodTimer timer, long at, String uid) implements PodEffect {
    @Override
    public void to(Carrier carrier) {
      carrier.callAt(timer, at, uid);
    }
  }

  record Observed(TimelineState pod) implements PodEffect {
    @Override
    public void to(Carrier carrier) {
      carrier.observed(pod);
    }
  }

  record Publish(TimelineState pod, boolean flushed) implements PodEffect {
    @Override
    public void to(Carrier carrier) {
      carrier.publish(pod, flushed);
    }
  }

  record Dirty(TimelineState pod) implements PodEffect {
    @Override
    public void to(Carrier carrier) {
      carrier.dirty(pod);
    }
  }
}
