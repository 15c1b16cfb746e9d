package io.schedlens.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.javaparser.ParserConfiguration;
import com.github.javaparser.StaticJavaParser;
import com.github.javaparser.ast.CompilationUnit;
import com.github.javaparser.ast.body.CallableDeclaration;
import com.github.javaparser.ast.body.TypeDeclaration;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Main code stays in pieces a reader can hold: no top-level class over {@value #MAX_CLASS_LINES}
 * lines, no method or constructor over {@value #MAX_METHOD_LINES}. Declarative tables are the
 * exceptions, each named here with why.
 */
class SourceShapeTest {

  static final int MAX_CLASS_LINES = 500;
  static final int MAX_METHOD_LINES = 80;

  /**
   * Methods that are tables, not procedures ({@code File.method}): the metric families and the
   * topics, one declaration after another.
   */
  static final Set<String> TABLES =
      Set.of("CollectorMetrics.CollectorMetrics", "Topics.Topics", "StreamsMetrics.StreamsMetrics");

  @Test
  void shouldKeepEveryClassAndMethodOfMainCodeSmall() throws IOException {
    StaticJavaParser.getParserConfiguration()
        .setLanguageLevel(ParserConfiguration.LanguageLevel.JAVA_17);
    Map<String, Integer> found = new TreeMap<>();
    int files = 0;
    try (Stream<Path> all = Files.walk(Repository.root())) {
      for (Path f :
          all.filter(p -> p.toString().endsWith(".java"))
              .filter(p -> p.toString().contains("/src/main/java/"))
              .filter(p -> !p.toString().contains("/target/"))
              .toList()) {
        files++;
        found.putAll(oversized(f));
      }
    }
    assertThat(files).isGreaterThan(100);
    List<String> large = new ArrayList<>();
    found.forEach((what, lines) -> large.add(what + " " + lines + " lines"));
    assertThat(large)
        .as("classes over %d lines, methods over %d", MAX_CLASS_LINES, MAX_METHOD_LINES)
        .isEmpty();
  }

  static Map<String, Integer> oversized(Path file) throws IOException {
    CompilationUnit unit = StaticJavaParser.parse(file);
    String name = Repository.root().relativize(file).toString();
    Map<String, Integer> found = new TreeMap<>();
    for (TypeDeclaration<?> t : unit.getTypes()) {
      int lines = lines(t);
      if (lines > MAX_CLASS_LINES) {
        found.put(name + ": class " + t.getNameAsString(), lines);
      }
    }
    for (CallableDeclaration<?> m : unit.findAll(CallableDeclaration.class)) {
      int lines = lines(m);
      String key = file.getFileName().toString().replace(".java", "") + "." + m.getNameAsString();
      if (lines > MAX_METHOD_LINES && !TABLES.contains(key)) {
        found.merge(name + ": " + m.getNameAsString(), lines, Math::max);
      }
    }
    return found;
  }

  private static int lines(com.github.javaparser.ast.Node n) {
    return n.getRange().map(r -> r.end.line - r.begin.line + 1).orElse(0);
  }
}
