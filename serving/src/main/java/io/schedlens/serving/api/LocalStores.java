package io.schedlens.serving.api;

import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.schemas.PublishedStores;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.Predicate;
import org.apache.kafka.common.serialization.StringSerializer;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.KeyQueryMetadata;
import org.apache.kafka.streams.StoreQueryParameters;
import org.apache.kafka.streams.StreamsMetadata;
import org.apache.kafka.streams.errors.InvalidStateStorePartitionException;
import org.apache.kafka.streams.state.KeyValueIterator;
import org.apache.kafka.streams.state.QueryableStoreTypes;
import org.apache.kafka.streams.state.ReadOnlyKeyValueStore;

/**
 * This instance's published stores, by Kafka Streams' interactive queries: what it holds, its part
 * of a list, and which instance holds a key.
 */
public final class LocalStores {

  private final KafkaStreams streams;

  /** This instance's {@code host:port}, as its {@code application.server} says. */
  private final String self;

  /** Partitions of the stores (the joined topics'): a list must read each exactly once. */
  private final int partitions;

  public LocalStores(KafkaStreams streams, String self, int partitions) {
    this.streams = streams;
    this.self = self;
    this.partitions = partitions;
  }

  int partitions() {
    return partitions;
  }

  /** The pod timelines held by this instance, by UID. */
  public ReadOnlyKeyValueStore<String, PodTimeline> timelines() {
    return streams.store(
        StoreQueryParameters.fromNameAndType(
            PublishedStores.TIMELINES, QueryableStoreTypes.<String, PodTimeline>keyValueStore()));
  }

  /** The workload timelines held by this instance, keyed namespace/kind/name. */
  public ReadOnlyKeyValueStore<String, WorkloadTimeline> workloads() {
    return streams.store(
        StoreQueryParameters.fromNameAndType(
            PublishedStores.WORKLOADS,
            QueryableStoreTypes.<String, WorkloadTimeline>keyValueStore()));
  }

  /**
   * This instance's part of a list: the store's partitions it holds as their active owner, read one
   * record at a time, keeping the first {@code limit} matches after the cursor.
   */
  <T> ListPaging.Part<T> part(
      String store,
      Predicate<T> filter,
      ListPaging.Position after,
      int limit,
      Function<T, ListPaging.Position> position) {
    ListPaging.FirstAfter<T> first = new ListPaging.FirstAfter<>(after, limit, position);
    Set<Integer> served = new TreeSet<>();
    for (int p = 0; p < partitions; p++) {
      try {
        ReadOnlyKeyValueStore<String, T> s =
            streams.store(
                StoreQueryParameters.fromNameAndType(
                        store, QueryableStoreTypes.<String, T>keyValueStore())
                    .withPartition(p));
        try (KeyValueIterator<String, T> it = s.all()) {
          while (it.hasNext()) {
            T value = it.next().value;
            if (filter.test(value)) {
              first.offer(value);
            }
          }
        }
        served.add(p);
      } catch (InvalidStateStorePartitionException notHere) {
        // another instance's partition
      }
    }
    return first.part(served);
  }

  /** The other instances of the app, as {@code host:port}. */
  List<String> otherInstances() {
    List<String> hosts = new ArrayList<>();
    for (StreamsMetadata m : streams.metadataForAllStreamsClients()) {
      String host = m.hostInfo().host() + ":" + m.hostInfo().port();
      if (!host.equals(self)) {
        hosts.add(host);
      }
    }
    return hosts;
  }

  /**
   * The instance holding the key in the store, when it is another one; null when this one.
   *
   * @throws ApiUnavailable when no instance holds it now (a rebalance is under way)
   */
  String otherOwner(String store, String key) throws ApiUnavailable {
    KeyQueryMetadata md = streams.queryMetadataForKey(store, key, new StringSerializer());
    if (md == null || md == KeyQueryMetadata.NOT_AVAILABLE || md.activeHost() == null) {
      throw new ApiUnavailable("no instance holds " + key + " now (a rebalance is under way)");
    }
    String owner = md.activeHost().host() + ":" + md.activeHost().port();
    return owner.equals(self) ? null : owner;
  }
}
