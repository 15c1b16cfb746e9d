package io.schedlens.timeline;

import io.schedlens.avro.internal.PreemptorDetails;
import io.schedlens.avro.internal.VictimLink;

/** A message one pod's timeline sends to another pod's timeline. */
public sealed interface Outbound {

  /** To the preemptor: by UID when known, else by namespace/name (resolved by name). */
  record ToPreemptor(VictimLink link) implements Outbound {}

  /**
   * To a victim: who its preemptor is.
   *
   * @param victim the victim's {@code namespace/name}, where the answer goes (null when the victim
   *     did not say)
   */
  record ToVictim(PreemptorDetails details, String victim) implements Outbound {}
}
