package io.schedlens.timeline;

import io.schedlens.avro.GpuSample;
import io.schedlens.avro.RequestLog;
import io.schedlens.avro.internal.GpuReading;
import io.schedlens.avro.internal.InputRange;
import io.schedlens.avro.internal.InputSecond;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.apache.avro.generic.GenericData;

/**
 * One second of the GPU samples and request logs that name one pod, gathered until the pods stream
 * says which incarnation held the name in that second. Most inputs are samples and requests, so
 * they are kept as what the timeline needs of them (counts, latencies, utilisation points), not as
 * records; the raw records stay on their input topics, where a dead letter points to them.
 *
 * <p>A request log line sent twice (a shipper retries a batch after a timeout or a 503) names the
 * same pod, time and request id: the second's id set counts it once. Lines without an id count as
 * they come. A GPU sample delivered twice (series and time) counts once the same way. Pure.
 */
public final class InputSeconds {

  /** The earliest non-error request times kept per second (the pod needs its first ones). */
  static final int OK_TIMES_KEPT = 8;

  private InputSeconds() {}

  /** The second an input at {@code time} falls in (epoch ms of its start). */
  public static long secondOf(long time) {
    return Math.floorDiv(time, 1000L) * 1000L;
  }

  /** A second with nothing in it yet. */
  public static InputSecond empty(long second, String name) {
    return InputSecond.newBuilder()
        .setSecond(second)
        .setName(name)
        .setIds(new ArrayList<>())
        .setLatencies(new ArrayList<>())
        .setClassLatencies(new ArrayList<>())
        .setOkTimes(new ArrayList<>())
        .setGpu(new ArrayList<>())
        .setInputs(new HashMap<>())
        .build();
  }

  /** Why an input was not added: a request line already counted in its second. */
  public static final String DUPLICATE_REQUEST = "duplicate-request";

  /** Why an input was not added: the same GPU sample (series and time) already counted. */
  public static final String DUPLICATE_GPU_SAMPLE = "duplicate-gpu-sample";

  /** Why an input was not added: a GPU sample with neither utilisation field. */
  public static final String NO_UTILISATION = "gpu-no-utilisation";

  /**
   * Adds a request; returns why not (and changes nothing) when its id was already seen in this
   * second, else null.
   *
   * @param serviceSloMs the SLO of the request's service, or null when it has none (the pod's
   *     priority class decides, later)
   */
  public static String addRequest(InputSecond b, RequestLog r, Double serviceSloMs) {
    if (r.getRequestId() != null
        && !r.getRequestId().isEmpty()
        && !addId(b, idHash(r.getRequestId()))) {
      return DUPLICATE_REQUEST;
    }
    b.setLatest(Math.max(b.getLatest(), r.getTime()));
    b.setRequests(b.getRequests() + 1);
    if (TimelineReducer.isError(r)) {
      b.setErrors(b.getErrors() + 1);
    } else {
      addOkTime(b, r.getTime());
    }
    Double latency = r.getLatencyMs();
    if (latency != null) {
      mutable(b.getLatencies(), b::setLatencies).add(latency);
      if (serviceSloMs != null) {
        if (b.getServiceSloMs() == null || serviceSloMs < b.getServiceSloMs()) {
          b.setServiceSloMs(serviceSloMs);
        }
        if (latency > serviceSloMs) {
          b.setServiceBreaches(b.getServiceBreaches() + 1);
        }
      } else {
        mutable(b.getClassLatencies(), b::setClassLatencies).add(latency);
      }
    }
    return null;
  }

  /** Adds an id hash to the second's sorted set; false when it was there. */
  private static boolean addId(InputSecond b, long id) {
    List<Long> ids = mutable(b.getIds(), b::setIds);
    int at = Collections.binarySearch(ids, id);
    if (at >= 0) {
      return false;
    }
    ids.add(-at - 1, id);
    return true;
  }

  /**
   * Adds a GPU sample's utilisation and the span it stands for; returns why not when it carries no
   * utilisation or was counted before (the same series and time, in the de-duplication window),
   * else null.
   */
  public static String addGpu(InputSecond b, GpuSample g) {
    Double util = GpuBusy.utilisation(g);
    if (util == null) {
      return NO_UTILISATION;
    }
    String series = GpuBusy.seriesId(g);
    if (!addId(b, idHash("gpu " + series + " " + g.getTime()))) {
      return DUPLICATE_GPU_SAMPLE;
    }
    b.setLatest(Math.max(b.getLatest(), g.getTime()));
    List<GpuReading> readings = mutable(b.getGpu(), b::setGpu);
    int i = 0;
    while (i < readings.size() && order(readings.get(i), series, g.getTime()) < 0) {
      i++;
    }
    readings.add(
        i,
        new GpuReading(
            series, g.getTime(), util, g.getIntervalMs(), GpuBusy.share(g), GpuBusy.shared(g)));
    return null;
  }

