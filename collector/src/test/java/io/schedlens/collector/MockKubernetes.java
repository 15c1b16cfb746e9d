package io.schedlens.collector;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesMixedDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import io.fabric8.mockwebserver.ServerRequest;
import io.fabric8.mockwebserver.ServerResponse;
import java.net.InetAddress;
import java.util.HashMap;
import java.util.Map;
import java.util.Queue;

/**
 * fabric8's mock Kubernetes API server in CRUD mode on loopback: real HTTP, real watches. A request
 * a test set an expectation for ({@code server.expect()}: a 403, a 404) is answered so; all others
 * by the CRUD store.
 */
final class MockKubernetes implements AutoCloseable {

  final KubernetesMockServer server;
  final KubernetesClient client;

  MockKubernetes() throws Exception {
    Map<ServerRequest, Queue<ServerResponse>> expected = new HashMap<>();
    server =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            expected,
            new KubernetesMixedDispatcher(expected),
            false);
    server.init(InetAddress.getByName("127.0.0.1"), 0);
    client = server.createClient();
  }

  String url() {
    return client.getMasterUrl().toString();
  }

  @Override
  public void close() {
    client.close();
    server.destroy();
  }
}
