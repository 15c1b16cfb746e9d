package io.schedlens.simulator.cluster;

import io.schedlens.simulator.scenario.Scenario.Taint;
import java.util.List;
import java.util.Map;

/**
 * A GPU node: its allocatable {@code nvidia.com/gpu}, labels, taints and the GPUs' identities as
 * dcgm-exporter reports them.
 */
public record SimNode(
    String name,
    int gpus,
    String gpuModel,
    Map<String, String> labels,
    List<Taint> taints,
    List<String> gpuUuids) {}
