package io.schedlens.check;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * The field paths findings name: dot-separated names, each optionally followed by a selector in
 * brackets, which is a map key ({@code annotations[schedlens.io/checkpoint-interval]}), the {@code
 * name} of a list element ({@code containers[server]}) or a list index ({@code tolerations[0]}).
 */
final class FieldPath {

  record Step(String name, String selector) {}

  private FieldPath() {}

  static List<Step> parse(String path) {
    List<Step> steps = new ArrayList<>();
    int i = 0;
    while (i < path.length()) {
      int dot = path.indexOf('.', i);
      int bracket = path.indexOf('[', i);
      if (bracket >= 0 && (dot < 0 || bracket < dot)) {
        int close = path.indexOf(']', bracket);
        if (close < 0) {
          steps.add(new Step(path.substring(i), null));
          break;
        }
        steps.add(new Step(path.substring(i, bracket), path.substring(bracket + 1, close)));
        i = close + 1;
        if (i < path.length() && path.charAt(i) == '.') {
          i++;
        }
      } else {
        int end = dot < 0 ? path.length() : dot;
        steps.add(new Step(path.substring(i, end), null));
        i = end + 1;
      }
    }
    return steps;
  }

  /** The index of the list element whose name is the selector, or the selector as an index. */
  static int indexIn(JsonNode list, String selector) {
    for (int k = 0; k < list.size(); k++) {
      if (selector.equals(list.get(k).path("name").asText(null))) {
        return k;
      }
    }
    try {
      int k = Integer.parseInt(selector);
      return k >= 0 && k < list.size() ? k : -1;
    } catch (NumberFormatException e) {
      return -1;
    }
  }

  /** JSON pointer escaping (RFC 6901). */
  static String escape(String name) {
    return name.replace("~", "~0").replace("/", "~1");
  }
}
