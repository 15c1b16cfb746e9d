package io.schedlens.simulator.live;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.schedlens.simulator.Simulator;
import io.schedlens.simulator.cluster.ClusterWriter;
import io.schedlens.simulator.cluster.RequestSink;

/**
 * A live simulation that is recorded at the same time: every API write, request log and step of
 * virtual time goes to the live parts (the mock API server, the request shipper, the clock) and to
 * a {@link ClusterRecorder}, so that {@code ./schedlens replay} of the recording can be compared
 * with what the live pipeline made of the same cluster.
 */
public final class RecordingTee implements ClusterWriter, RequestSink, Simulator.Pacer {

  private final ClusterWriter writer;
  private final RequestSink requests;
  private final Simulator.Pacer pacer;
  private final ClusterRecorder recorder;

  public RecordingTee(
      ClusterWriter writer, RequestSink requests, Simulator.Pacer pacer, ClusterRecorder recorder) {
    this.writer = writer;
    this.requests = requests;
    this.pacer = pacer;
    this.recorder = recorder;
  }

  @Override
  public void createPod(Pod pod) {
    recorder.createPod(pod);
    writer.createPod(pod);
  }

  @Override
  public void updatePod(Pod pod) {
    recorder.updatePod(pod);
    writer.updatePod(pod);
  }

  @Override
  public void updatePodStatus(Pod pod) {
    recorder.updatePodStatus(pod);
    writer.updatePodStatus(pod);
  }

  @Override
  public void deletePod(String namespace, String name) {
    recorder.deletePod(namespace, name);
    writer.deletePod(namespace, name);
  }

  @Override
  public void schedulerEvent(Event event) {
    recorder.schedulerEvent(event);
    writer.schedulerEvent(event);
  }

  @Override
  public void kubeletEvent(io.fabric8.kubernetes.api.model.Event event) {
    recorder.kubeletEvent(event);
    writer.kubeletEvent(event);
  }

  @Override
  public void applyObject(HasMetadata workload) {
    recorder.applyObject(workload);
    writer.applyObject(workload);
  }

  @Override
  public void deleteObject(HasMetadata workload) {
    recorder.deleteObject(workload);
    writer.deleteObject(workload);
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
    recorder.request(time, namespace, pod, service, route, status, latencyMs, ttftMs, requestId);
    requests.request(time, namespace, pod, service, route, status, latencyMs, ttftMs, requestId);
  }

  @Override
  public void awaitVirtual(long at) throws InterruptedException {
    recorder.awaitVirtual(at);
    pacer.awaitVirtual(at);
  }
}
