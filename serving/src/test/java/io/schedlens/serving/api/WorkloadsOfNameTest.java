package io.schedlens.serving.api;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.schemas.WorkloadKey;
import java.util.Iterator;
import java.util.Map;
import java.util.NavigableMap;
import java.util.TreeMap;
import org.apache.kafka.streams.KeyValue;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;
import org.junit.jupiter.api.Test;

class WorkloadsOfNameTest {

  static WorkloadTimeline job(String name, String uid, long updatedAt) {
    return WorkloadTimeline.newBuilder()
        .setNamespace("ai-lab")
        .setKind("Job")
        .setName(name)
        .setControllerUid(uid)
        .setDesiredSource("observed")
        .setDesired(0)
        .setReady(0)
        .setUpdatedAt(updatedAt)
        .build();
  }

  /** The published store as RocksDB orders it: by key. */
  static ReadOnlyKeyValueStore<String, WorkloadTimeline> store(WorkloadTimeline... timelines) {
    NavigableMap<String, WorkloadTimeline> m = new TreeMap<>();
    for (WorkloadTimeline t : timelines) {
      m.put(WorkloadKey.of(t).identity(), t);
    }
    // written before the key carried the identity: the name alone, the first repeat's
    m.put("ai-lab/Job/embed", job("embed", "u-0", 500));
    return new ReadOnlyKeyValueStore<>() {
      @Override
      public WorkloadTimeline get(String key) {
        return m.get(key);
      }

      @Override
      public KeyValueIterator<String, WorkloadTimeline> range(String from, String to) {
        return iterator(m.subMap(from, true, to, true));
      }

      @Override
      public KeyValueIterator<String, WorkloadTimeline> all() {
        return iterator(m);
      }

      @Override
      public long approximateNumEntries() {
        return m.size();
      }
    };
  }

  static KeyValueIterator<String, WorkloadTimeline> iterator(Map<String, WorkloadTimeline> m) {
    Iterator<Map.Entry<String, WorkloadTimeline>> it = m.entrySet().iterator();
    return new KeyValueIterator<>() {
      @Override
      public boolean hasNext() {
        return it.hasNext();
      }

      @Override
      public KeyValue<String, WorkloadTimeline> next() {
        var e = it.next();
        return KeyValue.pair(e.getKey(), e.getValue());
      }

      @Override
      public void close() {}

      @Override
      public String peekNextKey() {
        throw new UnsupportedOperationException();
      }
    };
  }

  @Test
  void shouldFindEveryWorkloadANameHasHadNewestFirstAndNotALongerName() {
    var s =
        store(
            job("embed", "u-1", 1_000),
            job("embed", "u-3", 3_000),
            job("embed", "u-2", 2_000),
            job("embed-2", "u-9", 9_000),
            job("embed.x", "u-8", 8_000));

    assertThat(WorkloadsOfName.all(s, "ai-lab/Job/embed"))
        .extracting(WorkloadTimeline::getControllerUid)
        .containsExactly("u-3", "u-2", "u-1", "u-0");
    assertThat(WorkloadsOfName.find(s, "ai-lab/Job/embed"))
        .hasValueSatisfying(w -> assertThat(w.getControllerUid()).isEqualTo("u-3"));
    assertThat(WorkloadsOfName.find(s, "ai-lab/Job/embed/u-1"))
        .hasValueSatisfying(w -> assertThat(w.getUpdatedAt()).isEqualTo(1_000));
    assertThat(WorkloadsOfName.find(s, "ai-lab/Job/embed/u-0"))
        .as("an identity written under the name alone")
        .isPresent();
    assertThat(WorkloadsOfName.find(s, "ai-lab/Job/embed/u-7")).isEmpty();
  }
}
