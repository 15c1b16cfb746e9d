package io.schedlens.bench;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.OffsetSpec;
import org.apache.kafka.clients.consumer.OffsetAndMetadata;
import org.apache.kafka.common.TopicPartition;

/** How far an application has consumed topics, and how much has been written to topics. */
final class GroupProgress {

  private final Admin admin;
  private final String group;
  private final int partitions;

  GroupProgress(Admin admin, String group, int partitions) {
    this.admin = admin;
    this.group = group;
    this.partitions = partitions;
  }

  /** Records the group has committed past, summed over the topics' partitions. */
  long consumed(List<String> topics) throws Exception {
    Map<TopicPartition, OffsetAndMetadata> committed =
        admin.listConsumerGroupOffsets(group).partitionsToOffsetAndMetadata().get();
    long n = 0;
    for (var e : committed.entrySet()) {
      if (topics.contains(e.getKey().topic()) && e.getValue() != null) {
        n += e.getValue().offset();
      }
    }
    return n;
  }

  /** End offsets, summed over the topics' partitions (transaction markers included). */
  long written(List<String> topics) throws Exception {
    Map<TopicPartition, OffsetSpec> ask = new HashMap<>();
    for (String t : topics) {
      for (int p = 0; p < partitions; p++) {
        ask.put(new TopicPartition(t, p), OffsetSpec.latest());
      }
    }
    long n = 0;
    for (var e : admin.listOffsets(ask).all().get().values()) {
      n += e.offset();
    }
    return n;
  }
}
