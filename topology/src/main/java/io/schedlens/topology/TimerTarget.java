package io.schedlens.topology;

/**
 * What a timer is about: the key of the store entry ({@code namespace/name} of a pod stage's name,
 * or a node) and the UID of the pod in it. Kept in a {@link TimerIndex} as {@code key|uid}; a UID
 * has no {@code |}, so the last one splits them.
 */
record TimerTarget(String key, String uid) {

  static TimerTarget parse(String id) {
    int bar = id.lastIndexOf('|');
    return new TimerTarget(id.substring(0, bar), id.substring(bar + 1));
  }

  String id() {
    return key + "|" + uid;
  }
}
