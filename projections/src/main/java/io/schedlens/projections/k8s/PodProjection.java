package io.schedlens.projections.k8s;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerState;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.ResourceRequirements;
import io.schedlens.avro.ChangeType;
import io.schedlens.avro.PodObservation;
import io.schedlens.base.GpuShares;
import io.schedlens.base.KubeTime;
import java.math.BigDecimal;
import java.math.RoundingMode;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * Projects a Kubernetes Pod onto the fields schedlens needs ({@link PodObservation}). Pure: the
 * same pod always gives the same projection, so an update that changes nothing schedlens cares
 * about (e.g. only managedFields or a label outside the selection) can be recognised and not sent.
 */
public final class PodProjection {

  /** The extended resource of a whole NVIDIA GPU. */
  public static final String GPU_RESOURCE = "nvidia.com/gpu";

  private final Set<String> labelKeys;
  private final Set<String> annotationKeys;
  private final Set<String> sharedGpuResources;

  /** With the default shared GPU resources ({@link GpuShares#DEFAULT_SHARED}). */
  public PodProjection(Collection<String> labelKeys, Collection<String> annotationKeys) {
    this(labelKeys, annotationKeys, GpuShares.DEFAULT_SHARED);
  }

  /**
   * @param labelKeys labels to carry (experiment, arm, repeat and any configured extras); Kueue's
   *     queue label ({@link QueueWorkloadProjection#QUEUE_LABEL}) is always carried
   * @param annotationKeys annotations to carry (e.g. schedlens.io/last-checkpoint)
   * @param sharedGpuResources extended resources that are time-sliced or MPS replicas of a GPU
   *     (besides nvidia.com/gpu and nvidia.com/mig-*, GPU requests too)
   */
  public PodProjection(
      Collection<String> labelKeys,
      Collection<String> annotationKeys,
      Collection<String> sharedGpuResources) {
    Set<String> keys = new HashSet<>(labelKeys);
    keys.add(QueueWorkloadProjection.QUEUE_LABEL);
    this.labelKeys = Set.copyOf(keys);
    this.annotationKeys = Set.copyOf(annotationKeys);
    this.sharedGpuResources = Set.copyOf(sharedGpuResources);
  }

  /**
   * Drops, in place, what {@link #project} and the pod source do not read, before the informer
   * keeps the pod in its cache: managed fields, annotations and labels other than the carried ones,
   * volumes, scheduling constraints, and of each container everything but its name, resources and
   * restart policy. A pod in the cache then costs a fraction of its full size
   * (docs/operators/collector.md, memory); the projection of the stripped pod is the projection of
   * the pod ({@code PodProjectionTest}).
   */
  public Pod retainRead(Pod pod) {
    var meta = pod.getMetadata();
    if (meta != null) {
      meta.setManagedFields(null);
      meta.setAnnotations(select(meta.getAnnotations(), annotationKeys));
      meta.setLabels(select(meta.getLabels(), labelKeys));
    }
    var spec = pod.getSpec();
    if (spec != null) {
      spec.setVolumes(null);
      spec.setAffinity(null);
      spec.setTolerations(null);
      spec.setTopologySpreadConstraints(null);
      spec.setNodeSelector(null);
      spec.setImagePullSecrets(null);
      spec.setSecurityContext(null);
      spec.setEphemeralContainers(null);
      spec.setContainers(namesAndResources(spec.getContainers()));
      spec.setInitContainers(namesAndResources(spec.getInitContainers()));
    }
    return pod;
  }

  private static List<Container> namesAndResources(List<Container> containers) {
    if (containers == null) {
      return null;
    }
    List<Container> kept = new ArrayList<>(containers.size());
    for (Container c : containers) {
      Container k = new Container();
      k.setName(c.getName());
      k.setResources(c.getResources());
      k.setRestartPolicy(c.getRestartPolicy()); // a restartable init container is a sidecar
      kept.add(k);
    }
    return kept;
  }

