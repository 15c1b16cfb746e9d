package io.schedlens.bench;

import com.sun.net.httpserver.HttpServer;
import io.fabric8.kubernetes.api.model.ContainerImage;
import io.fabric8.kubernetes.api.model.ManagedFieldsEntryBuilder;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeBuilder;
import io.fabric8.kubernetes.api.model.ObjectReferenceBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.events.v1.Event;
import io.fabric8.kubernetes.api.model.events.v1.EventBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.schedlens.collector.CollectorMain;
import io.schedlens.kafka.EmbeddedKafkaBroker;
import io.schedlens.schemas.Topics;
import java.io.File;
import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Load command: the collector's heap on a cluster of a given size, the collector in its own JVM
 * with the manifests' heap and GC. fabric8's mock API server (CRUD) holds the pods (copies of the
 * real pod fixtures, managed fields and all, spread over namespaces and nodes), their events in
 * both Event APIs and their controllers, of every kind the collector follows by default ({@link
 * OwnerPopulation}); a dcgm-exporter answers for every node with the real 8-GPU H100 exposition.
 * Once the collector is ready it runs for a while (scrapes); the heap after a full GC (the live
 * set) is read with {@code jcmd} three times, and the largest is reported with the process's
 * resident memory and the largest classes of the live set.
 *
 * <pre>
 * java -cp "benchmarks/target/schedlens-benchmarks.jar:benchmarks/target/lib/*" \
 *   io.schedlens.bench.CollectorMemory [pods=5000] [nodes=200] [eventsPerPod=4] [heap=640m]
 * </pre>
 *
 * {@code -Dcollector.classpaths=CP1;CP2} measures other builds of the collector one after the other
 * on the same cluster (a side-by-side comparison); {@code -Dfixtures=DIR} names the pod fixtures
 * (default ../shared/fixtures/real).
 */
public final class CollectorMemory {

  private CollectorMemory() {}

  public static void main(String[] args) throws Exception {
    int pods = args.length > 0 ? Integer.parseInt(args[0]) : 5000;
    int nodes = args.length > 1 ? Integer.parseInt(args[1]) : 200;
    int eventsPerPod = args.length > 2 ? Integer.parseInt(args[2]) : 4;
    String heap = args.length > 3 ? args[3] : "640m";
    Path fixtures = Path.of(System.getProperty("fixtures", "../shared/fixtures/real"));
    System.out.printf(
        "collector memory: %,d pods on %d nodes, %d events per pod in each Event API, -Xmx%s%n",
        pods, nodes, eventsPerPod, heap);

    List<Pod> templates = templates(fixtures);
    byte[] exposition =
        Files.readAllBytes(
            fixtures.resolve("dcgm").resolve("aicr-h100-eks-8gpu-exposition-2026-02-19.prom"));

    try (EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.start()) {
      KubernetesMockServer api =
          new KubernetesMockServer(
              new Context(),
              new MockWebServer(),
              new HashMap<>(),
              new KubernetesCrudDispatcher(),
              false);
      api.init(InetAddress.getByName("127.0.0.1"), 0);
      HttpServer dcgm = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
      dcgm.createContext(
          "/",
          exchange -> {
            exchange.getResponseHeaders().set("Content-Type", "text/plain; version=0.0.4");
            exchange.sendResponseHeaders(200, exposition.length);
            exchange.getResponseBody().write(exposition);
            exchange.close();
          });
      dcgm.start();
      Process collector = null;
      try (KubernetesClient client = api.createClient()) {
        populate(client, templates, pods, nodes, eventsPerPod);
        List<String> targets = new ArrayList<>();
        for (int n = 0; n < nodes; n++) {
          targets.add("http://127.0.0.1:" + dcgm.getAddress().getPort() + "/metrics/node-" + n);
        }
        // The collector builds to measure: this one, or the classpaths named (path-separated
        // lists, separated by ';'), one after the other on the same cluster.
        String builds =
            System.getProperty("collector.classpaths", System.getProperty("java.class.path"));
        for (String classpath : builds.split(";")) {
          collector = launch(classpath, heap, client, targets, broker);
          measure(collector, classpath, pods, nodes, eventsPerPod, heap);
          collector.destroy();
          collector.waitFor();
          collector = null;
        }
      } finally {
        if (collector != null) {
          collector.destroy();
          collector.waitFor();
        }
        dcgm.stop(0);
        api.destroy();
      }
    }
  }

