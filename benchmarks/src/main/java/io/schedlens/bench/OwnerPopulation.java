package io.schedlens.bench;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceBuilder;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.fabric8.kubernetes.api.model.OwnerReferenceBuilder;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import io.fabric8.kubernetes.api.model.apps.ReplicaSetBuilder;
import io.fabric8.kubernetes.api.model.apps.StatefulSetBuilder;
import io.fabric8.kubernetes.api.model.batch.v1.JobBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.UUID;

/**
 * The controllers above {@link CollectorMemory}'s pods, of every kind of the collector's default
 * {@code owners.kinds}, created in the API server as the controllers create them: groups of {@link
 * #GROUP} pods under a Deployment's ReplicaSet, a JobSet's Job, a LeaderWorkerSet's StatefulSet, a
 * RayCluster, or a Job alone, in turn. Each group's owners get the next pod's controller reference.
 */
final class OwnerPopulation {

  /** Pods per group (a ReplicaSet's replicas, a Job's parallelism, a Ray cluster's nodes). */
  static final int GROUP = 4;

  private final KubernetesClient client;
  private OwnerReference current;
  private int owners;

  OwnerPopulation(KubernetesClient client) {
    this.client = client;
  }

  /** The controller reference of pod {@code i} in {@code ns}; a new group's owners first. */
  OwnerReference controllerOf(int i, String ns) {
    if (i % GROUP == 0) {
      int group = i / GROUP;
      String name = "w-" + group;
      current =
          switch (group % 5) {
            case 0 -> {
              OwnerReference d = create(ns, "apps/v1", "Deployment", name, null);
              yield create(ns, "apps/v1", "ReplicaSet", name + "-5d567cc74c", d);
            }
            case 1 -> {
              OwnerReference js = create(ns, "jobset.x-k8s.io/v1alpha2", "JobSet", name, null);
              yield create(ns, "batch/v1", "Job", name + "-workers-0", js);
            }
            case 2 -> {
              OwnerReference lws =
                  new OwnerReferenceBuilder()
                      .withApiVersion("leaderworkerset.x-k8s.io/v1")
                      .withKind("LeaderWorkerSet")
                      .withName(name)
                      .withUid(UUID.randomUUID().toString())
                      .withController(true)
                      .build();
              yield create(ns, "apps/v1", "StatefulSet", name, lws);
            }
            case 3 -> create(ns, "ray.io/v1", "RayCluster", name, null);
            default -> create(ns, "batch/v1", "Job", name, null);
          };
    }
    return current;
  }

  /** How many owner objects were created. */
  int owners() {
    return owners;
  }

  private OwnerReference create(
      String ns, String apiVersion, String kind, String name, OwnerReference owner) {
    String uid = UUID.randomUUID().toString();
    HasMetadata o =
        switch (kind) {
          case "Deployment" -> new DeploymentBuilder().withNewMetadata().endMetadata().build();
          case "ReplicaSet" -> new ReplicaSetBuilder().withNewMetadata().endMetadata().build();
          case "StatefulSet" -> new StatefulSetBuilder().withNewMetadata().endMetadata().build();
          case "Job" -> new JobBuilder().withNewMetadata().endMetadata().build();
          default ->
              new GenericKubernetesResourceBuilder()
                  .withApiVersion(apiVersion)
                  .withKind(kind)
                  .withNewMetadata()
                  .endMetadata()
                  .build();
        };
    o.getMetadata().setNamespace(ns);
    o.getMetadata().setName(name);
    o.getMetadata().setUid(uid);
    if (owner != null) {
      o.getMetadata().getOwnerReferences().add(owner);
    }
    // The API server may give the object its own UID: pods must name the one it kept.
    HasMetadata created;
    if (o instanceof GenericKubernetesResource g) {
      String group = apiVersion.substring(0, apiVersion.indexOf('/'));
      String version = apiVersion.substring(apiVersion.indexOf('/') + 1);
      created =
          client
              .genericKubernetesResources(
                  new ResourceDefinitionContext.Builder()
                      .withGroup(group)
                      .withVersion(version)
                      .withKind(kind)
                      .withPlural(kind.toLowerCase() + "s")
                      .withNamespaced(true)
                      .build())
              .inNamespace(ns)
              .resource(g)
              .create();
    } else {
      created = client.resource(o).inNamespace(ns).create();
    }
    owners++;
    return new OwnerReferenceBuilder()
        .withApiVersion(apiVersion)
        .withKind(kind)
        .withName(name)
        .withUid(created.getMetadata().getUid())
        .withController(true)
        .withBlockOwnerDeletion(true)
        .build();
  }
}
