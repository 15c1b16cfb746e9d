package io.schedlens.collector.intake;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.schedlens.projections.requests.RequestLogParser;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The body of {@code POST /v1/request-logs}: JSON lines, or one JSON array of line objects, each
 * given to {@link Items} as it is read. Every line and every array element is held to the line
 * limit before it is parsed: an element is passed over as a stream of tokens (no tree), measured,
 * and parsed alone only when it fits, so a 16 MiB element of nested empty objects costs its bytes,
 * not a tree of millions of nodes. Pure.
 */
final class JsonLinesBody {

  private static final JsonFactory JSON = new ObjectMapper().getFactory();

  private JsonLinesBody() {}

  /** Walks {@code body}, giving each line or element to {@code items}. */
  static void walk(Body body, int maxLine, RequestLogParser parser, long now, Items items) {
    int first = 0;
    while (first < body.length() && Character.isWhitespace(body.at(first))) {
      first++;
    }
    if (first < body.length() && body.at(first) == '[') {
      array(body, maxLine, parser, now, items);
    } else {
      lines(body, maxLine, parser, now, items);
    }
  }

  private static void lines(
      Body body, int maxLine, RequestLogParser parser, long now, Items items) {
    int lineNo = 0;
    int pos = 0;
    while (pos < body.length()) {
      int end = body.indexOf((byte) '\n', pos);
      lineNo++;
      int lineEnd = end > pos && body.at(end - 1) == '\r' ? end - 1 : end;
      if (!isBlank(body, pos, lineEnd)) {
        one(body, pos, lineEnd, lineNo, maxLine, parser, now, items);
      }
      pos = end + 1;
    }
  }

  /**
   * An array read as a stream: each element's extent is found by skipping its tokens, then the
   * element alone is parsed. The rest of a body that is not a well-formed array, from the element
   * that broke, is one rejected item.
   */
  private static void array(
      Body body, int maxLine, RequestLogParser parser, long now, Items items) {
    // The element being read, or the next one between elements.
    int element = 1;
    try (JsonParser in = JSON.createParser(body.stream(0, body.length()))) {
      in.nextToken(); // the array's start
      while (true) {
        JsonToken token = in.nextToken();
        if (token == JsonToken.END_ARRAY) {
          return;
        }
        if (token == null) {
          throw new IOException("the array does not end");
        }
        int from = (int) in.currentTokenLocation().getByteOffset();
        in.skipChildren();
        int to = (int) in.currentLocation().getByteOffset();
        one(body, from, to, element, maxLine, parser, now, items);
        element++;
      }
    } catch (JsonProcessingException e) {
      items.rejected(
          element,
          RequestLogParser.MALFORMED_JSON,
          "not a JSON array from element " + element + ": " + e.getOriginalMessage(),
          body,
          0,
          body.length());
    } catch (IOException e) {
      items.rejected(
          element, RequestLogParser.MALFORMED_JSON, e.getMessage(), body, 0, body.length());
    }
  }

  /** One line or element, {@code body[from, to)}: rejected unparsed when over the limit. */
  private static void one(
      Body body,
      int from,
      int to,
      int item,
      int maxLine,
      RequestLogParser parser,
      long now,
      Items items) {
    int len = to - from;
    if (len > maxLine) {
      items.rejected(
          item,
          RequestLogParser.LINE_TOO_LONG,
          len + " bytes, over the limit of " + maxLine,
          body,
          from,
          to);
      return;
    }
    RequestLogParser.Parsed p =
        parser.parseLine(new String(body.copy(from, to), StandardCharsets.UTF_8), now);
    if (p instanceof RequestLogParser.Accepted a) {
      items.accepted(a.log());
    } else if (p instanceof RequestLogParser.Rejected r) {
      items.rejected(item, r.reason(), r.detail(), body, from, to);
    }
  }

  private static boolean isBlank(Body b, int from, int to) {
    for (int i = from; i < to; i++) {
      if (b.at(i) != ' ' && b.at(i) != '\t') {
        return false;
      }
    }
    return true;
  }
}
