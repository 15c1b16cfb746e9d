package io.schedlens.projections.k8s;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.MicroTime;
import io.fabric8.kubernetes.api.model.ObjectReference;
import io.schedlens.avro.ChangeType;
import io.schedlens.avro.ClusterEvent;
import io.schedlens.base.KubeTime;

/**
 * Projects Kubernetes Events, from either API, onto {@link ClusterEvent} with the events.k8s.io/v1
 * field names. The two APIs are two views of the same stored object (the scheduler writes through
 * events.k8s.io/v1 and fills eventTime and series; the kubelet writes core/v1 with
 * first/lastTimestamp and count), so both views of one event project to the same record apart from
 * {@code apiVersion}.
 */
public final class EventProjection {

  /** API version string of the events.k8s.io group. */
  public static final String EVENTS_V1 = "events.k8s.io/v1";

  /** API version string of core events. */
  public static final String CORE_V1 = "v1";

  private EventProjection() {}

  /** Whether the event is about a Pod (only those belong on a pod timeline). */
  public static boolean isAboutPod(ClusterEvent e) {
    return "Pod".equals(e.getRegarding().getKind());
  }

  /** Projects an events.k8s.io/v1 Event. */
  public static ClusterEvent project(
      io.fabric8.kubernetes.api.model.events.v1.Event e, ChangeType change, long observedAt) {
    var meta = e.getMetadata();
    Integer seriesCount = null;
    Long seriesLast = null;
    if (e.getSeries() != null) {
      seriesCount = e.getSeries().getCount();
      seriesLast = KubeTime.millis(micro(e.getSeries().getLastObservedTime()));
    }
    String controller = emptyToNull(e.getReportingController());
    String instance = emptyToNull(e.getReportingInstance());
    if (e.getDeprecatedSource() != null) {
      if (controller == null) {
        controller = emptyToNull(e.getDeprecatedSource().getComponent());
      }
      if (instance == null) {
        instance = emptyToNull(e.getDeprecatedSource().getHost());
      }
    }
    return ClusterEvent.newBuilder()
        .setUid(meta.getUid())
        .setNamespace(meta.getNamespace())
        .setName(meta.getName())
        .setApiVersion(EVENTS_V1)
        .setResourceVersion(meta.getResourceVersion())
        .setChangeType(change)
        .setObservedAt(observedAt)
        .setReason(emptyToNull(e.getReason()))
        .setNote(emptyToNull(e.getNote()))
        .setType(emptyToNull(e.getType()))
        .setAction(emptyToNull(e.getAction()))
        .setRegarding(reference(e.getRegarding()))
        .setRelated(e.getRelated() == null ? null : reference(e.getRelated()))
        .setReportingController(controller)
        .setReportingInstance(instance)
        .setEventTime(KubeTime.millis(micro(e.getEventTime())))
        .setFirstTimestamp(KubeTime.millis(e.getDeprecatedFirstTimestamp()))
        .setLastTimestamp(KubeTime.millis(e.getDeprecatedLastTimestamp()))
        .setCount(e.getDeprecatedCount())
        .setSeriesCount(seriesCount)
        .setSeriesLastObservedTime(seriesLast)
        .build();
  }

  /** Projects a core/v1 Event. */
  public static ClusterEvent project(Event e, ChangeType change, long observedAt) {
    var meta = e.getMetadata();
    Integer seriesCount = null;
    Long seriesLast = null;
    if (e.getSeries() != null) {
      seriesCount = e.getSeries().getCount();
      seriesLast = KubeTime.millis(micro(e.getSeries().getLastObservedTime()));
    }
    String controller = emptyToNull(e.getReportingComponent());
    String instance = emptyToNull(e.getReportingInstance());
    if (e.getSource() != null) {
      if (controller == null) {
        controller = emptyToNull(e.getSource().getComponent());
      }
      if (instance == null) {
        instance = emptyToNull(e.getSource().getHost());
      }
    }
    return ClusterEvent.newBuilder()
        .setUid(meta.getUid())
        .setNamespace(meta.getNamespace())
        .setName(meta.getName())
        .setApiVersion(CORE_V1)
        .setResourceVersion(meta.getResourceVersion())
        .setChangeType(change)
        .setObservedAt(observedAt)
        .setReason(emptyToNull(e.getReason()))
        .setNote(emptyToNull(e.getMessage()))
        .setType(emptyToNull(e.getType()))
        .setAction(emptyToNull(e.getAction()))
        .setRegarding(reference(e.getInvolvedObject()))
        .setRelated(e.getRelated() == null ? null : reference(e.getRelated()))
        .setReportingController(controller)
        .setReportingInstance(instance)
        .setEventTime(KubeTime.millis(micro(e.getEventTime())))
        .setFirstTimestamp(KubeTime.millis(e.getFirstTimestamp()))
        .setLastTimestamp(KubeTime.millis(e.getLastTimestamp()))
        .setCount(e.getCount())
        .setSeriesCount(seriesCount)
        .setSeriesLastObservedTime(seriesLast)
        .build();
  }

  private static io.schedlens.avro.ObjectReference reference(ObjectReference r) {
    if (r == null) {
      return io.schedlens.avro.ObjectReference.newBuilder().build();
    }
    return io.schedlens.avro.ObjectReference.newBuilder()
        .setKind(emptyToNull(r.getKind()))
        .setNamespace(emptyToNull(r.getNamespace()))
        .setName(emptyToNull(r.getName()))
        .setUid(emptyToNull(r.getUid()))
        .setApiVersion(emptyToNull(r.getApiVersion()))
        .setFieldPath(emptyToNull(r.getFieldPath()))
        .build();
  }

  private static String micro(MicroTime t) {
    return t == null ? null : t.getTime();
  }

  private static String emptyToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }
}