  /** The projection of {@code pod} as seen through a watch event of type {@code change}. */
  public PodObservation project(Pod pod, ChangeType change, long observedAt) {
    var meta = pod.getMetadata();
    var spec = pod.getSpec();
    var status = pod.getStatus();
    PodObservation.Builder b =
        PodObservation.newBuilder()
            .setUid(meta.getUid())
            .setNamespace(meta.getNamespace())
            .setName(meta.getName())
            .setResourceVersion(meta.getResourceVersion())
            .setChangeType(change)
            .setObservedAt(observedAt)
            .setCreatedAt(orZero(KubeTime.millis(meta.getCreationTimestamp())))
            .setDeletionTimestamp(KubeTime.millis(meta.getDeletionTimestamp()))
            .setDeletionGracePeriodSeconds(meta.getDeletionGracePeriodSeconds())
            .setOwner(owner(meta.getOwnerReferences()))
            .setLabels(select(meta.getLabels(), labelKeys))
            .setAnnotations(select(meta.getAnnotations(), annotationKeys));
    if (spec != null) {
      GpuRequest gpu = gpu(spec);
      b.setPriorityClassName(spec.getPriorityClassName())
          .setPriority(spec.getPriority())
          .setPreemptionPolicy(spec.getPreemptionPolicy())
          .setSchedulerName(spec.getSchedulerName())
          .setGpus(gpu.count())
          .setGpuResource(gpu.resource())
          .setGpuShared(gpu.resource() != null && sharedGpuResources.contains(gpu.resource()))
          .setTerminationGracePeriodSeconds(spec.getTerminationGracePeriodSeconds())
          .setNodeName(emptyToNull(spec.getNodeName()));
    }
    List<io.schedlens.avro.PodCondition> conditions = new ArrayList<>();
    List<io.schedlens.avro.ContainerStatus> containers = new ArrayList<>();
    if (status != null) {
      b.setPhase(status.getPhase())
          .setReason(emptyToNull(status.getReason()))
          .setMessage(emptyToNull(status.getMessage()))
          .setNominatedNodeName(emptyToNull(status.getNominatedNodeName()))
          .setStartTime(KubeTime.millis(status.getStartTime()));
      if (status.getConditions() != null) {
        for (PodCondition c : status.getConditions()) {
          conditions.add(
              io.schedlens.avro.PodCondition.newBuilder()
                  .setType(c.getType())
                  .setStatus(c.getStatus())
                  .setReason(emptyToNull(c.getReason()))
                  .setMessage(emptyToNull(c.getMessage()))
                  .setLastTransitionTime(KubeTime.millis(c.getLastTransitionTime()))
                  .build());
        }
      }
      addContainers(containers, status.getInitContainerStatuses(), true);
      addContainers(containers, status.getContainerStatuses(), false);
    }
    return b.setConditions(conditions).setContainers(containers).build();
  }

  private GpuRequest gpu(PodSpec spec) {
    return gpuRequest(spec.getContainers(), spec.getInitContainers(), sharedGpuResources);
  }

  /**
   * A pod's GPU request: the extended resource and how many devices of it.
   *
   * @param resource {@code nvidia.com/gpu}, {@code nvidia.com/mig-<profile>} or a shared resource;
   *     null when the pod asks for no GPU
   */
  public record GpuRequest(String resource, int count) {
    public static final GpuRequest NONE = new GpuRequest(null, 0);
  }

  /**
   * The pod's effective request of its GPU resource, as the scheduler computes a resource's: the
   * larger of (the sum over app containers plus restartable "sidecar" init containers) and the
   * largest plain init container; for extended resources a request, when absent, defaults to the
   * limit. A GPU resource is nvidia.com/gpu, any nvidia.com/mig-* or one of {@code shared}; a pod
   * that asks for several is given the one it asks most devices of (then the first by name).
   */
  public static GpuRequest gpuRequest(
      List<Container> containers, List<Container> initContainers, Collection<String> shared) {
    Map<String, long[]> byResource = new TreeMap<>(); // {app, init}
    if (containers != null) {
      for (Container c : containers) {
        add(byResource, c.getResources(), shared, false);
      }
    }
    if (initContainers != null) {
      for (Container c : initContainers) {
        add(byResource, c.getResources(), shared, !"Always".equals(c.getRestartPolicy()));
      }
    }
    GpuRequest best = GpuRequest.NONE;
    for (Map.Entry<String, long[]> e : byResource.entrySet()) {
      long n = Math.min(Integer.MAX_VALUE, Math.max(e.getValue()[0], e.getValue()[1]));
      if (n > best.count()) {
        best = new GpuRequest(e.getKey(), (int) n);
      }
    }
    return best;
  }

