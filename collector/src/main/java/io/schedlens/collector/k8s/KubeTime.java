package io.schedlens.collector.k8s;

import io.schedlens.base.Rfc3339;

/**
 * Kubernetes time strings to epoch milliseconds: {@code Time} (RFC 3339, second granularity, e.g.
 * {@code 2023-07-11T04:20:29Z}) and {@code MicroTime} (with microseconds, e.g. {@code
 * 2023-07-11T04:25:44.224298Z}), truncated to milliseconds.
 */
public final class KubeTime {

  private KubeTime() {}

  /** Epoch milliseconds, or null for a null, empty or unreadable time. */
  public static Long millis(String time) {
    return Rfc3339.toEpochMilli(time);
  }
}
