package io.schedlens.deploy;

import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Collection;
import java.util.Map;

/**
 * Visits every property of a typed model object (fabric8's Kubernetes model, Strimzi's custom
 * resource model) through its getters, depth first, with the path of each ({@code
 * spec.template.pod.securityContext}): the one walk the schema checks share.
 */
final class ModelWalk {

  /** What to do with one property: its getter, its value (possibly null), its path. */
  interface Visitor {
    void property(Method getter, Object value, String path);
  }

  private ModelWalk() {}

  static void walk(Object o, String at, Visitor visitor) {
    if (o == null) {
      return;
    }
    if (o instanceof Collection<?> c) {
      int i = 0;
      for (Object e : c) {
        walk(e, at + "[" + i++ + "]", visitor);
      }
      return;
    }
    if (o instanceof Map<?, ?> m) {
      m.forEach((k, v) -> walk(v, at + "." + k, visitor));
      return;
    }
    String type = o.getClass().getName();
    if (!type.startsWith("io.fabric8.kubernetes.api.model")
        && !type.startsWith("io.strimzi.api.kafka.model")) {
      return;
    }
    for (Method g : o.getClass().getMethods()) {
      String name = g.getName();
      if (g.getParameterCount() != 0
          || Modifier.isStatic(g.getModifiers())
          || !(name.startsWith("get") || name.startsWith("is"))
          || name.equals("getClass")) {
        continue;
      }
      Object v;
      try {
        v = g.invoke(o);
      } catch (ReflectiveOperationException | RuntimeException e) {
        continue;
      }
      String path = at + "." + property(name);
      visitor.property(g, v, path);
      if (!name.equals("getAdditionalProperties")) {
        walk(v, path, visitor);
      }
    }
  }

  private static String property(String getter) {
    String s = getter.startsWith("is") ? getter.substring(2) : getter.substring(3);
    return s.isEmpty() ? s : Character.toLowerCase(s.charAt(0)) + s.substring(1);
  }
}
