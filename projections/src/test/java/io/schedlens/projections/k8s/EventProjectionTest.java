package io.schedlens.projections.k8s;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventSource;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.events.v1.EventBuilder;
import io.fabric8.kubernetes.api.model.events.v1.EventSeries;
import io.schedlens.avro.ChangeType;
import io.schedlens.avro.ClusterEvent;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class EventProjectionTest {

  static final String FILE = "troubleshoot-message-image-pull-fail.json";

  static long t(String s) {
    return Instant.parse(s).toEpochMilli();
  }

  @Test
  void shouldProjectASchedulerEventWithMicrosecondTimeAndSeries() {
    Event e = K8sFixtures.event(FILE, "FailedScheduling");

    ClusterEvent c = EventProjection.project(e, ChangeType.ADDED, 5L);

    assertThat(c.getReason()).isEqualTo("FailedScheduling");
    assertThat(c.getNote())
        .isEqualTo(
            "0/1 nodes are available: 1 Insufficient nvidia.com/gpu. preemption: 0/1 nodes are"
                + " available: 1 No preemption victims found for incoming pod.");
    assertThat(c.getEventTime()).isEqualTo(t("2023-07-11T04:25:44.224Z"));
    assertThat(c.getSeriesCount()).isEqualTo(3);
    assertThat(c.getSeriesLastObservedTime()).isEqualTo(t("2023-07-11T04:40:44.264Z"));
    assertThat(c.getFirstTimestamp()).isNull();
    assertThat(c.getCount()).isNull();
    assertThat(c.getReportingController()).isEqualTo("default-scheduler");
    assertThat(c.getReportingInstance()).isEqualTo("default-scheduler-minikube");
    assertThat(c.getAction()).isEqualTo("Scheduling");
    assertThat(c.getType()).isEqualTo("Warning");
    assertThat(c.getRegarding().getKind()).isEqualTo("Pod");
    assertThat(c.getRegarding().getUid()).isEqualTo("e4d4c4cc-2c41-4ab7-b41c-9c8b28ded451");
    assertThat(c.getApiVersion()).isEqualTo("v1");
    assertThat(EventProjection.isAboutPod(c)).isTrue();
  }

  @Test
  void shouldProjectAKubeletEventWithCountAndLegacySource() {
    Event e = K8sFixtures.event(FILE, "Pulling");

    ClusterEvent c = EventProjection.project(e, ChangeType.ADDED, 5L);

    assertThat(c.getEventTime()).isNull();
    assertThat(c.getFirstTimestamp()).isEqualTo(t("2023-07-11T05:34:45Z"));
    assertThat(c.getLastTimestamp()).isEqualTo(t("2023-07-11T05:36:11Z"));
    assertThat(c.getCount()).isEqualTo(4);
    assertThat(c.getReportingController()).isEqualTo("kubelet");
    assertThat(c.getReportingInstance()).isEqualTo("minikube");
    assertThat(c.getRegarding().getFieldPath())
        .isEqualTo("spec.containers{demo-deployment-container}");
  }

  @Test
  void shouldNotTakeWorkloadEventsForPodEvents() {
    ClusterEvent c =
        EventProjection.project(K8sFixtures.event(FILE, "ScalingReplicaSet"), ChangeType.ADDED, 5L);

    assertThat(EventProjection.isAboutPod(c)).isFalse();
  }

  @Test
  void shouldProjectBothApiViewsOfOneEventAlikeButForTheApiVersion() {
    Event core = K8sFixtures.event(FILE, "FailedScheduling");
    // The same stored object as events.k8s.io/v1 serves it (field mapping of the API conversion).
    var v1 =
        new EventBuilder()
            .withMetadata(core.getMetadata())
            .withReason(core.getReason())
            .withNote(core.getMessage())
            .withType(core.getType())
            .withAction(core.getAction())
            .withRegarding(core.getInvolvedObject())
            .withRelated(core.getRelated())
            .withReportingController(core.getReportingComponent())
            .withReportingInstance(core.getReportingInstance())
            .withEventTime(new MicroTime(core.getEventTime().getTime()))
            .withSeries(
                new EventSeries(
                    core.getSeries().getCount(),
                    new MicroTime(core.getSeries().getLastObservedTime().getTime())))
            .withDeprecatedSource(new EventSource(null, null))
            .build();

    ClusterEvent fromCore = EventProjection.project(core, ChangeType.ADDED, 5L);
    ClusterEvent fromEvents = EventProjection.project(v1, ChangeType.ADDED, 5L);

    assertThat(fromEvents.getApiVersion()).isEqualTo("events.k8s.io/v1");
    fromEvents.setApiVersion("v1");
    assertThat(fromEvents).isEqualTo(fromCore);
  }

  @Test
  void shouldProjectEveryEventOfEveryRealEventList() {
    for (String f :
        new String[] {
          FILE,
          "troubleshoot-message-container-creating-failed-mount.json",
          "troubleshoot-message-pod-init-crashloop-backoff.json"
        }) {
      for (Event e : K8sFixtures.events(f)) {
        ClusterEvent c = EventProjection.project(e, ChangeType.RELIST, 1L);
        assertThat(c.getUid()).isNotBlank();
        assertThat(
                c.getEventTime() != null
                    || c.getFirstTimestamp() != null
                    || c.getLastTimestamp() != null)
            .as("%s %s has a time", f, e.getReason())
            .isTrue();
      }
    }
  }
}
