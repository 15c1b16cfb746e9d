package io.schedlens.projections.k8s;

import io.fabric8.kubernetes.api.model.Event;
import io.fabric8.kubernetes.api.model.EventList;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodList;
import io.fabric8.kubernetes.client.utils.Serialization;
import io.schedlens.testsupport.Fixtures;
import java.util.List;

/** The real Pod and Event fixtures as fabric8 objects. */
final class K8sFixtures {

  private K8sFixtures() {}

  static Pod pod(String file) {
    List<Pod> items =
        Serialization.unmarshal(Fixtures.text("pods/" + file), PodList.class).getItems();
    return items.get(0);
  }

  static List<Event> events(String file) {
    return Serialization.unmarshal(Fixtures.text("events/" + file), EventList.class).getItems();
  }

  static Event event(String file, String reason) {
    return events(file).stream()
        .filter(e -> reason.equals(e.getReason()))
        .findFirst()
        .orElseThrow();
  }
}
