package io.schedlens.simulator.live;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.Watch;
import io.fabric8.kubernetes.client.Watcher;
import io.fabric8.kubernetes.client.WatcherException;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.Test;

/** What the simulator relies on in its API server (fabric8's mock, CRUD mode, two hooks). */
class SimulatedApiServerTest {

  static Pod pod() {
    return new PodBuilder()
        .withNewMetadata()
        .withName("p1")
        .withNamespace("ai-lab")
        .withUid("11111111-2222-3333-4444-555555555555")
        .withCreationTimestamp("2026-01-01T00:00:07Z")
        .endMetadata()
        .withNewSpec()
        .addNewContainer()
        .withName("c")
        .withImage("x")
        .endContainer()
        .endSpec()
        .withNewStatus()
        .withPhase("Pending")
        .endStatus()
        .build();
  }

  @Test
  void shouldKeepUidAndCreationTimeAndHoldTerminatingPodsUntilDeleted() {
    try (SimulatedApiServer api = SimulatedApiServer.start()) {
      KubernetesClient client = api.client();
      List<String> seen = new CopyOnWriteArrayList<>();
      try (Watch w =
          client
              .pods()
              .inNamespace("ai-lab")
              .watch(
                  new Watcher<>() {
                    @Override
                    public void eventReceived(Action action, Pod p) {
                      seen.add(
                          action
                              + " "
                              + p.getMetadata().getDeletionTimestamp()
                              + " "
                              + (p.getStatus() == null ? null : p.getStatus().getPhase())
                              + " "
                              + p.getMetadata().getFinalizers());
                    }

                    @Override
                    public void onClose(WatcherException cause) {}
                  })) {
        Pod created = client.pods().inNamespace("ai-lab").resource(pod()).create();
        assertThat(created.getMetadata().getUid())
            .isEqualTo("11111111-2222-3333-4444-555555555555");
        Pod stored = client.pods().inNamespace("ai-lab").withName("p1").get();
        assertThat(stored.getMetadata().getUid()).isEqualTo("11111111-2222-3333-4444-555555555555");
        assertThat(stored.getMetadata().getCreationTimestamp()).isEqualTo("2026-01-01T00:00:07Z");

        Pod running = new PodBuilder(stored).editStatus().withPhase("Running").endStatus().build();
        client.pods().inNamespace("ai-lab").resource(running).updateStatus();
        assertThat(client.pods().inNamespace("ai-lab").withName("p1").get().getStatus().getPhase())
            .isEqualTo("Running");

        Pod current = client.pods().inNamespace("ai-lab").withName("p1").get();
        client
            .pods()
            .inNamespace("ai-lab")
            .resource(
                new PodBuilder(current)
                    .editMetadata()
                    .withDeletionTimestamp("2026-01-01T00:01:07Z")
                    .withDeletionGracePeriodSeconds(30L)
                    .endMetadata()
                    .build())
            .update();
        Pod terminating = client.pods().inNamespace("ai-lab").withName("p1").get();
        assertThat(terminating).isNotNull();
        assertThat(terminating.getMetadata().getDeletionTimestamp())
            .isEqualTo("2026-01-01T00:01:07Z");
        assertThat(terminating.getMetadata().getFinalizers()).isEmpty();
        assertThat(terminating.getMetadata().getCreationTimestamp())
            .isEqualTo("2026-01-01T00:00:07Z");

        client
            .pods()
            .inNamespace("ai-lab")
            .resource(
                new PodBuilder(terminating).editStatus().withPhase("Failed").endStatus().build())
            .updateStatus();
        assertThat(client.pods().inNamespace("ai-lab").withName("p1").get().getStatus().getPhase())
            .isEqualTo("Failed");

        client.pods().inNamespace("ai-lab").withName("p1").withGracePeriod(0).delete();
        assertThat(client.pods().inNamespace("ai-lab").withName("p1").get()).isNull();
        await().atMost(Duration.ofSeconds(10)).until(() -> seen.size() >= 5);
        System.out.println(seen);
        assertThat(seen.get(0)).startsWith("ADDED");
        assertThat(seen.get(seen.size() - 1)).startsWith("DELETED");
        assertThat(seen).noneMatch(s -> s.contains("simulated-graceful-deletion"));
      }
    }
  }
}
