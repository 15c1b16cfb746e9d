package io.schedlens.collector.dcgm;

/**
 * A dcgm-exporter endpoint to scrape.
 *
 * @param url the metrics URL
 * @param node the node it runs on when known (from EndpointSlice discovery), else null
 */
public record ScrapeTarget(String url, String node) {}
