package io.schedlens.collector;

import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.server.mock.KubernetesCrudDispatcher;
import io.fabric8.kubernetes.client.server.mock.KubernetesMockServer;
import io.fabric8.mockwebserver.Context;
import io.fabric8.mockwebserver.MockWebServer;
import java.net.InetAddress;
import java.util.HashMap;

/** fabric8's mock Kubernetes API server in CRUD mode on loopback: real HTTP, real watches. */
final class MockKubernetes implements AutoCloseable {

  final KubernetesMockServer server;
  final KubernetesClient client;

  MockKubernetes() throws Exception {
    server =
        new KubernetesMockServer(
            new Context(),
            new MockWebServer(),
            new HashMap<>(),
            new KubernetesCrudDispatcher(),
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
