package io.schedlens.whatif;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.schedlens.avro.ChangeType;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.RequestLog;
import io.schedlens.avro.WorkloadObservation;
import io.schedlens.base.KueueNames;
import io.schedlens.projections.k8s.EventProjection;
import io.schedlens.projections.k8s.OwnerChain;
import io.schedlens.projections.k8s.PodProjection;
import io.schedlens.projections.k8s.QueueWorkloadProjection;
import io.schedlens.projections.k8s.WorkloadProjection;
import io.schedlens.projections.records.Outgoing;
import io.schedlens.projections.records.Records;
import io.schedlens.simulator.cluster.ClusterWriter;
import io.schedlens.simulator.cluster.RequestSink;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.function.Consumer;
import java.util.function.LongSupplier;

/**
 * The simulated cluster as the collector would have sent it: every pod write, scheduler and kubelet
 * event, workload object and request log projected by the collector's own projections ({@link
 * PodProjection}, {@link EventProjection}, {@link WorkloadProjection}) and keyed by its {@link
 * Records}, read at the virtual moment it was written; a pod whose controller has one of its own (a
 * JobSet's Job) is grouped under the top of its chain through the objects the simulator wrote, as
 * the collector groups it through its owner watches. No DCGM samples: a what-if predicts
 * scheduling, work and service, not GPU utilisation (the predicted allocation is all unsampled).
 */
final class PredictedInputs implements ClusterWriter, RequestSink {

  private final Records records;
  private final PodProjection pods;
  private final WorkloadProjection workloads;
  private final LongSupplier now;
  private final Consumer<Outgoing> out;
  private final Map<String, Pod> lastPod = new HashMap<>();
  private final Set<String> eventsSeen = new HashSet<>();

  /**
   * Every object the simulator wrote, by UID: what pods' controller chains run through. Kept after
   * an object's deletion, as its pods may still be terminating (one entry per Job of the run).
   */
  private final Map<String, OwnerChain.Owner> owners = new HashMap<>();

  private final OwnerChain.Lookup lookup =
      (namespace, ref) -> ref.uid() == null ? null : owners.get(ref.uid());
  private long revision;

  /** What each Kueue Workload admits (namespace/kind/name), by its UID. */
  private final Map<String, String> admittedBy = new HashMap<>();

  /**
   * @param now the simulation's virtual time: when the collector reads each write
   * @param out where each input goes, in the order the cluster wrote them
   */
  PredictedInputs(
      Records records, List<String> labelKeys, LongSupplier now, Consumer<Outgoing> out) {
    this.records = records;
    this.pods = new PodProjection(labelKeys, List.of(WhatIf.CHECKPOINT_ANNOTATION));
    this.workloads = new WorkloadProjection(labelKeys);
    this.now = now;
    this.out = out;
  }

  @Override
  public void createPod(Pod pod) {
    pod(pod, ChangeType.ADDED);
  }

  @Override
  public void updatePod(Pod pod) {
    pod(pod, ChangeType.MODIFIED);
  }

  @Override
  public void updatePodStatus(Pod pod) {
    pod(pod, ChangeType.MODIFIED);
  }

  @Override
  public void deletePod(String namespace, String name) {
    Pod last = lastPod.remove(namespace + "/" + name);
    if (last != null) {
      last.getMetadata().setResourceVersion(Long.toString(++revision));
      out.accept(
          records.pod(withChain(last, pods.project(last, ChangeType.DELETED, now.getAsLong()))));
    }
  }

  private void pod(Pod pod, ChangeType change) {
    // the simulator builds a new object for every write: it is ours to stamp
    pod.getMetadata().setResourceVersion(Long.toString(++revision));
    lastPod.put(pod.getMetadata().getNamespace() + "/" + pod.getMetadata().getName(), pod);
    out.accept(records.pod(withChain(pod, pods.project(pod, change, now.getAsLong()))));
  }

