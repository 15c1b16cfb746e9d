package io.schedlens.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/**
 * The real samples under {@code testdata/real/} (a copy of {@code ../shared/fixtures/real/}, with
 * their sources in {@code SOURCES.md}), found from any module's working directory.
 */
public final class Fixtures {

  private static final Path ROOT = locate();

  private Fixtures() {}

  /** The path of a fixture, e.g. {@code dcgm/issue-DCGM-226-l40s-pod-labels.prom}. */
  public static Path path(String relative) {
    Path p = ROOT.resolve(relative);
    if (!Files.exists(p)) {
      throw new IllegalArgumentException("no fixture " + relative + " under " + ROOT);
    }
    return p;
  }

  /** The text of a fixture. */
  public static String text(String relative) {
    try {
      return Files.readString(path(relative), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The fixtures of one folder with the given file name suffix, sorted by name. */
  public static List<Path> list(String folder, String suffix) {
    try (Stream<Path> files = Files.list(ROOT.resolve(folder))) {
      return files.filter(f -> f.getFileName().toString().endsWith(suffix)).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static Path locate() {
    Path dir = Path.of("").toAbsolutePath();
    while (dir != null) {
      Path candidate = dir.resolve("testdata/real");
      if (Files.isDirectory(candidate)) {
        return candidate;
      }
      dir = dir.getParent();
    }
    throw new IllegalStateException(
        "testdata/real not found above " + Path.of("").toAbsolutePath());
  }
}
