package io.schedlens.simulator.cluster;

import io.schedlens.simulator.scenario.Scenario.Traffic;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The users of a serving workload and its load balancer: each tick draws the requests of the tick
 * to come (Poisson), spreads them over the workload's Ready pods, and logs each one as the pod's
 * server would, with a latency that grows with the load per replica; a request that finds no Ready
 * pod, or a pod on a stopped node, is turned away.
 */
final class TrafficGenerator {

  private final ClusterState c;
  private final RequestSink requests;
  private long requestSeq;
  private long unserved;
  private final Map<String, Long> unservedByService = new LinkedHashMap<>();

  TrafficGenerator(ClusterState c, RequestSink requests) {
    this.c = c;
    this.requests = requests;
  }

  /** Requests that found no Ready pod to serve them (users turned away). */
  long unserved() {
    return unserved;
  }

  Map<String, Long> unservedByService() {
    return Map.copyOf(unservedByService);
  }

  /** Traffic to the workload's pods from {@code at} on, until the run ends. */
  void start(DeploymentController rs, long at) {
    c.queue.at(at, () -> tick(rs));
  }

  private void tick(DeploymentController rs) {
    if (c.ended) {
      return;
    }
    long now = c.queue.now();
    Traffic t = rs.spec.traffic();
    if (rs.desired > 0) {
      List<SimPod> ready = rs.readyPods();
      long tick = t.tick().toMillis();
      int n = poisson(t.ratePerSecond() * tick / 1000.0);
      double load =
          ready.isEmpty() ? 0 : t.ratePerSecond() / (ready.size() * t.capacityPerReplica());
      double factor = 1.0 / (1.0 - Math.min(load, 0.9));
      for (int i = 0; i < n; i++) {
        long at = now + c.random.nextInt((int) tick);
        if (ready.isEmpty()) {
          turnedAway(t);
          continue;
        }
        SimPod p = ready.get(c.random.nextInt(ready.size()));
        if (c.down.contains(p.node)) {
          // Routed to a pod on a stopped node that is still Ready on the API: nobody answers.
          turnedAway(t);
          continue;
        }
        double latency = t.latencyMedianMs() * Math.exp(t.latencySigma() * gaussian()) * factor;
        boolean error = c.random.nextDouble() < t.errorRate();
        int status = error ? 500 : 200;
        LiveTruth truthOf = c.truth(p.uid);
        truthOf.requests++;
        Double slo = c.scenario.slos().get(t.service());
        if (slo == null && p.priorityClassName != null) {
          slo = c.scenario.slos().get(p.priorityClassName);
        }
        double logged = Math.round(latency * 10) / 10.0;
        if (slo != null && logged > slo) {
          truthOf.sloBreaches++;
        }
        if (error) {
          truthOf.errors++;
        } else if (p.firstOkAt == null || at < p.firstOkAt) {
          p.firstOkAt = at;
        }
        requests.request(
            at,
            p.namespace,
            p.name,
            t.service(),
            "/v1/chat/completions",
            status,
            logged,
            Math.round(latency * 0.18 * 10) / 10.0,
            "req-" + c.repeat + "-" + (++requestSeq));
      }
    }
    c.queue.after(t.tick().toMillis(), () -> tick(rs));
  }

  private void turnedAway(Traffic t) {
    unserved++;
    unservedByService.merge(t.service(), 1L, Long::sum);
  }

  private int poisson(double lambda) {
    if (lambda > 30) {
      return (int) Math.max(0, Math.round(lambda + Math.sqrt(lambda) * gaussian()));
    }
    double l = Math.exp(-lambda);
    int k = 0;
    double p = 1;
    do {
      k++;
      p *= c.random.nextDouble();
    } while (p > l);
    return k - 1;
  }

  private double gaussian() {
    // Box-Muller on the run's own random source (deterministic).
    double u = Math.max(1e-12, c.random.nextDouble());
    double v = c.random.nextDouble();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
}
