package io.schedlens.deploy;

import java.io.IOException;
import java.io.StringReader;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.yaml.snakeyaml.DumperOptions;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.comments.CommentLine;
import org.yaml.snakeyaml.comments.CommentType;
import org.yaml.snakeyaml.nodes.MappingNode;
import org.yaml.snakeyaml.nodes.Node;
import org.yaml.snakeyaml.nodes.NodeTuple;
import org.yaml.snakeyaml.nodes.ScalarNode;
import org.yaml.snakeyaml.nodes.SequenceNode;

/**
 * The chart README's table of values, written from values.yaml: every key with its default and the
 * comment above it (SnakeYAML keeps the comments). {@code ChartReadmeTest} fails when the README
 * differs; write it anew with {@code mvn -q -pl deploy exec:java
 * -Dexec.mainClass=io.schedlens.deploy.ChartReadme -Dexec.classpathScope=test}.
 */
public final class ChartReadme {

  static final String BEGIN = "<!-- values: generated from values.yaml by ChartReadme -->";
  static final String END = "<!-- end of values -->";

  /** A default longer than this is cut, with a pointer to values.yaml. */
  private static final int LONGEST_DEFAULT = 60;

  private ChartReadme() {}

  static Path readme() {
    return Chart.dir().resolve("README.md");
  }

  /** The generated part, markers included. */
  static String values() throws IOException {
    LoaderOptions options = new LoaderOptions();
    options.setProcessComments(true);
    Node root =
        new Yaml(options)
            .compose(new StringReader(Files.readString(Chart.dir().resolve("values.yaml"))));
    List<String> rows = new ArrayList<>();
    walk((MappingNode) root, "", rows);
    StringBuilder out = new StringBuilder();
    out.append(BEGIN).append("\n\n| key | default | what it is |\n|---|---|---|\n");
    rows.forEach(r -> out.append(r).append('\n'));
    out.append('\n').append(END).append('\n');
    return out.toString();
  }

  private static void walk(MappingNode map, String prefix, List<String> rows) {
    for (NodeTuple t : map.getValue()) {
      String key = prefix + ((ScalarNode) t.getKeyNode()).getValue();
      Node value = t.getValueNode();
      String comment = comment(t.getKeyNode().getBlockComments());
      boolean nested = value instanceof MappingNode m && !m.getValue().isEmpty() && !open(key);
      if (nested) {
        if (!comment.isEmpty()) {
          rows.add(row(key, "", comment));
        }
        walk((MappingNode) value, key + ".", rows);
      } else {
        rows.add(row(key, shown(value), comment));
      }
    }
  }

  /**
   * Keys whose value is Kubernetes' (a default affinity, resources): one row, not one per field.
   */
  private static boolean open(String key) {
    return key.endsWith("resources")
        || key.endsWith("affinity")
        || key.endsWith("Labels")
        || key.endsWith("probes")
        || key.endsWith("annotations");
  }

  /** The comment lines right above a key (after the last blank line), as one sentence. */
  private static String comment(List<CommentLine> lines) {
    if (lines == null) {
      return "";
    }
    List<String> kept = new ArrayList<>();
    for (CommentLine l : lines) {
      if (l.getCommentType() == CommentType.BLANK_LINE) {
        kept.clear();
      } else {
        kept.add(l.getValue().strip());
      }
    }
    return String.join(" ", kept).replace("|", "\\|");
  }

  private static String shown(Node value) {
    String text;
    if (value instanceof ScalarNode s) {
      text = s.getValue().isEmpty() ? "\"\"" : s.getValue();
    } else if (value instanceof SequenceNode || value instanceof MappingNode) {
      DumperOptions flow = new DumperOptions();
      flow.setDefaultFlowStyle(DumperOptions.FlowStyle.FLOW);
      flow.setWidth(Integer.MAX_VALUE);
      StringWriter block = new StringWriter();
      new Yaml().serialize(value, block);
      text = new Yaml(flow).dump(new Yaml().load(block.toString())).strip();
    } else {
      text = "";
    }
    if (text.length() > LONGEST_DEFAULT) {
      text = text.substring(0, LONGEST_DEFAULT) + "… (values.yaml)";
    }
    return "`" + text.replace("|", "\\|").replace("`", "'") + "`";
  }

  private static String row(String key, String shown, String comment) {
    return "| `" + key + "` | " + shown + " | " + comment + " |";
  }

  /** Writes the README's generated part anew. */
  public static void main(String[] args) throws IOException {
    String page = Files.readString(readme());
    int from = page.indexOf(BEGIN);
    int to = page.indexOf(END);
    if (from < 0 || to < 0) {
      throw new IllegalStateException(readme() + " has lost its markers " + BEGIN + " / " + END);
    }
    Files.writeString(
        readme(), page.substring(0, from) + values() + page.substring(to + END.length() + 1));
    System.out.println("wrote " + readme());
  }
}
