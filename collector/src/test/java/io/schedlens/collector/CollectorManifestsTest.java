package io.schedlens.collector;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.rbac.ClusterRole;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The collector's manifests in deploy/: valid Kubernetes objects, and read-only RBAC. */
class CollectorManifestsTest {

  static Path deploy() {
    Path dir = Path.of("").toAbsolutePath();
    while (!Files.isDirectory(dir.resolve("deploy"))) {
      dir = dir.getParent();
    }
    return dir.resolve("deploy/base/collector");
  }

  static <T extends HasMetadata> T load(String file, Class<T> type) throws Exception {
    return Serialization.unmarshal(Files.readString(deploy().resolve(file)), type);
  }

  @Test
  void shouldGrantOnlyReadVerbsAndNeverSecrets() throws Exception {
    ClusterRole role = load("clusterrole.yaml", ClusterRole.class);

    assertThat(role.getRules())
        .isNotEmpty()
        .allSatisfy(
            rule -> {
              assertThat(rule.getVerbs()).isSubsetOf(List.of("get", "list", "watch"));
              assertThat(rule.getResources()).doesNotContain("secrets", "*");
              assertThat(rule.getApiGroups()).doesNotContain("*");
            });
    assertThat(role.getRules())
        .flatExtracting(r -> r.getResources())
        .contains("pods", "events")
        // read only in their own namespaces, by namespaced Roles (deploy/base/collector-namespaced)
        .doesNotContain("endpointslices", "configmaps");
  }

  @Test
  void shouldProbeReadinessAndLivenessAndBoundResources() throws Exception {
    Deployment d = load("deployment.yaml", Deployment.class);
    var c = d.getSpec().getTemplate().getSpec().getContainers().get(0);

    assertThat(c.getReadinessProbe().getHttpGet().getPath()).isEqualTo("/readyz");
    assertThat(c.getLivenessProbe().getHttpGet().getPath()).isEqualTo("/healthz");
    assertThat(c.getResources().getRequests()).containsKeys("cpu", "memory");
    assertThat(c.getResources().getLimits()).containsKey("memory");
    assertThat(d.getSpec().getTemplate().getSpec().getServiceAccountName())
        .isEqualTo("schedlens-collector");
  }
}
