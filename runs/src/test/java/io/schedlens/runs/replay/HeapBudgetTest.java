package io.schedlens.runs.replay;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.apache.kafka.common.config.ConfigException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class HeapBudgetTest {

  @TempDir Path dir;

  @Test
  void shouldRefuseARecordingTheHeapCannotOrderSayingTheHeapItNeeds() throws Exception {
    Path requests = dir.resolve("requests.jsonl");
    Files.write(requests, new byte[3 << 20]); // 3 MB
    List<String> files = List.of(requests.toString());

    assertThatCode(() -> HeapBudget.check(files, 1L << 30)).doesNotThrowAnyException();
    assertThatThrownBy(() -> HeapBudget.check(files, 520L << 20))
        .isInstanceOf(ConfigException.class)
        .hasMessageContaining("hold 3 MB")
        .hasMessageContaining("needs about 527 MB of heap and this JVM has 520 MB")
        .hasMessageContaining("JAVA_OPTS=-Xmx783m");
  }
}
