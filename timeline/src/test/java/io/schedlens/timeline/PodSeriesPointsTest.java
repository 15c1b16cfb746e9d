package io.schedlens.timeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.LatencyBin;
import io.schedlens.avro.PodPoint;
import io.schedlens.avro.PodSeries;
import io.schedlens.avro.internal.GpuReading;
import io.schedlens.avro.internal.InputSecond;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import org.junit.jupiter.api.Test;

class PodSeriesPointsTest {

  static final TimelineSettings SETTINGS = TimelineSettings.defaults();
  static final long T0 = 1_780_000_007_000L; // not on a step: steps align to the epoch

  /** A second with one GPU sample of the given utilisation and, optionally, requests. */
  static InputSecond second(long t, double util, long requests, List<Double> latencies) {
    InputSecond in = InputSeconds.empty(Math.floorDiv(t, 1000) * 1000, "ns/pod");
    in.setGpu(new ArrayList<>(List.of(new GpuReading("GPU-1", t, util, 15_000L, null, false))));
    in.setRequests(requests);
    in.setLatencies(new ArrayList<>(latencies));
    return in;
  }

  static PodSeries fold(List<InputSecond> seconds) {
    PodSeries s = null;
    for (InputSecond in : seconds) {
      s = PodSeriesPoints.add(s, in, 0, null, SETTINGS);
    }
    return s;
  }

  @Test
  void shouldKeepAnHourOfSamplesAsOnePointPerMinuteAndEverySampleCounted() {
    List<InputSecond> hour = new ArrayList<>();
    for (int i = 0; i < 240; i++) { // a scrape every 15 s for an hour
      hour.add(second(T0 + i * 15_000L, 0.5, 0, List.of()));
    }

    PodSeries s = fold(hour);

    // 60 steps of a minute fit into 64 (61 when the hour is not aligned to a minute).
    assertThat(s.getStepMs()).isEqualTo(60_000);
    assertThat(s.getPoints()).hasSizeBetween(60, 61);
    assertThat(s.getPoints().stream().mapToLong(PodPoint::getSampledMicros).sum())
        .isEqualTo(240 * 15_000_000L);
    assertThat(s.getPoints().stream().mapToLong(PodPoint::getBusyMicros).sum())
        .isEqualTo(240 * 7_500_000L);
    assertThat(s.getPoints()).allSatisfy(p -> assertThat(p.getAt() % 60_000).isZero());
  }

  @Test
  void shouldStayWithin64PointsOverAWeek() {
    List<InputSecond> week = new ArrayList<>();
    for (long t = T0; t < T0 + 7 * 86_400_000L; t += 15_000L) {
      week.add(second(t, 0.25, 0, List.of()));
    }

    PodSeries s = fold(week);

    assertThat(s.getPoints()).hasSizeLessThanOrEqualTo(PodSeriesPoints.MAX_POINTS);
    // 7 days in at most 64 steps: 1 min x 2^8 = 4.27 h is the smallest power that fits.
    assertThat(s.getStepMs()).isEqualTo(60_000L << 8);
    assertThat(s.getPoints().stream().mapToLong(PodPoint::getSampledMicros).sum())
        .isEqualTo(week.size() * 15_000_000L);
  }

  @Test
  void shouldFollowAShortLifeWithAPointPerSampleInterval() {
    // A pod that lived 17 s: two scrapes 15 s apart and requests every second.
    List<InputSecond> life = new ArrayList<>();
    life.add(second(T0, 0.9, 3, List.of(40.0, 50.0, 60.0)));
    for (int i = 1; i < 17; i++) {
      InputSecond in = InputSeconds.empty(T0 + i * 1000L, "ns/pod");
      in.setRequests(3);
      life.add(in);
    }
    life.add(second(T0 + 15_000, 0.8, 0, List.of()));

    PodSeries s = fold(life);

    // steps of the sample interval (15 s), not of a minute that runs 43 s past the pod's end
    assertThat(s.getStepMs()).isEqualTo(SETTINGS.gpuSampleInterval().toMillis());
    assertThat(s.getPoints()).hasSizeBetween(2, 3);
    assertThat(s.getPoints()).allSatisfy(p -> assertThat(p.getAt() % 15_000).isZero());
    assertThat(s.getPoints().stream().mapToLong(PodPoint::getRequests).sum()).isEqualTo(51);
  }