  /** The pod's effective nvidia.com/gpu (or other GPU resource) request: its count of devices. */
  public static int gpuRequest(List<Container> containers, List<Container> initContainers) {
    return gpuRequest(containers, initContainers, GpuShares.DEFAULT_SHARED).count();
  }

  private static void add(
      Map<String, long[]> byResource,
      ResourceRequirements r,
      Collection<String> shared,
      boolean plainInit) {
    if (r == null) {
      return;
    }
    Set<String> names = new HashSet<>();
    if (r.getRequests() != null) {
      names.addAll(r.getRequests().keySet());
    }
    if (r.getLimits() != null) {
      names.addAll(r.getLimits().keySet());
    }
    for (String name : names) {
      if (!GpuShares.isGpu(name, shared)) {
        continue;
      }
      long n = amount(r, name);
      long[] v = byResource.computeIfAbsent(name, k -> new long[2]);
      if (plainInit) {
        v[1] = Math.max(v[1], n);
      } else {
        v[0] += n;
      }
    }
  }

  private static long amount(ResourceRequirements r, String resource) {
    Quantity q = r.getRequests() == null ? null : r.getRequests().get(resource);
    if (q == null && r.getLimits() != null) {
      q = r.getLimits().get(resource);
    }
    if (q == null) {
      return 0;
    }
    try {
      BigDecimal amount = q.getNumericalAmount();
      return amount.setScale(0, RoundingMode.CEILING).longValueExact();
    } catch (ArithmeticException | IllegalArgumentException e) {
      return 0;
    }
  }

  private static void addContainers(
      List<io.schedlens.avro.ContainerStatus> out, List<ContainerStatus> statuses, boolean init) {
    if (statuses == null) {
      return;
    }
    for (ContainerStatus s : statuses) {
      var b =
          io.schedlens.avro.ContainerStatus.newBuilder()
              .setName(s.getName())
              .setInit(init)
              .setReady(Boolean.TRUE.equals(s.getReady()))
              .setStarted(s.getStarted())
              .setRestartCount(s.getRestartCount() == null ? 0 : s.getRestartCount());
      ContainerState state = s.getState();
      if (state != null) {
        if (state.getWaiting() != null) {
          b.setWaitingReason(emptyToNull(state.getWaiting().getReason()));
        }
        if (state.getRunning() != null) {
          b.setRunningStartedAt(KubeTime.millis(state.getRunning().getStartedAt()));
        }
        if (state.getTerminated() != null) {
          var t = state.getTerminated();
          b.setTerminatedStartedAt(KubeTime.millis(t.getStartedAt()))
              .setTerminatedFinishedAt(KubeTime.millis(t.getFinishedAt()))
              .setTerminatedExitCode(t.getExitCode())
              .setTerminatedReason(emptyToNull(t.getReason()));
        }
      }
      ContainerState last = s.getLastState();
      if (last != null && last.getTerminated() != null) {
        var t = last.getTerminated();
        b.setLastTerminatedStartedAt(KubeTime.millis(t.getStartedAt()))
            .setLastTerminatedFinishedAt(KubeTime.millis(t.getFinishedAt()))
            .setLastTerminatedExitCode(t.getExitCode())
            .setLastTerminatedReason(emptyToNull(t.getReason()));
      }
      out.add(b.build());
    }
  }

  private static io.schedlens.avro.OwnerReference owner(List<OwnerReference> refs) {
    if (refs == null || refs.isEmpty()) {
      return null;
    }
    OwnerReference chosen =
        refs.stream()
            .filter(r -> Boolean.TRUE.equals(r.getController()))
            .findFirst()
            .orElse(refs.get(0));
    return io.schedlens.avro.OwnerReference.newBuilder()
        .setKind(chosen.getKind())
        .setName(chosen.getName())
        .setUid(chosen.getUid())
        .build();
  }

  private static Map<String, String> select(Map<String, String> all, Set<String> keys) {
    Map<String, String> out = new TreeMap<>();
    if (all != null) {
      for (String k : keys) {
        String v = all.get(k);
        if (v != null) {
          out.put(k, v);
        }
      }
    }
    return out;
  }

  private static String emptyToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }

  private static long orZero(Long l) {
    return l == null ? 0L : l;
  }
}
