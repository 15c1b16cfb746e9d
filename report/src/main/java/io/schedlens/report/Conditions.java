package io.schedlens.report;

import com.fasterxml.jackson.annotation.JsonIgnore;
import com.fasterxml.jackson.annotation.JsonIgnoreProperties;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import io.schedlens.avro.ChangeType;
import io.schedlens.avro.ExperimentConfig;
import io.schedlens.avro.GpuSample;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * An experiment's conditions for the report's header: what its ConfigMap (labelled {@code
 * schedlens.io/experiment}) states — by convention {@code change}, {@code fixed}, {@code metrics},
 * {@code repeats} — and the GPU models and nodes the data came from. Demo and replay write it as
 * {@code conditions.json} beside the timelines.
 *
 * @param source the ConfigMap, {@code namespace/name}; null when none was found
 * @param stated its data, in the conventional order then the rest
 * @param gpuNodes GPU model to the nodes it was seen on (from DCGM samples)
 */
@JsonIgnoreProperties(ignoreUnknown = true)
public record Conditions(
    String source, Map<String, String> stated, Map<String, List<String>> gpuNodes) {

  public static final String FILE = "conditions.json";
  static final List<String> ORDER = List.of("change", "fixed", "metrics", "repeats");
  private static final ObjectMapper JSON =
      new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

  public static final Conditions NONE = new Conditions(null, Map.of(), Map.of());

  /**
   * The conditions of {@code experiment}: its latest ConfigMap (deleted ones excluded) and the GPU
   * models of the samples.
   */
  public static Conditions of(
      String experiment, Collection<ExperimentConfig> configMaps, Collection<GpuSample> samples) {
    ExperimentConfig chosen = null;
    for (ExperimentConfig c : configMaps) {
      if (experiment.equals(c.getExperiment())
          && c.getChangeType() != ChangeType.DELETED
          && (chosen == null || c.getObservedAt() >= chosen.getObservedAt())) {
        chosen = c;
      }
    }
    Map<String, TreeSet<String>> models = new TreeMap<>();
    for (GpuSample s : samples) {
      if (s.getModelName() != null && s.getNode() != null) {
        models.computeIfAbsent(s.getModelName(), m -> new TreeSet<>()).add(s.getNode());
      }
    }
    Map<String, List<String>> gpuNodes = new LinkedHashMap<>();
    models.forEach((m, nodes) -> gpuNodes.put(m, new ArrayList<>(nodes)));
    if (chosen == null) {
      return new Conditions(null, Map.of(), gpuNodes);
    }
    Map<String, String> stated = new LinkedHashMap<>();
    for (String k : ORDER) {
      if (chosen.getData().containsKey(k)) {
        stated.put(k, chosen.getData().get(k));
      }
    }
    new TreeMap<>(chosen.getData()).forEach(stated::putIfAbsent);
    return new Conditions(chosen.getNamespace() + "/" + chosen.getName(), stated, gpuNodes);
  }

  @JsonIgnore
  public boolean isEmpty() {
    return source == null && gpuNodes.isEmpty();
  }

  /** The stated repeats, when they are a number. */
  @JsonIgnore
  public Integer statedRepeats() {
    try {
      return stated.containsKey("repeats") ? Integer.parseInt(stated.get("repeats").strip()) : null;
    } catch (NumberFormatException e) {
      return null;
    }
  }

  public void write(Path dir) throws IOException {
    Files.writeString(dir.resolve(FILE), JSON.writeValueAsString(this) + "\n");
  }

  /** {@code dir/conditions.json}, or none. */
  public static Conditions read(Path dir) throws IOException {
    Path p = dir.resolve(FILE);
    if (!Files.exists(p)) {
      return NONE;
    }
    return JSON.readValue(p.toFile(), Conditions.class);
  }
}
