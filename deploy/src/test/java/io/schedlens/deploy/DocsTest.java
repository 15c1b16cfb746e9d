package io.schedlens.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** What a newcomer reads in the repository points at things that are in the repository. */
class DocsTest {

  @Test
  void shouldKeepTheDesignContractInTheRepositoryInStepWithTheSharedOne() throws Exception {
    String copy = Files.readString(Repository.path("docs/design.md"));
    Path shared = Repository.root().resolveSibling("shared").resolve("DESIGN.md");
    assertThat(copy).contains("# schedlens — design contract");
    assumeTrue(Files.exists(shared), "the project's shared/ is not beside the repository");
    assertThat(copy)
        .as("docs/design.md is behind ../shared/DESIGN.md: copy it over (keep the first comment)")
        .endsWith(Files.readString(shared));
  }

  @Test
  void shouldLinkOnlyFilesThatAreInTheRepository() throws Exception {
    String readme = Files.readString(Repository.path("README.md"));
    Matcher links = Pattern.compile("\\]\\(([^)#]+)(#[^)]*)?\\)").matcher(readme);
    int local = 0;
    while (links.find()) {
      String target = links.group(1);
      if (target.startsWith("http://") || target.startsWith("https://")) {
        continue;
      }
      local++;
      assertThat(target).as("README links outside the repository").doesNotStartWith("../");
      assertThat(Repository.path(target)).as("README links " + target).exists();
    }
    assertThat(local).isPositive();
    assertThat(readme).contains("docs/design.md").doesNotContain("../shared/");
  }

  @Test
  void shouldIgnoreTheCommandsDefaultOutputFolders() throws Exception {
    List<String> ignored = Files.readAllLines(Repository.path(".gitignore"));
    assertThat(ignored).contains("/demo-out/", "/replay-out/", "/report-out/");
  }
}