  @Test
  void shouldGiveTheSameSeriesInAnyOrder() {
    Random random = new Random(7);
    List<InputSecond> seconds = new ArrayList<>();
    for (int i = 0; i < 2_000; i++) {
      long t = T0 + i * 15_000L + random.nextInt(15_000);
      List<Double> lat = List.of(10 + random.nextDouble() * 500, 5 + random.nextDouble() * 50);
      seconds.add(second(t, random.nextDouble(), 2, lat));
    }
    PodSeries inOrder = fold(seconds);

    for (int run = 0; run < 5; run++) {
      List<InputSecond> shuffled = new ArrayList<>(seconds);
      Collections.shuffle(shuffled, new Random(run));
      assertThat(fold(shuffled)).isEqualTo(inOrder);
    }
  }

  @Test
  void shouldReadQuantilesFromTheBinsWithinNinePercent() {
    List<Double> latencies = new ArrayList<>();
    for (int i = 1; i <= 1000; i++) {
      latencies.add((double) i); // 1..1000 ms: p50 = 500, p99 = 990
    }
    List<LatencyBin> bins = LatencyBins.add(List.of(), latencies);

    assertThat(LatencyBins.quantile(bins, 0.50)).isBetween(500 / 1.09, 500 * 1.09);
    assertThat(LatencyBins.quantile(bins, 0.99)).isBetween(990 / 1.09, 990 * 1.09);
    assertThat(LatencyBins.quantile(List.of(), 0.5)).isNull();
  }

  @Test
  void shouldCountRequestsBreachesAndTheSloOfTheService() {
    InputSecond in = second(T0, 0.9, 3, List.of(100.0, 200.0, 900.0));
    in.setErrors(1);
    in.setServiceSloMs(250.0);

    PodSeries s = PodSeriesPoints.add(null, in, 1, 800.0, SETTINGS);

    PodPoint p = s.getPoints().get(0);
    assertThat(p.getRequests()).isEqualTo(3);
    assertThat(p.getErrors()).isEqualTo(1);
    assertThat(p.getSloBreaches()).isEqualTo(1);
    assertThat(s.getSloMs()).as("the service's own SLO wins over the class's").isEqualTo(250.0);
    assertThat(p.getLatency().stream().mapToLong(LatencyBin::getCount).sum()).isEqualTo(3);
  }

  @Test
  void shouldDrawTheSmallestSloTheRequestsWereJudgedAgainstInAnyOrder() {
    InputSecond service = second(T0, 0.5, 1, List.of(900.0));
    service.setServiceSloMs(1000.0);
    InputSecond classOnly = second(T0 + 60_000, 0.5, 1, List.of(900.0));
    classOnly.setClassLatencies(new ArrayList<>(List.of(900.0)));
    InputSecond noSlo = second(T0 + 120_000, 0.5, 1, List.of(900.0));

    PodSeries a = null;
    for (InputSecond in : List.of(service, classOnly, noSlo)) {
      a = PodSeriesPoints.add(a, in, 0, 800.0, SETTINGS);
    }
    PodSeries b = null;
    for (InputSecond in : List.of(noSlo, classOnly, service)) {
      b = PodSeriesPoints.add(b, in, 0, 800.0, SETTINGS);
    }

    assertThat(a.getSloMs())
        .as("the class's 800 ms judged some, the service's 1 s others")
        .isEqualTo(800.0);
    assertThat(b).isEqualTo(a);
  }
}
