package io.schedlens.simulator.cluster;

import java.util.SplittableRandom;
import java.util.UUID;

/**
 * Generated names and UIDs, as Kubernetes makes them, drawn from the run's random source so that
 * the same seed gives the same names.
 */
public final class Names {

  /** k8s.io/apimachinery's rand alphabet: no vowels (no words), no confusable characters. */
  private static final String ALPHANUMS = "bcdfghjklmnpqrstvwxz2456789";

  private final SplittableRandom random;

  public Names(SplittableRandom random) {
    this.random = random;
  }

  /** A {@code generateName} suffix: five characters. */
  public String suffix() {
    return chars(5);
  }

  /** A pod-template-hash: ten characters. */
  public String templateHash() {
    return chars(10);
  }

  public String chars(int n) {
    StringBuilder b = new StringBuilder(n);
    for (int i = 0; i < n; i++) {
      b.append(ALPHANUMS.charAt(random.nextInt(ALPHANUMS.length())));
    }
    return b.toString();
  }

  /** A random (version 4) UID. */
  public String uid() {
    long hi = (random.nextLong() & 0xffffffffffff0fffL) | 0x0000000000004000L;
    long lo = (random.nextLong() & 0x3fffffffffffffffL) | 0x8000000000000000L;
    return new UUID(hi, lo).toString();
  }

  /** An event name: the object's name, a dot, 16 hex digits (client-go's form). */
  public String eventName(String objectName) {
    return objectName + "." + String.format("%016x", random.nextLong());
  }

  /** A GPU UUID as nvidia-smi and dcgm-exporter show it. */
  public String gpuUuid() {
    return "GPU-" + uid();
  }
}
