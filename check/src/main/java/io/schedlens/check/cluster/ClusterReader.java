package io.schedlens.check.cluster;

import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.ConfigBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.schedlens.base.KueueNames;
import io.schedlens.check.ClusterFacts;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/**
 * The check's one adapter to a live cluster (the rules stay free of any client): reads what the
 * check needs, read-only (list verbs only): nodes, PriorityClasses, PodDisruptionBudgets of all
 * namespaces, and where the cluster serves Kueue its LocalQueues and WorkloadPriorityClasses. The
 * client comes from a kubeconfig (the given file, else $KUBECONFIG or ~/.kube/config) or the
 * in-cluster service account.
 */
public final class ClusterReader {

  /** The cluster could not be read: which one, and what went wrong. */
  public static final class Unreachable extends Exception {
    public Unreachable(String message, Throwable cause) {
      super(message, cause);
    }
  }

  private ClusterReader() {}

  /** A client for the kubeconfig file (empty: the default lookup) and optional context. */
  public static KubernetesClient client(String kubeconfig, String context) throws IOException {
    Config config;
    if (kubeconfig != null && !kubeconfig.isEmpty()) {
      config = Config.fromKubeconfig(context, Files.readString(Path.of(kubeconfig)), kubeconfig);
    } else {
      config = Config.autoConfigure(context);
    }
    // A pre-flight check answers in seconds or says why not: no minutes of retries.
    config =
        new ConfigBuilder(config)
            .withRequestTimeout(10_000)
            .withConnectionTimeout(5_000)
            .withRequestRetryBackoffLimit(1)
            .build();
    return new KubernetesClientBuilder().withConfig(config).build();
  }

  /** Reads the cluster of a kubeconfig file (empty: the default lookup) and optional context. */
  public static ClusterFacts read(String kubeconfig, String context)
      throws IOException, Unreachable {
    try (KubernetesClient client = client(kubeconfig, context)) {
      return read(client);
    }
  }

  public static ClusterFacts read(KubernetesClient client) throws Unreachable {
    String source = client.getMasterUrl().toString();
    List<HasMetadata> objects = new ArrayList<>();
    try {
      objects.addAll(client.nodes().list().getItems());
      objects.addAll(client.scheduling().v1().priorityClasses().list().getItems());
      objects.addAll(client.policy().v1().podDisruptionBudget().inAnyNamespace().list().getItems());
      boolean kueue = kueue(client, objects);
      return ClusterFacts.of(objects, kueue, source);
    } catch (KubernetesClientException e) {
      String why =
          e.getCode() == 401 || e.getCode() == 403
              ? "the credentials may not list nodes, priorityclasses and poddisruptionbudgets"
                  + " (and, where Kueue runs, localqueues and workloadpriorityclasses) (HTTP "
                  + e.getCode()
                  + "); it needs get/list on them, cluster-wide"
              : e.getMessage();
      throw new Unreachable("cannot read the cluster at " + source + ": " + why, e);
    }
  }

  /**
   * Kueue's LocalQueues and WorkloadPriorityClasses, from the newest version the cluster serves
   * (API discovery: v1beta2, else v1beta1); whether it serves Kueue at all.
   */
  private static boolean kueue(KubernetesClient client, List<HasMetadata> objects) {
    for (String version : List.of("v1beta2", "v1beta1")) {
      APIResourceList served;
      try {
        served = client.getApiResources(KueueNames.GROUP + "/" + version);
      } catch (KubernetesClientException e) {
        if (e.getCode() == 404) {
          continue;
        }
        throw e;
      }
      if (served == null || served.getResources() == null) {
        continue;
      }
      for (var kind :
          List.of(
              List.of("LocalQueue", "localqueues"),
              List.of("WorkloadPriorityClass", "workloadpriorityclasses"))) {
        boolean namespaced = kind.get(0).equals("LocalQueue");
        var op =
            client.genericKubernetesResources(
                new ResourceDefinitionContext.Builder()
                    .withGroup(KueueNames.GROUP)
                    .withVersion(version)
                    .withKind(kind.get(0))
                    .withPlural(kind.get(1))
                    .withNamespaced(namespaced)
                    .build());
        var items = (namespaced ? op.inAnyNamespace().list() : op.list()).getItems();
        for (GenericKubernetesResource o : items) {
          // list items may leave out their own kind
          o.setApiVersion(KueueNames.GROUP + "/" + version);
          o.setKind(kind.get(0));
          objects.add(o);
        }
      }
      return true;
    }
    return false;
  }
}
