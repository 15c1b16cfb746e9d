package io.schedlens.runs.replay;

import io.schedlens.avro.ChangeType;
import io.schedlens.avro.ClusterEvent;
import io.schedlens.avro.PodObservation;
import io.schedlens.avro.WorkloadObservation;
import io.schedlens.collector.CollectorConfig;
import io.schedlens.projections.InputBounds;
import io.schedlens.projections.k8s.EventProjection;
import io.schedlens.projections.k8s.NodeGpuLabels;
import io.schedlens.projections.k8s.OwnerChain;
import io.schedlens.projections.k8s.PodProjection;
import io.schedlens.projections.k8s.QueueWorkloadProjection;
import io.schedlens.projections.recorded.RecordedObjects;
import io.schedlens.projections.recorded.RecordedScrapes;
import io.schedlens.projections.recorded.Unusable;
import io.schedlens.projections.records.Outgoing;
import io.schedlens.projections.records.Records;
import io.schedlens.projections.requests.FieldMapping;
import io.schedlens.projections.requests.RequestLogParser;
import io.schedlens.schemas.EventTimes;
import io.schedlens.schemas.PodName;
import io.schedlens.streams.StreamsAppConfig;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Consumer;
import org.apache.kafka.common.config.ConfigException;

/**
 * The files of a recording read as the collector would have produced them: Pods (a watch stream's
 * events placed at their times, {@link PodWatchTimes}), Events named as their pods are, DCGM
 * scrapes, request-log lines. What cannot be used is counted in an {@link Unusable}, never thrown
 * away silently.
 */
public final class RecordedInputs {

  private final ReplayConfig config;
  private final Consumer<String> say;

  /**
   * @param say where a remark on the recording goes (a line of progress)
   */
  public RecordedInputs(ReplayConfig config, Consumer<String> say) {
    this.config = config;
    this.say = say;
  }

  /** Every recorded input as the collector would have produced it, in no particular order. */
  public List<Outgoing> read(Records records, Unusable unusable) throws IOException {
    List<Outgoing> inputs = new ArrayList<>();
    Map<String, PodName> podNames = new HashMap<>();
    List<ClusterEvent> events = new ArrayList<>();
    List<PodWatchTimes.Watched> watched = new ArrayList<>();
    objects(records, unusable, inputs, podNames, events, watched);
    PodWatchTimes.place(watched, config.getDuration(StreamsAppConfig.GRACE).toMillis())
        .forEach(o -> inputs.add(records.pod(o)));
    events(records, unusable, inputs, podNames, events);
    scrapes(records, unusable, inputs);
    requests(records, unusable, inputs);
    return inputs;
  }

