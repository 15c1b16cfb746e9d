package io.schedlens.projections.dcgm;

import java.util.Map;

/**
 * One sample line of a Prometheus text or OpenMetrics exposition.
 *
 * @param name metric name as written
 * @param labels label names to values; samples with the same label block share one map instance
 * @param rawValue the value token as written (kept so that 64-bit sentinels are recognised exactly,
 *     which a double cannot represent)
 * @param value the value as a double (NaN, +/-Inf allowed)
 * @param timestampMs the sample's own timestamp in epoch milliseconds, or null when absent
 * @param line 1-based line number in the input
 */
public record ExpositionSample(
    String name,
    Map<String, String> labels,
    String rawValue,
    double value,
    Long timestampMs,
    int line) {}
