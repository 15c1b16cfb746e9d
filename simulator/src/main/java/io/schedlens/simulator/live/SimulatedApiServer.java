package io.schedlens.simulator.live;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinition;
import io.fabric8.kubernetes.api.model.apiextensions.v1.CustomResourceDefinitionBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.crud.AttributeSet;
import io.fabric8.mockwebserver.http.Buffer;
import io.fabric8.mockwebserver.http.MockResponse;
import io.fabric8.mockwebserver.http.RecordedRequest;
import io.schedlens.base.KueueNames;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.logging.Level;
import java.util.logging.Logger;

/**
 * The demo's Kubernetes API: fabric8's mock server in CRUD mode (real HTTP, real watches) on
 * loopback, with two changes that make it the API server of a simulated cluster whose clock is the
 * simulator's:
 *
 * <ul>
 *   <li>on create, it keeps the {@code metadata.uid} and {@code metadata.creationTimestamp} the
 *       simulator sends (a real API server sets them from its own clock and UID generator; here the
 *       simulator is that clock, and its UIDs follow from the scenario's seed);
 *   <li>an update that sets {@code metadata.deletionTimestamp} marks the object as terminating and
 *       keeps it, as a graceful delete does on a real API server, until the simulated kubelet
 *       deletes it. (The plain mock removes an object marked for deletion without finalizers at
 *       once, and its DELETE does not read the grace period.)
 * </ul>
 *
 * These are done by overriding the dispatcher's public hooks; everything else is fabric8's.
 */
public final class SimulatedApiServer implements AutoCloseable {

  /** fabric8's mock server logs every request through java.util.logging at INFO. */
  private static final Logger MOCK_LOG = Logger.getLogger("io.fabric8.mockwebserver");

  static {
    MOCK_LOG.setLevel(Level.WARNING);
  }

  private final KubernetesMockServer server;
  private final KubernetesClient client;

  private SimulatedApiServer(KubernetesMockServer server) {
    this.server = server;
    this.client = server.createClient();
  }

  /** Starts on 127.0.0.1 and a free port. */
  public static SimulatedApiServer start() {
    return start(false);
  }

  /**
   * Starts on 127.0.0.1 and a free port; with {@code kueue}, it serves Kueue's Workload API ({@link
   * #installKueue}) from the start, as a cluster with Kueue does.
   */
  public static SimulatedApiServer start(boolean kueue) {
    SimulatedApiServer api = startServer();
    if (kueue) {
      api.installKueue();
    }
    return api;
  }

  private static SimulatedApiServer startServer() {
    KubernetesMockServer server =
        new KubernetesMockServer(
            new Context(), new MockWebServer(), new HashMap<>(), new SimulatedCrud(), false);
    try {
      server.init(InetAddress.getByName("127.0.0.1"), 0);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot start the simulated Kubernetes API on loopback", e);
    }
    return new SimulatedApiServer(server);
  }

  /**
   * Installs the CustomResourceDefinition of Kueue's Workloads ({@code kueue.x-k8s.io}, version
   * v1beta2 served and stored, as Kueue v0.16+ has it): the API then serves and lists the group, so
   * that the collector's discovery finds Kueue. Its schema keeps every field (the simulator writes
   * the objects as Kueue does; the API server does not validate them here).
   */
  public void installKueue() {
    CustomResourceDefinition crd =
        new CustomResourceDefinitionBuilder()
            .withNewMetadata()
            .withName("workloads." + KueueNames.GROUP)
            .endMetadata()
            .withNewSpec()
            .withGroup(KueueNames.GROUP)
            .withScope("Namespaced")
            .withNewNames()
            .withKind("Workload")
            .withListKind("WorkloadList")
            .withPlural("workloads")
            .withSingular("workload")
            .endNames()
            .addNewVersion()
            .withName("v1beta2")
            .withServed(true)
            .withStorage(true)
            .withNewSchema()
            .withNewOpenAPIV3Schema()
            .withType("object")
            .withXKubernetesPreserveUnknownFields(true)
            .endOpenAPIV3Schema()
            .endSchema()
            .endVersion()
            .endSpec()
            .build();
    client.apiextensions().v1().customResourceDefinitions().resource(crd).create();
  }

