package io.schedlens.connect;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.connect.connector.Task;
import org.apache.kafka.connect.json.JsonConverter;
import org.apache.kafka.connect.sink.SinkConnector;
import org.apache.kafka.connect.sink.SinkRecord;
import org.apache.kafka.connect.sink.SinkTask;

/**
 * A file sink for the tests (Kafka's connect-file is not served here): each record's value as one
 * line of JSON (Connect's JsonConverter, without schemas), appended to {@code file}.
 */
public class JsonLinesSinkConnector extends SinkConnector {

  private Map<String, String> props;

  @Override
  public void start(Map<String, String> props) {
    this.props = props;
  }

  @Override
  public Class<? extends Task> taskClass() {
    return JsonLinesSinkTask.class;
  }

  @Override
  public List<Map<String, String>> taskConfigs(int maxTasks) {
    return List.of(props);
  }

  @Override
  public void stop() {}

  @Override
  public ConfigDef config() {
    return new ConfigDef().define("file", ConfigDef.Type.STRING, ConfigDef.Importance.HIGH, "");
  }

  @Override
  public String version() {
    return "test";
  }

  /** The task: one line per record. */
  public static class JsonLinesSinkTask extends SinkTask {
    private Path file;
    private final JsonConverter json = new JsonConverter();

    @Override
    public void start(Map<String, String> props) {
      file = Path.of(props.get("file"));
      json.configure(Map.of("schemas.enable", "false"), false);
    }

    @Override
    public void put(Collection<SinkRecord> records) {
      StringBuilder b = new StringBuilder();
      for (SinkRecord r : records) {
        b.append(
                new String(
                    json.fromConnectData(r.topic(), r.valueSchema(), r.value()),
                    StandardCharsets.UTF_8))
            .append('\n');
      }
      try {
        Files.writeString(
            file,
            b,
            StandardOpenOption.CREATE,
            StandardOpenOption.APPEND,
            StandardOpenOption.WRITE);
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }

    @Override
    public void stop() {}

    @Override
    public String version() {
      return "test";
    }
  }
}