  /**
   * The Pods, Events and objects files: relisted Pods straight to {@code inputs}, watched Pods to
   * {@code watched} (placed later, in their files' order), events about pods to {@code events}.
   * Every pod is told its workload from the recorded objects (and pods) its controller chain runs
   * through, read from all files first: a recording is one cluster's, and an owner recorded after
   * its pods is theirs as much as one recorded before.
   */
  private void objects(
      Records records,
      Unusable unusable,
      List<Outgoing> inputs,
      Map<String, PodName> podNames,
      List<ClusterEvent> events,
      List<PodWatchTimes.Watched> watched)
      throws IOException {
    PodProjection pods =
        new PodProjection(
            config.getList(CollectorConfig.POD_LABELS),
            config.getList(CollectorConfig.POD_ANNOTATIONS),
            config.getList(CollectorConfig.GPU_SHARED_RESOURCES));
    List<String> objectFiles = new ArrayList<>(config.getList(ReplayConfig.PODS));
    objectFiles.addAll(config.getList(ReplayConfig.EVENTS));
    objectFiles.addAll(config.getList(ReplayConfig.OBJECTS));
    Map<String, List<RecordedObjects.Item>> read = new LinkedHashMap<>();
    Map<String, OwnerChain.Owner> owners = new HashMap<>();
    Map<String, String> admittedBy = new HashMap<>();
    Map<String, Map<String, String>> nodeLabels = new HashMap<>();
    for (String file : new LinkedHashSet<>(objectFiles)) {
      List<RecordedObjects.Item> items = RecordedObjects.read(readFile(file), unusable);
      read.put(file, items);
      for (RecordedObjects.Item item : items) {
        if (item instanceof RecordedObjects.OwnerItem o) {
          owners.putIfAbsent(o.owner().uid(), o.owner());
        } else if (item instanceof RecordedObjects.QueueWorkloadItem w
            && w.workload().getMetadata() != null
            && QueueWorkloadProjection.admits(w.workload()) != null) {
          admittedBy.putIfAbsent(
              w.workload().getMetadata().getUid(), QueueWorkloadProjection.admits(w.workload()));
        } else if (item instanceof RecordedObjects.PodItem p && p.pod().getMetadata() != null) {
          owners.putIfAbsent(p.pod().getMetadata().getUid(), OwnerChain.Owner.of(p.pod()));
        } else if (item instanceof RecordedObjects.NodeItem n && n.node().getMetadata() != null) {
          // a node as last recorded, as the collector's node cache holds it
          nodeLabels.put(n.node().getMetadata().getName(), n.node().getMetadata().getLabels());
        }
      }
    }
    OwnerChain.Lookup lookup = (namespace, ref) -> ref.uid() == null ? null : owners.get(ref.uid());
    read.forEach(
        (file, items) -> {
          for (RecordedObjects.Item item : items) {
            try {
              if (item instanceof RecordedObjects.PodItem p) {
                PodObservation o = pods.project(p.pod(), p.change(), 0);
                o.setWorkload(OwnerChain.topOf(p.pod(), lookup));
                if (o.getNodeName() != null) {
                  NodeGpuLabels.of(nodeLabels.get(o.getNodeName()), o.getGpuResource()).tell(o);
                }
                podNames.put(o.getUid(), PodName.of(o));
                pod(records, inputs, watched, file, p, o);
              } else if (item instanceof RecordedObjects.CoreEventItem e) {
                event(EventProjection.project(e.event(), e.change(), 0), events, unusable, file);
              } else if (item instanceof RecordedObjects.EventsV1Item e) {
                event(EventProjection.project(e.event(), e.change(), 0), events, unusable, file);
              } else if (item instanceof RecordedObjects.QueueWorkloadItem w) {
                // A recorded Workload stands at its latest fact, as a listed pod does.
                for (WorkloadObservation o :
                    QueueWorkloadProjection.project(w.workload(), w.change(), 0, admittedBy::get)) {
                  o.setObservedAt(EventTimes.latestFact(o.getQueueWorkload()));
                  inputs.add(records.workload(o));
                }
              }
            } catch (RuntimeException e) {
              // the projection refuses objects without the fields every real one has (uid, name)
              unusable.add(RecordedObjects.INVALID_OBJECT, file + ": " + e.getMessage());
            }
          }
        });
    long kinds = owners.values().stream().map(OwnerChain.Owner::kind).distinct().count();
    if (!config.getList(ReplayConfig.OBJECTS).isEmpty()) {
      say.accept(
          owners.size()
              + " recorded object(s) of "
              + kinds
              + " kind(s) that pods' controller chains may run through");
    }
  }

  private static void pod(
      Records records,
      List<Outgoing> inputs,
      List<PodWatchTimes.Watched> watched,
      String file,
      RecordedObjects.PodItem p,
      PodObservation o) {
    long at = EventTimes.latestFact(o);
    if (o.getDeletionTimestamp() != null) {
      long grace =
          o.getDeletionGracePeriodSeconds() == null ? 0 : o.getDeletionGracePeriodSeconds();
      at = Math.max(at, o.getDeletionTimestamp() - grace * 1000);
    }
    if (p.change() == ChangeType.RELIST) {
      // List items (a snapshot) are in no order and stand at their own latest fact.
      o.setObservedAt(at);
      inputs.add(records.pod(o));
    } else {
      watched.add(
          new PodWatchTimes.Watched(
              o,
              p.change(),
              file,
              p.line(),
              PodWatchTimes.revision(p.pod().getMetadata().getResourceVersion()),
              at));
    }
  }

