package io.schedlens.report;

import io.schedlens.schemas.AvroJson;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Collectors;
import org.apache.avro.specific.SpecificRecord;

/**
 * Files of one record per line in the JSON form of docs/design.md (timelines.jsonl,
 * workloads.jsonl).
 */
final class JsonLines {

  private JsonLines() {}

  static void write(Path file, List<? extends SpecificRecord> records) throws IOException {
    Files.writeString(
        file,
        records.stream()
            .map(AvroJson::toLine)
            .collect(Collectors.joining("\n", "", records.isEmpty() ? "" : "\n")));
  }

  /**
   * Reads every line of {@code file} as a {@code type}.
   *
   * @param what what a line should be, for the error
   * @throws IllegalArgumentException naming the line that is not one
   */
  static <T extends SpecificRecord> List<T> read(Path file, Class<T> type, String what)
      throws IOException {
    List<T> out = new ArrayList<>();
    int n = 0;
    for (String line : Files.readAllLines(file)) {
      n++;
      if (line.isBlank()) {
        continue;
      }
      try {
        out.add(AvroJson.fromLine(line, type));
      } catch (IllegalArgumentException e) {
        throw new IllegalArgumentException(
            file + " line " + n + " is not " + what + ": " + e.getMessage(), e);
      }
    }
    return out;
  }
}
