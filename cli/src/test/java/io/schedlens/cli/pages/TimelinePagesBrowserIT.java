package io.schedlens.cli.pages;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.within;

import io.schedlens.avro.PodTimeline;
import io.schedlens.cli.replay.Recordings;
import io.schedlens.common.config.CommandLineSettings;
import io.schedlens.common.http.HttpEndpoint;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.runs.PagesServer;
import io.schedlens.runs.replay.Replay;
import io.schedlens.runs.replay.ReplayConfig;
import io.schedlens.schemas.AvroJson;
import io.schedlens.simulator.scenario.Scenario;
import io.schedlens.simulator.scenario.ScenarioLoader;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.io.TempDir;
import org.openqa.selenium.By;
import org.openqa.selenium.JavascriptExecutor;
import org.openqa.selenium.OutputType;
import org.openqa.selenium.TakesScreenshot;
import org.openqa.selenium.WebDriver;
import org.openqa.selenium.WebElement;
import org.openqa.selenium.chrome.ChromeDriver;
import org.openqa.selenium.chrome.ChromeDriverService;
import org.openqa.selenium.chrome.ChromeOptions;

/**
 * The timeline pages in a real browser: Debian's chromium driven through its chromedriver ({@code
 * /usr/bin/chromedriver} from the {@code chromium-driver} package; never a download), on the pages
 * of a replay of the day08 scenario. Walks index → a victim → its preemptor → its workload and
 * checks what the browser <em>rendered</em>: the phase bands' order and their positions against the
 * timeline's own times (computed here, not by the page), the scheduler's reasons, the links, the
 * SLO line. Screenshots go to {@code target/screenshots}.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class TimelinePagesBrowserIT {

  static final String CHROMIUM = System.getProperty("chromium.binary", "/usr/bin/chromium");
  static final String CHROMEDRIVER =
      System.getProperty("chromedriver.binary", "/usr/bin/chromedriver");

  /** How far (CSS px) a band's rendered edge may be from where its time puts it. */
  static final double TOLERANCE_PX = 1.5;

  @TempDir static Path dir;
  Scenario scenario;
  Path out;
  Map<String, PodTimeline> timelines = new LinkedHashMap<>();
  HttpEndpoint pages;
  ChromeDriverService service;
  WebDriver browser;
  final Path screenshots = Path.of("target", "screenshots");

  @BeforeAll
  void replayAndOpenABrowser() throws Exception {
    assertThat(new File(CHROMIUM))
        .as(
            "the browser tests need Debian's chromium and chromium-driver (./schedlens selftest installs them:"
                + " apt-get install chromium chromium-driver)")
        .exists();
    assertThat(new File(CHROMEDRIVER)).as("chromedriver of the chromium-driver package").exists();
    scenario = ScenarioLoader.load("day08");
    Recordings.Recorded rec = Recordings.record(scenario, dir.resolve("recording"));
    out = dir.resolve("out");
    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start()) {
      new Replay(
              ReplayConfig.from(
                  CommandLineSettings.load(
                      ReplayConfig.DEF, Recordings.replayArgs(rec.dir(), out, scenario), Map.of())),
              new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8))
          .run(broker);
    }
    for (String line : Files.readAllLines(out.resolve("timelines.jsonl"))) {
      PodTimeline t = AvroJson.fromLine(line, PodTimeline.class);
      timelines.put(t.getUid(), t);
    }
    pages = PagesServer.start(out, 0);
    service =
        new ChromeDriverService.Builder()
            .usingDriverExecutable(new File(CHROMEDRIVER))
            .usingAnyFreePort()
            .build();
    ChromeOptions options = new ChromeOptions();
    options.setBinary(CHROMIUM);
    options.addArguments(
        "--headless=new",
        "--no-sandbox",
        "--disable-dev-shm-usage",
        "--disable-gpu",
        "--window-size=1440,1900",
        "--force-device-scale-factor=1");
    browser = new ChromeDriver(service, options);
    browser.manage().timeouts().pageLoadTimeout(Duration.ofSeconds(30));
    Files.createDirectories(screenshots);
  }

  @AfterAll
  void close() {
    if (browser != null) {
      browser.quit();
    }
    if (service != null) {
      service.stop();
    }
    if (pages != null) {
      pages.close();
    }
  }

  @Test
  void shouldWalkFromTheIndexToAVictimItsPreemptorAndItsWorkload() throws Exception {
    browser.get(pages.baseUrl() + "/");
    assertThat(browser.getTitle()).contains("schedlens");
    screenshot("index");
    List<WebElement> preemptions = browser.findElements(By.cssSelector("#preemptions tbody tr"));
    long victims = timelines.values().stream().filter(t -> t.getPreemptedAt() != null).count();
    assertThat(victims).as("day08 preempts batch pods").isPositive();
    assertThat(preemptions).hasSize((int) victims); // the replay's window is under 6 hours
    // The first victim whose preemptor is known by UID.
    WebElement row =
        preemptions.stream()
            .filter(
                r ->
                    r.findElements(By.cssSelector("td:nth-child(4) a")).stream()
                        .anyMatch(a -> a.getAttribute("href").matches(".*/pods/[^/]+$")))
            .findFirst()
            .orElseThrow();
    row.findElement(By.cssSelector("td:nth-child(2) a")).click();

    PodTimeline victim = timelines.get(browser.findElement(By.id("uid")).getText());
    assertThat(victim.getPreemptedAt()).isNotNull();
    assertRenderedPhases(browser, victim);
    assertThat(browser.findElement(By.id("preempted")).getText())
        .contains("Preempted")
        .contains(victim.getPreemptor().getName());
    assertThat(browser.findElement(By.id("disruption")).getText()).contains("preemption");
    assertThat(browser.findElements(By.id("wasted")))
        .as("a victim's wasted GPU-seconds are shaded")
        .hasSize(victim.getWastedGpuSeconds() != null && victim.getWastedGpuSeconds() > 0 ? 1 : 0);
    assertThat(numberShown("outcome")).isEqualTo("Preempted");
    screenshot("victim");

    browser.findElement(By.cssSelector("#preempted a")).click();
    PodTimeline preemptor = timelines.get(browser.findElement(By.id("uid")).getText());
    assertThat(preemptor.getUid()).isEqualTo(victim.getPreemptor().getUid());
    assertRenderedPhases(browser, preemptor);
    assertThat(preemptor.getVictims()).contains(victim.getUid());
    assertThat(
            browser.findElements(By.cssSelector("#victims a")).stream()
                .map(a -> a.getAttribute("href"))
                .toList())
        .anyMatch(h -> h.endsWith("/pods/" + victim.getUid()));
    if (!preemptor.getPendingReasons().isEmpty()) {
      String reasons = browser.findElement(By.id("reasons")).getText();
      preemptor.getPendingReasons().keySet().forEach(r -> assertThat(reasons).contains(r));
      assertThat(reasons).contains("FailedScheduling × " + preemptor.getFailedSchedulingCount());
    }
    screenshot("preemptor");

    browser.findElement(By.cssSelector("p.muted a[href^='/workloads/']")).click();
    assertThat(browser.getTitle()).contains(preemptor.getWorkload().getName());
    List<String> rows =
        browser.findElements(By.cssSelector("#gantt a.row")).stream()
            .map(a -> a.getAttribute("data-uid"))
            .toList();
    assertThat(rows).contains(preemptor.getUid());
    long ofWorkload =
        timelines.values().stream()
            .filter(
                t ->
                    t.getWorkload() != null
                        && t.getWorkload().getName().equals(preemptor.getWorkload().getName())
                        && t.getNamespace().equals(preemptor.getNamespace()))
            .count();
    assertThat(rows).hasSize((int) ofWorkload);
    assertThat(browser.findElements(By.cssSelector("#replicas polyline"))).hasSizeGreaterThan(0);
    screenshot("workload");
  }

  @Test
  void shouldDrawTheSloLineAndLatencyOfAServingPod() throws Exception {
    PodTimeline serving =
        timelines.values().stream()
            .filter(t -> t.getRequests() > 100 && t.getSeries() != null)
            .findFirst()
            .orElseThrow();
    browser.get(pages.baseUrl() + "/pods/" + serving.getUid());
    assertRenderedPhases(browser, serving);
    double slo = scenario.slos().get("chat");
    assertThat(serving.getSeries().getSloMs()).isEqualTo(slo);
    // Where the SLO line is drawn, from the chart's scale: rendered y against its millisecond.
    JavascriptExecutor js = (JavascriptExecutor) browser;
    @SuppressWarnings("unchecked")
    List<Number> g =
        (List<Number>)
            js.executeScript(
                "const s=document.getElementById('latency'), l=document.getElementById('slo');"
                    + "const sb=s.getBoundingClientRect(), lb=l.getBoundingClientRect();"
                    + "const vb=s.viewBox.baseVal;"
                    + "return [sb.top, sb.height/vb.height, lb.top, s.dataset.msMax];");
    double svgTop = g.get(0).doubleValue();
    double scale = g.get(1).doubleValue();
    double msMax = Double.parseDouble(String.valueOf(g.get(3)));
    double expectedY = svgTop + scale * (10 + 90 - slo / msMax * 90);
    assertThat(g.get(2).doubleValue()).isCloseTo(expectedY, within(TOLERANCE_PX));
    assertThat(browser.findElements(By.cssSelector("#latency polyline.p99"))).isNotEmpty();
    assertThat(browser.findElements(By.cssSelector("#gpu polyline.busy"))).isNotEmpty();
    screenshot("serving");
  }

  @Test
  void shouldFailWhenABandIsMissingOrMisplaced() throws Exception {
    PodTimeline victim =
        timelines.values().stream()
            .filter(t -> t.getPreemptedAt() != null && t.getRunningAt() != null)
            .findFirst()
            .orElseThrow();
    // Pages of doctored timelines, checked against the true one: the check must notice.
    PodTimeline shifted = PodTimeline.newBuilder(victim).build();
    shifted.setScheduledAt(
        victim.getScheduledAt() + (victim.getRunningAt() - victim.getScheduledAt()) / 2 + 60_000);
    PodTimeline missing = PodTimeline.newBuilder(victim).build();
    missing.setScheduledAt(null);
    for (PodTimeline doctored : List.of(shifted, missing)) {
      Path other = dir.resolve("doctored-" + (doctored == shifted ? "shifted" : "missing"));
      Files.createDirectories(other);
      Files.writeString(other.resolve("timelines.jsonl"), AvroJson.toLine(doctored) + "\n");
      Files.copy(
          out.resolve("workloads.jsonl"),
          other.resolve("workloads.jsonl"),
          StandardCopyOption.REPLACE_EXISTING);
      try (HttpEndpoint served = PagesServer.start(other, 0)) {
        browser.get(served.baseUrl() + "/pods/" + victim.getUid());
        assertThatThrownBy(() -> assertRenderedPhases(browser, victim))
            .isInstanceOf(AssertionError.class);
      }
    }
  }

  /**
   * The phase bands the browser rendered for {@code t}, in order, each where the timeline's times
   * put it on the chart's axis: pending from createdAt, starting from scheduledAt, loading from
   * runningAt, Ready from readyAt, serving from firstOkRequestAt, each until the next that
   * happened, the last until terminatedAt; a phase of no length has no band.
   */
  static void assertRenderedPhases(WebDriver browser, PodTimeline t) {
    List<Object[]> expected = new ArrayList<>();
    String[] names = {"pending", "starting", "loading", "ready", "serving"};
    Long[] starts = {
      t.getCreatedAt(),
      t.getScheduledAt(),
      t.getRunningAt(),
      t.getReadyAt(),
      t.getFirstOkRequestAt()
    };
    long end = t.getTerminatedAt() != null ? t.getTerminatedAt() : t.getUpdatedAt();
    for (int i = 0; i < names.length && starts[i] != null; i++) {
      long to = end;
      for (int j = i + 1; j < names.length; j++) {
        if (starts[j] != null) {
          to = starts[j];
          break;
        }
      }
      if (to > starts[i]) {
        expected.add(new Object[] {names[i], starts[i], to});
      }
    }
    JavascriptExecutor js = (JavascriptExecutor) browser;
    @SuppressWarnings("unchecked")
    List<List<Object>> rendered =
        (List<List<Object>>)
            js.executeScript(
                "const s=document.getElementById('phases'); const sb=s.getBoundingClientRect();"
                    + "const k=sb.width/s.viewBox.baseVal.width; const d=s.dataset;"
                    + "const out=[[ 'axis', sb.left, k, d.t0, d.t1, d.x0, d.x1 ]];"
                    + "for (const r of s.querySelectorAll('rect.band')) { const b=r.getBoundingClientRect();"
                    + " out.push([r.dataset.phase, b.left, b.width]); } return out;");
    List<Object> axis = rendered.get(0);
    double left = ((Number) axis.get(1)).doubleValue();
    double k = ((Number) axis.get(2)).doubleValue();
    long t0 = Long.parseLong(String.valueOf(axis.get(3)));
    long t1 = Long.parseLong(String.valueOf(axis.get(4)));
    double x0 = Double.parseDouble(String.valueOf(axis.get(5)));
    double x1 = Double.parseDouble(String.valueOf(axis.get(6)));
    // The axis must span the pod's life.
    assertThat(t0).isLessThanOrEqualTo(t.getCreatedAt());
    assertThat(t1).isGreaterThanOrEqualTo(end);
    List<List<Object>> bands = rendered.subList(1, rendered.size());
    assertThat(bands.stream().map(b -> (String) b.get(0)).toList())
        .as("phase bands of %s/%s in order", t.getNamespace(), t.getName())
        .containsExactlyElementsOf(expected.stream().map(e -> (String) e[0]).toList());
    for (int i = 0; i < expected.size(); i++) {
      long from = (Long) expected.get(i)[1];
      long to = (Long) expected.get(i)[2];
      double wantLeft = left + k * (x0 + (from - t0) / (double) (t1 - t0) * (x1 - x0));
      double wantRight = left + k * (x0 + (to - t0) / (double) (t1 - t0) * (x1 - x0));
      double gotLeft = ((Number) bands.get(i).get(1)).doubleValue();
      double gotRight = gotLeft + ((Number) bands.get(i).get(2)).doubleValue();
      assertThat(gotLeft)
          .as("left edge of %s", expected.get(i)[0])
          .isCloseTo(wantLeft, within(TOLERANCE_PX));
      assertThat(gotRight)
          .as("right edge of %s", expected.get(i)[0])
          .isCloseTo(Math.max(wantRight, wantLeft + 0.5 * k), within(TOLERANCE_PX));
    }
  }

  private String numberShown(String field) {
    return browser
        .findElement(By.cssSelector("#numbers tr[data-field='" + field + "'] td"))
        .getText();
  }

  private void screenshot(String name) throws Exception {
    byte[] png = ((TakesScreenshot) browser).getScreenshotAs(OutputType.BYTES);
    Files.write(screenshots.resolve(name + ".png"), png);
  }
}
