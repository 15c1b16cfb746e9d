package io.schedlens.timeline;

import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Who preempted a victim, as the scheduler's words say it: the Preempted event's note ({@code
 * Preempted by pod <uid> on node <node>} from kube-scheduler; {@code Preempted by <ns>/<name> on
 * node <node>} from older and plugin schedulers), and the 1.25-1.26 DisruptionTarget message
 * ({@code ...: preempting to accommodate a higher priority pod: <ns>/<name>}). From 1.27 the
 * condition no longer names the preemptor. Pure.
 */
public final class PreemptionNotes {

  /** A preemptor as named: by UID, or by namespace and name; and the node when said. */
  public record Named(String uid, String namespace, String name, String node) {}

  private static final Pattern BY_UID =
      Pattern.compile("^Preempted by pod ([0-9a-fA-F-]{8,}) on node (\\S+)");
  private static final Pattern BY_NAME =
      Pattern.compile("^Preempted by ([a-z0-9][-a-z0-9.]*)/([a-z0-9][-a-z0-9.]*) on node (\\S+)");
  private static final Pattern CONDITION =
      Pattern.compile("higher priority pod: ([a-z0-9][-a-z0-9.]*)/([a-z0-9][-a-z0-9.]*)\\s*$");

  private PreemptionNotes() {}

  /** The preemptor named in a Preempted event's note. */
  public static Optional<Named> fromNote(String note) {
    if (note == null) {
      return Optional.empty();
    }
    Matcher m = BY_UID.matcher(note);
    if (m.find()) {
      return Optional.of(new Named(m.group(1), null, null, m.group(2)));
    }
    m = BY_NAME.matcher(note);
    if (m.find()) {
      return Optional.of(new Named(null, m.group(1), m.group(2), m.group(3)));
    }
    return Optional.empty();
  }

  /** The preemptor named in a DisruptionTarget message (Kubernetes 1.25-1.26). */
  public static Optional<Named> fromConditionMessage(String message) {
    if (message == null) {
      return Optional.empty();
    }
    Matcher m = CONDITION.matcher(message);
    return m.find() ? Optional.of(new Named(null, m.group(1), m.group(2), null)) : Optional.empty();
  }
}