  /** The API's URL, e.g. {@code http://127.0.0.1:38211/} (the collector's kubernetes.master). */
  public String url() {
    return client.getMasterUrl().toString();
  }

  /** A client of this API (the simulator writes through it). */
  public KubernetesClient client() {
    return client;
  }

  @Override
  public void close() {
    client.close();
    server.destroy();
  }

  /** The CRUD dispatcher with the two changes above. */
  static final class SimulatedCrud extends KubernetesCrudDispatcher {

    /** Held only between our update hook and the store hook, never visible to readers. */
    private static final String HOLD = "schedlens.io/simulated-graceful-deletion";

    private final ThreadLocal<ObjectMeta> sent = new ThreadLocal<>();

    @Override
    public MockResponse handleCreate(RecordedRequest request) {
      // Reading the body consumes it: hand the dispatcher a copy.
      String body = request.getUtf8Body();
      ObjectMeta given = metadata(body);
      sent.set(given);
      try {
        MockResponse response = super.handleCreate(withBody(request, body));
        if (given != null && response.code() < 300 && response.getBody() != null) {
          // The response was written before the store hook: answer with what was stored.
          GenericKubernetesResource answered = parse(response.getBody().readUtf8());
          if (answered != null) {
            if (given.getUid() != null) {
              answered.getMetadata().setUid(given.getUid());
            }
            if (given.getCreationTimestamp() != null) {
              answered.getMetadata().setCreationTimestamp(given.getCreationTimestamp());
            }
            response.setBody(Serialization.asJson(answered));
          }
        }
        return response;
      } finally {
        sent.remove();
      }
    }

    private static RecordedRequest withBody(RecordedRequest request, String body) {
      return new RecordedRequest(
          request.getHttpVersion(),
          request.method(),
          request.getPath(),
          request.getHeaders(),
          new Buffer().writeUtf8(body == null ? "" : body));
    }

    @Override
    public MockResponse handleUpdate(RecordedRequest request) {
      String body = request.getUtf8Body();
      GenericKubernetesResource r = parse(body);
      if (r != null
          && r.getMetadata() != null
          && r.getMetadata().getDeletionTimestamp() != null
          && (r.getMetadata().getFinalizers() == null
              || r.getMetadata().getFinalizers().isEmpty())) {
        List<String> finalizers = new ArrayList<>();
        finalizers.add(HOLD);
        r.getMetadata().setFinalizers(finalizers);
        body = Serialization.asJson(r);
      }
      return super.handleUpdate(withBody(request, body));
    }

    @Override
    public void processEvent(
        String path,
        AttributeSet pathAttributes,
        AttributeSet oldAttributes,
        GenericKubernetesResource resource,
        String newState) {
      ObjectMeta given = sent.get();
      if (newState != null && (given != null || newState.contains(HOLD))) {
        GenericKubernetesResource stored = parse(newState);
        if (stored != null && stored.getMetadata() != null) {
          if (given != null && given.getUid() != null) {
            stored.getMetadata().setUid(given.getUid());
          }
          if (given != null && given.getCreationTimestamp() != null) {
            stored.getMetadata().setCreationTimestamp(given.getCreationTimestamp());
          }
          List<String> finalizers = stored.getMetadata().getFinalizers();
          if (finalizers != null && finalizers.contains(HOLD)) {
            List<String> rest = new ArrayList<>(finalizers);
            rest.remove(HOLD);
            stored.getMetadata().setFinalizers(rest);
          }
          if (resource != null && resource.getMetadata() != null) {
            resource.getMetadata().setUid(stored.getMetadata().getUid());
            resource
                .getMetadata()
                .setCreationTimestamp(stored.getMetadata().getCreationTimestamp());
            resource.getMetadata().setFinalizers(stored.getMetadata().getFinalizers());
          }
          newState = Serialization.asJson(stored);
        }
      }
      super.processEvent(path, pathAttributes, oldAttributes, resource, newState);
    }

    private static ObjectMeta metadata(String body) {
      GenericKubernetesResource r = parse(body);
      return r == null ? null : r.getMetadata();
    }

    private static GenericKubernetesResource parse(String body) {
      if (body == null || body.isBlank()) {
        return null;
      }
      try {
        return Serialization.unmarshal(body, GenericKubernetesResource.class);
      } catch (RuntimeException e) {
        return null;
      }
    }
  }
}
