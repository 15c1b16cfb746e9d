package io.schedlens.bench;

import io.schedlens.projections.dcgm.ExpositionParser;
import io.schedlens.projections.dcgm.GpuSampleAssembler;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/** Parsing one 8-GPU default-counters scrape into GPU samples, as the scraper does. */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 3, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class DcgmParseBenchmark {

  private String scrape;

  @Setup
  public void setup() {
    scrape = DefaultCountersScrape.build(Path.of(System.getProperty("schedlens.root", ".")));
  }

  @Benchmark
  public GpuSampleAssembler.Result parseAndAssemble() throws Exception {
    return GpuSampleAssembler.assemble(
        ExpositionParser.parse(scrape, ExpositionParser.Format.PROMETHEUS_TEXT), 1L, "bench", null);
  }
}
