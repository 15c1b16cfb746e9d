package io.schedlens.base;

import java.util.Collection;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Which extended resources are NVIDIA GPUs, and what part of one physical GPU each device of them
 * is (its {@code gpuShare}, docs/design.md "Shared GPUs"). Pure.
 *
 * <p>A MIG device's share is its compute slices over the GPU's: the profile's {@code Ng} (or a
 * compute instance's {@code Nc} of it) over 7 on A100, H100, H200, B200 and GB200, over 4 on A30
 * (NVIDIA, <i>Multi-Instance GPU User Guide</i>, "Supported MIG Profiles": the fraction of SMs of
 * each profile, e.g. 1g.10gb 1/7 on A100-80GB and H100, 1g.6gb 1/4 on A30). The GPU model is the
 * node's {@code nvidia.com/gpu.product} label or dcgm-exporter's {@code modelName}; without one, an
 * A30 is told by its profiles' names (1g.6gb, 2g.12gb, 4g.24gb are A30's alone). A time-sliced or
 * MPS replica is 1/replicas of its GPU when the replicas are known, else counted as a whole GPU
 * (and said so: {@link Share#assumed}).
 */
public final class GpuShares {

  /** A whole NVIDIA GPU (or, on a single-strategy MIG node or with time-slicing, one device). */
  public static final String WHOLE = "nvidia.com/gpu";

  /** The GPU Operator's mixed MIG strategy names each profile's resource with this prefix. */
  public static final String MIG_PREFIX = "nvidia.com/mig-";

  /**
   * The renamed shared resource of the device plugin's time-slicing and MPS ({@code
   * renameByDefault: true}); the collector's {@code gpu.shared-resources} setting lists others.
   */
  public static final List<String> DEFAULT_SHARED = List.of("nvidia.com/gpu.shared");

  /** Compute slices of a whole GPU of the models whose MIG has four (A30). */
  private static final int A30_SLICES = 4;

  /** Compute slices of a whole A100, H100, H200, B200 or GB200. */
  private static final int SLICES = 7;

  private static final Set<String> A30_PROFILES = Set.of("1g.6gb", "2g.12gb", "4g.24gb");

  private static final Pattern A30 = Pattern.compile("\\bA30\\b", Pattern.CASE_INSENSITIVE);

  /** A compute instance's profile, e.g. 1c.3g.40gb: its GPU instance's profile follows the dot. */
  private static final Pattern COMPUTE_INSTANCE = Pattern.compile("\\d+c\\..*");

  private GpuShares() {}

  /**
   * A device's part of a physical GPU.
   *
   * @param share the part each of the pod's devices is, in (0, 1]: {@code device} over the replicas
   *     when time-sliced or MPS
   * @param device the part of a physical GPU the device under it is, before replicas divide it: a
   *     MIG instance's compute slices, else 1. A sample's utilisation is of this device.
   * @param shared whether other pods may hold the same GPU at the same time (time-slicing, MPS)
   * @param assumed whether the replicas were not known and none was taken (a shared resource on a
   *     node without the replicas label): then {@code share} is {@code device}, an upper bound
   */
  public record Share(double share, double device, boolean shared, boolean assumed) {
    public static final Share WHOLE_GPU = new Share(1, 1, false, false);
  }

  /** Whether {@code resource} is an NVIDIA GPU: the whole GPU, a MIG profile or a shared one. */
  public static boolean isGpu(String resource, Collection<String> sharedResources) {
    return resource != null
        && (WHOLE.equals(resource)
            || resource.startsWith(MIG_PREFIX)
            || sharedResources.contains(resource));
  }

  /**
   * The MIG profile a resource names ({@code 1g.10gb} for {@code nvidia.com/mig-1g.10gb}), or null.
   */
  public static String migProfile(String resource) {
    return resource != null && resource.startsWith(MIG_PREFIX)
        ? resource.substring(MIG_PREFIX.length())
        : null;
  }

  /**
   * The part of a physical GPU one device of {@code resource} is, before any replicas: a MIG
   * profile's compute slices over the GPU's (the profile from the resource, else from the samples),
   * else 1.
   */
  public static double device(String resource, String sampledProfile, String model) {
    String profile = migProfile(resource);
    if (profile == null) {
      profile = sampledProfile;
    }
    if (profile != null) {
      int slices = computeSlices(profile);
      if (slices > 0) {
        return Math.min(1.0, (double) slices / gpuSlices(model, profile));
      }
    }
    return 1.0;
  }

  /**
   * A device of part {@code device} of a GPU, divided among the replicas when it is shared: when
   * {@code shared} is said (a renamed shared resource, or samples that showed other pods on the
   * GPU) or the node's replicas are more than 1. Shared without known replicas, it counts whole and
   * says {@link Share#assumed}.
   */
  public static Share split(double device, boolean shared, Integer replicas) {
    boolean replicated = replicas != null && replicas > 1;
    if (!shared && !replicated) {
      return new Share(device, device, false, false);
    }
    if (!replicated) {
      return new Share(device, device, true, true);
    }
    return new Share(device / replicas, device, true, false);
  }

  /**
   * How many instances of {@code profile} one GPU of {@code model} holds when all its instances are
   * of that profile (mig-parted's {@code all-1g.10gb}): its compute slices over the profile's, 7 of
   * 1g.10gb on an H100, 3 of 2g.20gb, 2 of 3g.40gb, 4 of 1g.6gb on an A30 (NVIDIA's MIG user guide,
   * "Supported MIG Profiles", instances available); 0 when {@code profile} is not a profile.
   */
  public static int instancesPerGpu(String profile, String model) {
    int slices = computeSlices(profile);
    return slices <= 0 ? 0 : gpuSlices(model, profile) / slices;
  }

  /**
   * The compute slices of a MIG profile: {@code 3} for {@code 3g.40gb} (and {@code 3g.40gb+me}),
   * {@code 1} for the compute instance {@code 1c.3g.40gb}; 0 when it is not a profile's name.
   */
  static int computeSlices(String profile) {
    String p = profile.toLowerCase(Locale.ROOT);
    int dot = p.indexOf('.');
    if (dot < 2) {
      return 0;
    }
    String first = p.substring(0, dot);
    char unit = first.charAt(first.length() - 1);
    if (unit != 'g' && unit != 'c') {
      return 0;
    }
    try {
      return Integer.parseInt(first.substring(0, first.length() - 1));
    } catch (NumberFormatException e) {
      return 0;
    }
  }

  /** The compute slices of a whole GPU of {@code model} (or, without one, of {@code profile}'s). */
  static int gpuSlices(String model, String profile) {
    if (model != null) {
      return A30.matcher(model).find() ? A30_SLICES : SLICES;
    }
    String base = profile.toLowerCase(Locale.ROOT);
    int plus = base.indexOf('+');
    if (plus > 0) {
      base = base.substring(0, plus);
    }
    if (COMPUTE_INSTANCE.matcher(base).matches()) {
      base = base.substring(base.indexOf('.') + 1);
    }
    return A30_PROFILES.contains(base) ? A30_SLICES : SLICES;
  }
}