  /** The real fixtures' pods that come with their managed fields, as templates. */
  private static List<Pod> templates(Path fixtures) throws IOException {
    List<Pod> templates = new ArrayList<>();
    try (var files = Files.list(fixtures.resolve("pods"))) {
      for (Path f : files.sorted().toList()) {
        String text = Files.readString(f);
        if (text.contains("\"PodList\"") && text.contains("managedFields")) {
          templates.add(Serialization.unmarshal(text, PodList.class).getItems().get(0));
        }
      }
    }
    return templates;
  }

  /** {@code pods} pods and their events, each event in both Event APIs. */
  private static void populate(
      KubernetesClient client, List<Pod> templates, int pods, int nodes, int eventsPerPod) {
    long t0 = System.nanoTime();
    for (int n = 0; n < nodes; n++) {
      client.nodes().resource(gpuNode(n)).create();
    }
    OwnerPopulation owners = new OwnerPopulation(client);
    for (int i = 0; i < pods; i++) {
      Pod p = pod(templates.get(i % templates.size()), i, nodes);
      p.getMetadata()
          .setOwnerReferences(List.of(owners.controllerOf(i, p.getMetadata().getNamespace())));
      client.pods().inNamespace(p.getMetadata().getNamespace()).resource(p).create();
      // An API server serves every event through both APIs, under one name and UID.
      for (int e = 0; e < eventsPerPod; e++) {
        String uid = UUID.randomUUID().toString();
        client
            .v1()
            .events()
            .inNamespace(p.getMetadata().getNamespace())
            .resource(coreEvent(p, e, uid))
            .create();
        client
            .events()
            .v1()
            .events()
            .inNamespace(p.getMetadata().getNamespace())
            .resource(newEvent(p, e, uid))
            .create();
      }
      if ((i + 1) % 1000 == 0) {
        System.out.printf(
            "  %,d pods, their events and %,d owners in the API server (%d s)%n",
            i + 1, owners.owners(), (System.nanoTime() - t0) / 1_000_000_000);
      }
    }
  }

