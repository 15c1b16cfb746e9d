package io.schedlens.collector.k8s;

import io.fabric8.kubernetes.api.Pluralize;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.util.List;
import java.util.Locale;
import java.util.regex.Pattern;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * A kind of object a pod's controller chain may run through, as {@code owners.kinds} names it:
 * {@code group/version/Kind}, or {@code version/Kind} for the core group, e.g. {@code
 * apps/v1/ReplicaSet}, {@code jobset.x-k8s.io/v1alpha2/JobSet}. Its resource is the kind's plural
 * in lower case, as Kubernetes and every CRD generator name it.
 */
public record OwnerKind(String group, String version, String kind) {

  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");
  private static final Pattern VERSION = Pattern.compile("v[0-9]+((alpha|beta)[0-9]+)?");
  private static final Pattern KIND = Pattern.compile("[A-Z][A-Za-z0-9]*");

  /** Reads {@code group/version/Kind} or {@code version/Kind}; throws what is wrong otherwise. */
  public static OwnerKind parse(String s) {
    String[] parts = s.trim().split("/");
    if (parts.length < 2 || parts.length > 3) {
      throw new IllegalArgumentException(
          "'" + s + "' is not group/version/Kind (e.g. apps/v1/ReplicaSet) or v1/Kind");
    }
    String group = parts.length == 3 ? parts[0] : "";
    String version = parts[parts.length - 2];
    String kind = parts[parts.length - 1];
    if (!group.isEmpty() && !DNS_SUBDOMAIN.matcher(group).matches()) {
      throw new IllegalArgumentException("'" + group + "' in '" + s + "' is not an API group");
    }
    if (!VERSION.matcher(version).matches()) {
      throw new IllegalArgumentException("'" + version + "' in '" + s + "' is not an API version");
    }
    if (!KIND.matcher(kind).matches()) {
      throw new IllegalArgumentException(
          "'" + kind + "' in '" + s + "' is not a kind (CamelCase, e.g. ReplicaSet)");
    }
    return new OwnerKind(group, version, kind);
  }

  /** The apiVersion its objects carry: {@code group/version}, or {@code version} for core. */
  public String apiVersion() {
    return group.isEmpty() ? version : group + "/" + version;
  }

  /** The resource name: the kind's plural, in lower case (ReplicaSet: replicasets). */
  public String plural() {
    return Pluralize.toPlural(kind.toLowerCase(Locale.ROOT));
  }

  /** What fabric8's generic client needs to reach the objects without discovery. */
  public ResourceDefinitionContext context() {
    return new ResourceDefinitionContext.Builder()
        .withGroup(group)
        .withVersion(version)
        .withKind(kind)
        .withPlural(plural())
        .withNamespaced(true)
        .build();
  }

  /** {@code Kind.group} (kubectl's spelling), for log lines. */
  @Override
  public String toString() {
    return group.isEmpty() ? kind : kind + "." + group;
  }

  /** Validates every entry of an {@code owners.kinds} list at start. */
  public static final ConfigDef.Validator LIST =
      (name, value) -> {
        if (value instanceof List<?> list) {
          for (Object o : list) {
            try {
              parse(String.valueOf(o));
            } catch (IllegalArgumentException e) {
              throw new ConfigException(name, o, e.getMessage());
            }
          }
        }
      };
}
