package io.schedlens.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Main code names a class by its simple name and says where it comes from in its imports, so that a
 * reader sees a file's dependencies at its top. A fully-qualified name inline is allowed only where
 * Java leaves no other way: two classes of one simple name in one file (fabric8's {@code Event} and
 * the events.k8s.io one, our Avro {@code PodCondition} beside fabric8's, Connect's {@code Schema}
 * beside Avro's), where one of them is imported or declared here and the other is written out.
 * Comments and strings do not count. (Checked on the sources: the compiled classes no longer show
 * how a name was written.)
 */
class SourceNamesTest {

  private static final Pattern QUALIFIED =
      Pattern.compile("\\b((?:java|javax|jakarta|org|io|com)\\.(?:[a-z0-9_]+\\.)+)([A-Z]\\w*)");
  private static final Pattern IMPORT =
      Pattern.compile("^import\\s+(static\\s+)?([\\w.]+)\\.(\\w+|\\*);", Pattern.MULTILINE);
  private static final Pattern DECLARED =
      Pattern.compile("\\b(?:class|interface|record|enum)\\s+([A-Z]\\w*)");

  @Test
  void shouldNameClassesInMainCodeByTheirImports() throws IOException {
    List<String> inline = new ArrayList<>();
    int files = 0;
    try (Stream<Path> all = Files.walk(Repository.root())) {
      for (Path f :
          all.filter(p -> p.toString().endsWith(".java"))
              .filter(p -> p.toString().contains("/src/main/java/"))
              .filter(p -> !p.toString().contains("/target/"))
              .toList()) {
        files++;
        inline.addAll(inlineNames(f));
      }
    }
    assertThat(files).isGreaterThan(100);
    assertThat(inline).as("fully-qualified names written inline (import them)").isEmpty();
  }

  /** The inline qualified names of one source file that an import could have said. */
  static List<String> inlineNames(Path file) throws IOException {
    String src = Files.readString(file);
    Map<String, String> imported = new HashMap<>();
    Matcher im = IMPORT.matcher(src);
    while (im.find()) {
      if (im.group(1) == null) {
        imported.put(im.group(3), im.group(2) + "." + im.group(3));
      }
    }
    Set<String> local = new HashSet<>();
    Matcher d = DECLARED.matcher(src);
    while (d.find()) {
      local.add(d.group(1));
    }
    try (Stream<Path> siblings = Files.list(file.getParent())) {
      siblings
          .map(p -> p.getFileName().toString())
          .filter(n -> n.endsWith(".java"))
          .forEach(n -> local.add(n.substring(0, n.length() - 5)));
    }
    String code = codeOnly(src);
    List<String> found = new ArrayList<>();
    Map<String, String> written = new HashMap<>();
    Matcher m = QUALIFIED.matcher(code);
    while (m.find()) {
      if (m.start() > 0 && code.charAt(m.start() - 1) == '.') {
        continue;
      }
      int lineStart = code.lastIndexOf('\n', m.start()) + 1;
      String line = code.substring(lineStart, m.start()).strip();
      if (line.startsWith("import") || line.startsWith("package")) {
        continue;
      }
      String simple = m.group(2);
      String full = m.group(1) + simple;
      boolean clash =
          (imported.containsKey(simple) && !imported.get(simple).equals(full))
              || local.contains(simple)
              || (written.containsKey(simple) && !written.get(simple).equals(full));
      written.putIfAbsent(simple, full);
      if (!clash) {
        int lineNo = (int) code.substring(0, m.start()).chars().filter(c -> c == '\n').count();
        found.add(Repository.root().relativize(file) + ":" + (lineNo + 1) + " " + full);
      }
    }
    return found;
  }

  /** The source with comments, strings and character literals blanked (newlines kept). */
  static String codeOnly(String src) {
    StringBuilder out = new StringBuilder(src.length());
    int i = 0;
    int n = src.length();
    while (i < n) {
      int end;
      if (src.startsWith("//", i)) {
        end = src.indexOf('\n', i);
        end = end < 0 ? n : end;
      } else if (src.startsWith("/*", i)) {
        end = src.indexOf("*/", i + 2);
        end = end < 0 ? n : end + 2;
      } else if (src.startsWith("\"\"\"", i)) {
        end = src.indexOf("\"\"\"", i + 3);
        end = end < 0 ? n : end + 3;
      } else if (src.charAt(i) == '"' || src.charAt(i) == '\'') {
        char q = src.charAt(i);
        end = i + 1;
        while (end < n && src.charAt(end) != q) {
          end += src.charAt(end) == '\\' ? 2 : 1;
        }
        end = Math.min(n, end + 1);
      } else {
        out.append(src.charAt(i++));
        continue;
      }
      for (int k = i; k < end; k++) {
        out.append(src.charAt(k) == '\n' ? '\n' : ' ');
      }
      i = end;
    }
    return out.toString();
  }
}