  /**
   * A GPU node as GPU feature discovery labels an 8-GPU H100 node (k8s-device-plugin's label
   * catalogue), with a status listing its capacity and the images it holds: the collector's node
   * cache keeps its name and NVIDIA labels only.
   */
  private static Node gpuNode(int n) {
    Map<String, String> labels = new TreeMap<>();
    labels.put("kubernetes.io/hostname", "node-" + n);
    labels.put("kubernetes.io/os", "linux");
    labels.put("kubernetes.io/arch", "amd64");
    labels.put("node.kubernetes.io/instance-type", "p5.48xlarge");
    labels.put("topology.kubernetes.io/zone", "us-east-1" + (char) ('a' + n % 3));
    labels.put("nvidia.com/cuda.driver-version.full", "580.105.08");
    labels.put("nvidia.com/cuda.runtime-version.full", "13.0");
    labels.put("nvidia.com/gfd.timestamp", "1765000000");
    labels.put("nvidia.com/gpu.compute.major", "9");
    labels.put("nvidia.com/gpu.compute.minor", "0");
    labels.put("nvidia.com/gpu.count", "8");
    labels.put("nvidia.com/gpu.family", "hopper");
    labels.put("nvidia.com/gpu.machine", "p5.48xlarge");
    labels.put("nvidia.com/gpu.memory", "81559");
    labels.put("nvidia.com/gpu.mode", "compute");
    labels.put("nvidia.com/gpu.present", "true");
    labels.put("nvidia.com/gpu.product", "NVIDIA-H100-80GB-HBM3");
    labels.put("nvidia.com/gpu.replicas", "1");
    labels.put("nvidia.com/gpu.sharing-strategy", "none");
    labels.put("nvidia.com/mig.capable", "true");
    labels.put("nvidia.com/mig.strategy", "single");
    labels.put("nvidia.com/mps.capable", "false");
    List<ContainerImage> images = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      images.add(
          new ContainerImage(
              List.of("registry.example.com/team-" + i + "/server@sha256:" + "0".repeat(64)),
              4_000_000_000L));
    }
    return new NodeBuilder()
        .withNewMetadata()
        .withName("node-" + n)
        .withLabels(labels)
        .endMetadata()
        .withNewStatus()
        .addToCapacity("nvidia.com/gpu", new Quantity("8"))
        .addToAllocatable("nvidia.com/gpu", new Quantity("8"))
        .withImages(images)
        .endStatus()
        .build();
  }

  /** The largest live heap of three readings 10 s apart, resident memory, the histogram. */
  private static void measure(
      Process collector, String classpath, int pods, int nodes, int eventsPerPod, String heap)
      throws Exception {
    HttpClient http = HttpClient.newHttpClient();
    long ready = System.nanoTime();
    waitReady(http, "http://127.0.0.1:" + collectorPort + "/readyz", collector);
    System.out.printf(
        "  ready (informers synced) %.1f s after the start%n", (System.nanoTime() - ready) / 1e9);
    long largest = 0;
    for (int round = 0; round < 3; round++) {
      Thread.sleep(10_000); // two scrapes of every target between readings
      largest = Math.max(largest, liveHeap(collector.pid()));
    }
    System.out.printf(
        "collector memory: %,d pods, %d nodes, %,d events (each in both APIs): live heap at"
            + " most %,d KiB, resident %,d KiB (-Xmx%s) [%s]%n",
        pods,
        nodes,
        (long) pods * eventsPerPod,
        largest / 1024,
        residentKib(collector.pid()),
        heap,
        classpath.length() > 60 ? "..." + classpath.substring(classpath.length() - 60) : classpath);
    System.out.println(histogram(collector.pid(), 12));
  }

  private static int collectorPort;

  private static Process launch(
      String classpath,
      String heap,
      KubernetesClient client,
      List<String> targets,
      EmbeddedKafkaBroker broker)
      throws IOException {
    try (ServerSocket s = new ServerSocket(0)) {
      collectorPort = s.getLocalPort();
    }
    broker.createTopics(Topics.withPrefix("m" + collectorPort + ".").newTopics(4, (short) 1));
    File log = File.createTempFile("collector-memory", ".log");
    ProcessBuilder launch =
        new ProcessBuilder(
            Path.of(System.getProperty("java.home"), "bin", "java").toString(),
            "-Xmx" + heap,
            "-XX:+UseSerialGC",
            "-XX:+ExitOnOutOfMemoryError",
            "-cp",
            classpath,
            CollectorMain.class.getName(),
            "--kubernetes-master",
            client.getMasterUrl().toString(),
            "--topic-prefix",
            "m" + collectorPort + ".",
            "--dcgm-discovery",
            "false",
            "--dcgm-targets",
            String.join(",", targets),
            "--scrape-interval",
            "5s",
            "--http-port",
            Integer.toString(collectorPort),
            "--intake-auth",
            "none");
    launch.environment().put("KAFKA_BOOTSTRAP_SERVERS", broker.bootstrapServers());
    launch.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.appendTo(log));
    Process p = launch.start();
    System.out.printf("  collector pid %d, log %s%n", p.pid(), log);
    return p;
  }

  /**
   * The first {@code n} lines of the class histogram of the live objects of process {@code pid}.
   */
  static String histogram(long pid, int n) throws Exception {
    String[] lines = jcmd(pid, "GC.class_histogram").split("\n");
    return String.join("\n", Arrays.asList(lines).subList(0, Math.min(lines.length, n + 3)));
  }

  private static Pod pod(Pod template, int i, int nodes) {
    String ns = "team-" + (i % 50);
    return new PodBuilder(template)
        .editMetadata()
        .withNamespace(ns)
        .withName("worker-" + i)
        .withUid(UUID.randomUUID().toString())
        .withResourceVersion(null)
        .withCreationTimestamp(Instant.now().minusSeconds(3600).toString())
        .endMetadata()
        .editOrNewSpec()
        .withNodeName("node-" + (i % nodes))
        .endSpec()
        .build();
  }

  private static final String[] REASONS = {"Scheduled", "Pulled", "Created", "Started"};

  private static io.fabric8.kubernetes.api.model.Event coreEvent(Pod p, int e, String uid) {
    String now = Instant.now().toString();
    return new io.fabric8.kubernetes.api.model.EventBuilder()
        .withNewMetadata()
        .withName(p.getMetadata().getName() + "." + e)
        .withNamespace(p.getMetadata().getNamespace())
        .withUid(uid)
        .withManagedFields(
            new ManagedFieldsEntryBuilder()
                .withManager("kubelet")
                .withOperation("Update")
                .withApiVersion("v1")
                .withTime(now)
                .build())
        .endMetadata()
        .withInvolvedObject(
            new ObjectReferenceBuilder()
                .withKind("Pod")
                .withNamespace(p.getMetadata().getNamespace())
                .withName(p.getMetadata().getName())
                .withUid(p.getMetadata().getUid())
                .build())
        .withReason(REASONS[e % REASONS.length])
        .withMessage(
            "Successfully assigned "
                + p.getMetadata().getNamespace()
                + "/"
                + p.getMetadata().getName()
                + " to "
                + p.getSpec().getNodeName())
        .withType("Normal")
        .withFirstTimestamp(now)
        .withLastTimestamp(now)
        .withCount(1)
        .withNewSource()
        .withComponent("default-scheduler")
        .endSource()
        .build();
  }

  private static Event newEvent(Pod p, int e, String uid) {
    return new EventBuilder()
        .withNewMetadata()
        .withName(p.getMetadata().getName() + "." + e)
        .withNamespace(p.getMetadata().getNamespace())
        .withUid(uid)
        .endMetadata()
        .withNewRegarding()
        .withKind("Pod")
        .withNamespace(p.getMetadata().getNamespace())
        .withName(p.getMetadata().getName())
        .withUid(p.getMetadata().getUid())
        .endRegarding()
        .withReason(REASONS[e % REASONS.length])
        .withNote("event " + e + " of " + p.getMetadata().getName())
        .withType("Normal")
        .withReportingController("default-scheduler")
        .withReportingInstance("default-scheduler-node-0")
        .withAction("Binding")
        .withNewEventTime(Instant.now().toString())
        .build();
  }

  private static void waitReady(HttpClient http, String url, Process collector) throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(10).toNanos();
    while (System.nanoTime() < deadline) {
      if (!collector.isAlive()) {
        throw new IllegalStateException(
            "the collector exited (code " + collector.exitValue() + "); see its log");
      }
      try {
        HttpResponse<String> r =
            http.send(
                HttpRequest.newBuilder(URI.create(url)).timeout(Duration.ofSeconds(5)).build(),
                HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() == 200) {
          return;
        }
      } catch (IOException e) {
        // not listening yet
      }
      Thread.sleep(500); // the pace of asking, not a wait for a condition
    }
    throw new IllegalStateException("the collector was not ready within 10 minutes");
  }

  private static final Pattern USED = Pattern.compile("used (\\d+)K");

  /** The heap in use right after a full GC of process {@code pid}, in bytes (jcmd). */
  static long liveHeap(long pid) throws Exception {
    jcmd(pid, "GC.run");
    String info = jcmd(pid, "GC.heap_info");
    long used = 0;
    Matcher m = USED.matcher(info);
    // Serial GC: "def new generation total ..K, used ..K" and "tenured generation total ..K, used
    // ..K"; the heap in use is their sum (the metaspace lines say "used" too, in another form).
    for (String line : info.split("\n")) {
      if (line.contains("generation")) {
        Matcher l = USED.matcher(line);
        if (l.find()) {
          used += Long.parseLong(l.group(1)) * 1024;
        }
      }
    }
    if (used == 0 && m.find()) {
      used = Long.parseLong(m.group(1)) * 1024;
    }
    return used;
  }

  private static long residentKib(long pid) throws IOException {
    for (String line : Files.readAllLines(Path.of("/proc/" + pid + "/status"))) {
      if (line.startsWith("VmRSS:")) {
        return Long.parseLong(line.replaceAll("\\D", ""));
      }
    }
    return -1;
  }

  private static String jcmd(long pid, String command) throws Exception {
    Process p =
        new ProcessBuilder(
                Path.of(System.getProperty("java.home"), "bin", "jcmd").toString(),
                Long.toString(pid),
                command)
            .redirectErrorStream(true)
            .start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    p.waitFor();
    return out;
  }
}