  /**
   * {@code o} with the top of the pod's chain when its controller has a controller of its own. A
   * pod whose controller is the top (a Job's, a ReplicaSet's the simulator does not write) is left
   * as it is: the topology names its workload from the controller, the same one, and the bytes of
   * every such observation are spared (4 % of a week's what-if).
   */
  private PodObservation withChain(Pod pod, PodObservation o) {
    OwnerChain.Ref own = OwnerChain.Ref.controllerOf(pod.getMetadata().getOwnerReferences());
    OwnerChain.Owner controller = own == null || own.uid() == null ? null : owners.get(own.uid());
    if (controller != null && controller.controller() != null) {
      o.setWorkload(OwnerChain.topOf(pod, lookup));
    }
    return o;
  }

  @Override
  public void schedulerEvent(Event event) {
    stamp(event);
    out.accept(records.event(EventProjection.project(event, change(event), now.getAsLong())));
  }

  @Override
  public void kubeletEvent(io.fabric8.kubernetes.api.model.Event event) {
    stamp(event);
    out.accept(records.event(EventProjection.project(event, change(event), now.getAsLong())));
  }

  /** The uid and revision the API server would give an event: one uid per namespace/name. */
  private void stamp(HasMetadata event) {
    var meta = event.getMetadata();
    if (meta.getUid() == null) {
      meta.setUid(
          UUID.nameUUIDFromBytes(
                  (meta.getNamespace() + "/" + meta.getName()).getBytes(StandardCharsets.UTF_8))
              .toString());
    }
    meta.setResourceVersion(Long.toString(++revision));
  }

  private ChangeType change(HasMetadata event) {
    String key = event.getMetadata().getNamespace() + "/" + event.getMetadata().getName();
    return eventsSeen.add(key) ? ChangeType.ADDED : ChangeType.MODIFIED;
  }

  @Override
  public void applyObject(HasMetadata workload) {
    if (isQueueWorkload(workload)) {
      queueWorkload((GenericKubernetesResource) workload, ChangeType.MODIFIED);
      return;
    }
    if (workload.getMetadata().getUid() != null) {
      owners.put(workload.getMetadata().getUid(), OwnerChain.Owner.of(workload));
    }
    if (isWorkload(workload)) {
      out.accept(
          records.workload(workloads.project(workload, ChangeType.MODIFIED, now.getAsLong())));
    }
  }

  @Override
  public void deleteObject(HasMetadata workload) {
    if (isQueueWorkload(workload)) {
      queueWorkload((GenericKubernetesResource) workload, ChangeType.DELETED);
      return;
    }
    if (isWorkload(workload)) {
      out.accept(
          records.workload(workloads.project(workload, ChangeType.DELETED, now.getAsLong())));
    }
  }

  /**
   * A Kueue Workload (a policy's quota queues Jobs as Kueue does), told as the collector tells it:
   * an observation of the Job it admits, its preemptor named by what that admits.
   */
  private void queueWorkload(GenericKubernetesResource w, ChangeType change) {
    String admits = QueueWorkloadProjection.admits(w);
    if (admits != null) {
      admittedBy.put(w.getMetadata().getUid(), admits);
    }
    for (WorkloadObservation o :
        QueueWorkloadProjection.project(w, change, now.getAsLong(), admittedBy::get)) {
      out.accept(records.workload(o));
    }
  }

  private static boolean isQueueWorkload(HasMetadata o) {
    return o instanceof GenericKubernetesResource
        && "Workload".equals(o.getKind())
        && o.getApiVersion() != null
        && o.getApiVersion().startsWith(KueueNames.GROUP + "/");
  }

  /** The kinds the collector watches as workloads. */
  private static boolean isWorkload(HasMetadata o) {
    return o instanceof Deployment || o instanceof StatefulSet || o instanceof Job;
  }

  @Override
  public void request(
      long time,
      String namespace,
      String pod,
      String service,
      String route,
      int status,
      double latencyMs,
      double ttftMs,
      String requestId) {
    out.accept(
        records.requestLog(
            RequestLog.newBuilder()
                .setTime(time)
                .setNamespace(namespace)
                .setPod(pod)
                .setService(service)
                .setRoute(route)
                .setStatus(status)
                .setLatencyMs(latencyMs)
                .setTtftMs(ttftMs)
                .setRequestId(requestId)
                .setReceivedAt(time)
                .build(),
            null));
  }
}