  /** Notes where an input came from, for a dead letter if no pod ever held the name. */
  public static void noteInput(InputSecond b, String topicPartition, long offset) {
    Map<String, InputRange> inputs = b.getInputs();
    if (!(inputs instanceof HashMap)) {
      inputs = new HashMap<>(inputs);
      b.setInputs(inputs);
    }
    InputRange r = inputs.get(topicPartition);
    if (r == null) {
      inputs.put(topicPartition, new InputRange(offset, offset, 1));
    } else { // the second's own: take() hands the map over whole and starts a new one
      r.setFirst(Math.min(r.getFirst(), offset));
      r.setLast(Math.max(r.getLast(), offset));
      r.setCount(r.getCount() + 1);
    }
  }

  /** Whether the second holds anything not yet applied to a pod. */
  public static boolean hasPending(InputSecond b) {
    return b.getRequests() > 0 || !b.getGpu().isEmpty();
  }

  /** How many inputs the second holds that were not yet applied. */
  public static long pendingInputs(InputSecond b) {
    return b.getRequests() + b.getGpu().size();
  }

  /**
   * Takes what is pending: returns a copy holding it and leaves {@code b} with only its ids (of
   * request lines and GPU samples, for de-duplication), marked applied.
   */
  public static InputSecond take(InputSecond b) {
    // Moves the lists over rather than copying them: a builder made from a record deep-copies it.
    InputSecond taken =
        InputSecond.newBuilder()
            .setSecond(b.getSecond())
            .setName(b.getName())
            .setLatest(b.getLatest())
            .setRequests(b.getRequests())
            .setErrors(b.getErrors())
            .setServiceBreaches(b.getServiceBreaches())
            .setServiceSloMs(b.getServiceSloMs())
            .setLatencies(b.getLatencies())
            .setClassLatencies(b.getClassLatencies())
            .setOkTimes(b.getOkTimes())
            .setGpu(b.getGpu())
            .setIds(new ArrayList<>())
            .setInputs(b.getInputs())
            .build();
    b.setApplied(true);
    b.setRequests(0);
    b.setErrors(0);
    b.setServiceBreaches(0);
    b.setServiceSloMs(null);
    b.setLatencies(new ArrayList<>());
    b.setClassLatencies(new ArrayList<>());
    b.setOkTimes(new ArrayList<>());
    b.setGpu(new ArrayList<>());
    b.setInputs(new HashMap<>());
    return taken;
  }

  /**
   * A 64-bit FNV-1a hash of a request id, or of a GPU sample's series and time. Written here rather
   * than taken from a library: ten lines, and only the streams app's de-duplication needs it (8
   * bytes per id instead of the id itself; among the tens of thousands of ids of one pod in one
   * window, a collision is about 1 in 10^10). Never {@code Long.MIN_VALUE}, which the store of
   * settled seconds' ids uses as a mark (the one hash that is it is moved by one).
   */
  static long idHash(String id) {
    long h = 0xcbf29ce484222325L;
    for (byte c : id.getBytes(StandardCharsets.UTF_8)) {
      h ^= c & 0xff;
      h *= 0x100000001b3L;
    }
    // Long.MIN_VALUE marks a batch of seconds in the store of settled seconds' ids: no id is it
    return h == Long.MIN_VALUE ? h + 1 : h;
  }

  private static int order(GpuReading r, String series, long time) {
    int c = Long.compare(r.getTime(), time);
    return c != 0 ? c : r.getSeries().compareTo(series);
  }

  private static void addOkTime(InputSecond b, long time) {
    List<Long> ok = b.getOkTimes();
    if (ok.size() >= OK_TIMES_KEPT && time >= ok.get(ok.size() - 1)) {
      return;
    }
    List<Long> next = mutable(ok, b::setOkTimes);
    int i = 0;
    while (i < next.size() && next.get(i) <= time) {
      i++;
    }
    next.add(i, time);
    while (next.size() > OK_TIMES_KEPT) {
      next.remove(next.size() - 1);
    }
  }

  /**
   * The list itself when it can grow in place (what Avro decodes, or what this class made), else a
   * growable copy, set with {@code setter}: a second takes dozens of inputs, and copying its lists
   * for each would cost more than the rest.
   */
  static <T> List<T> mutable(List<T> list, Consumer<List<T>> setter) {
    if (list instanceof ArrayList || list instanceof GenericData.Array) {
      return list;
    }
    List<T> copy = new ArrayList<>(list);
    setter.accept(copy);
    return copy;
  }
}