  private static void event(
      ClusterEvent e, List<ClusterEvent> events, Unusable unusable, String file) {
    if (!EventProjection.isAboutPod(e)) {
      unusable.add("event-not-about-a-pod", e.getRegarding().getKind() + " " + e.getReason());
      return;
    }
    if (e.getRegarding().getUid() == null) {
      unusable.add("event-without-pod-uid", file);
      return;
    }
    // The live collector stamps the time it saw the event; the event's own time stands in. An
    // event with no time at all (no eventTime, series or timestamps) cannot be placed.
    long at = EventTimes.of(e);
    if (at <= 0) {
      unusable.add("event-without-time", file + ": " + e.getReason());
      return;
    }
    e.setObservedAt(at);
    events.add(e);
  }

  /**
   * The events, each under the name of the pod with its UID: a recording put together from several
   * captures may name a pod in an event otherwise than the pod itself (another namespace, no name);
   * the UID is the pod, and its name decides the partition.
   */
  private void events(
      Records records,
      Unusable unusable,
      List<Outgoing> inputs,
      Map<String, PodName> podNames,
      List<ClusterEvent> events) {
    int renamed = 0;
    for (ClusterEvent e : events) {
      PodName pod = podNames.get(e.getRegarding().getUid());
      if (pod != null && !pod.equals(PodName.regardedBy(e))) {
        e.getRegarding().setNamespace(pod.namespace());
        e.getRegarding().setName(pod.name());
        renamed++;
      }
      if (PodName.regardedBy(e) == null) {
        unusable.add(
            "event-without-pod-name", e.getReason() + " for pod " + e.getRegarding().getUid());
        continue;
      }
      inputs.add(records.event(e));
    }
    if (renamed > 0) {
      say.accept(
          renamed
              + " event(s) named their pod otherwise than the pod of their UID in the recording;"
              + " matched by UID");
    }
  }

  private void scrapes(Records records, Unusable unusable, List<Outgoing> inputs)
      throws IOException {
    Map<String, String> scrapes = new TreeMap<>();
    for (String file : config.getList(ReplayConfig.DCGM)) {
      scrapes.put(file, readFile(file));
    }
    RecordedScrapes.readAll(scrapes, unusable)
        .forEach(s -> inputs.add(records.gpuSample(s.key(), s.sample())));
  }

  private void requests(Records records, Unusable unusable, List<Outgoing> inputs)
      throws IOException {
    RequestLogParser requests =
        new RequestLogParser(
            FieldMapping.parse(config.getList(CollectorConfig.INTAKE_FIELD_MAPPING)),
            InputBounds.anyTime());
    for (String file : config.getList(ReplayConfig.REQUESTS)) {
      for (String line : readFile(file).split("\n")) {
        if (line.isBlank()) {
          continue;
        }
        RequestLogParser.Parsed parsed = requests.parseLine(line, System.currentTimeMillis());
        if (parsed instanceof RequestLogParser.Accepted a) {
          inputs.add(records.requestLog(a.log(), null));
        } else if (parsed instanceof RequestLogParser.Rejected r) {
          unusable.add("request-" + r.reason(), r.detail());
        }
      }
    }
  }

  private static String readFile(String file) throws IOException {
    Path p = Path.of(file);
    if (!Files.isReadable(p)) {
      throw new ConfigException("cannot read " + file + ": give an existing, readable file");
    }
    return Files.readString(p, StandardCharsets.UTF_8);
  }
}
