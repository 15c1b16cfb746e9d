package io.schedlens.deploy;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** What a newcomer reads in the repository points at things that are in the repository. */
class DocsTest {

  /**
   * What the repository's copy of the contract says otherwise, for a reader of the repository: the
   * shared contract's words on the left, the copy's on the right.
   */
  static final Map<String, String> REWRITES =
      Map.of(
          "code to be right and say so in your closing note.",
          "code to be right and say so in the change that does it.");

  @Test
  void shouldKeepTheDesignContractInTheRepositoryInStepWithTheSharedOne() throws Exception {
    String copy = Files.readString(Repository.path("docs/design.md"));
    Path shared = Repository.root().resolveSibling("shared").resolve("DESIGN.md");
    assertThat(copy).contains("# schedlens — design contract");
    assumeTrue(Files.exists(shared), "the project's shared/ is not beside the repository");
    String contract = Files.readString(shared);
    for (var r : REWRITES.entrySet()) {
      contract = contract.replace(r.getKey(), r.getValue());
    }
    assertThat(copy)
        .as(
            "docs/design.md is behind ../shared/DESIGN.md: copy it over (keep the lines before the"
                + " title, and the rewrites DocsTest names)")
        .endsWith(contract);
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

  /** Every relative link of every page under docs/ leads to a file that is there. */
  @Test
  void shouldLinkFromEveryPageOnlyFilesThatAreThere() throws Exception {
    List<Path> pages;
    try (var walk = Files.walk(Repository.path("docs"))) {
      pages = walk.filter(p -> p.toString().endsWith(".md")).toList();
    }
    assertThat(pages).hasSizeGreaterThan(20);
    Pattern link = Pattern.compile("\\]\\(([^)#\\s]+)(#[^)]*)?\\)");
    for (Path page : pages) {
      Matcher m = link.matcher(Files.readString(page));
      while (m.find()) {
        String target = m.group(1);
        if (target.matches("^[a-z]+:.*")) {
          continue;
        }
        assertThat(page.getParent().resolve(target).normalize())
            .as("%s links %s", Repository.root().relativize(page), target)
            .exists();
      }
    }
  }

  @Test
  void shouldIgnoreTheCommandsDefaultOutputFolders() throws Exception {
    List<String> ignored = Files.readAllLines(Repository.path(".gitignore"));
    assertThat(ignored).contains("/demo-out/", "/replay-out/", "/report-out/");
  }
}
