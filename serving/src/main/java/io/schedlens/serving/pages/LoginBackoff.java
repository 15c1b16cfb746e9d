package io.schedlens.serving.pages;

import java.time.Clock;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * How long a client must wait before its next login, after failed ones: the first {@link #FREE}
 * failures cost nothing (a mistyped token), then each further one doubles the wait, from a second
 * up to {@link #MAX_WAIT}; a success, or {@link #FORGET} without a failure, starts the client
 * afresh. Clients are told apart by their address ({@code api.client.address.header} when a proxy
 * is in front). At most {@link #CLIENTS} are remembered, the least recent forgotten first.
 */
final class LoginBackoff {

  static final int FREE = 5;
  static final Duration MAX_WAIT = Duration.ofMinutes(5);
  static final Duration FORGET = Duration.ofHours(1);
  static final int CLIENTS = 10_000;

  private record Failures(int count, long lastAt, long waitUntil) {}

  private final Clock clock;
  private final Map<String, Failures> clients =
      new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<String, Failures> eldest) {
          return size() > CLIENTS;
        }
      };

  LoginBackoff(Clock clock) {
    this.clock = clock;
  }

  /** How long {@code client} must still wait before its next login is tried; zero: it may. */
  synchronized Duration waitOf(String client) {
    Failures f = current(client);
    long now = clock.millis();
    return f == null || f.waitUntil() <= now
        ? Duration.ZERO
        : Duration.ofMillis(f.waitUntil() - now);
  }

  synchronized void failed(String client) {
    Failures f = current(client);
    int count = f == null ? 1 : f.count() + 1;
    long now = clock.millis();
    long wait =
        count <= FREE ? 0 : Math.min(MAX_WAIT.toMillis(), 1000L << Math.min(30, count - FREE - 1));
    clients.put(client, new Failures(count, now, now + wait));
  }

  synchronized void succeeded(String client) {
    clients.remove(client);
  }

  private Failures current(String client) {
    Failures f = clients.get(client);
    if (f != null && clock.millis() - f.lastAt() > FORGET.toMillis()) {
      clients.remove(client);
      return null;
    }
    return f;
  }
}
