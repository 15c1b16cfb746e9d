package io.schedlens.projections.recorded;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.ChangeType;
import io.schedlens.projections.recorded.RecordedObjects.CoreEventItem;
import io.schedlens.projections.recorded.RecordedObjects.EventsV1Item;
import io.schedlens.projections.recorded.RecordedObjects.Item;
import io.schedlens.projections.recorded.RecordedObjects.PodItem;
import io.schedlens.testsupport.Fixtures;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class RecordedObjectsTest {

  static Stream<Path> realFiles() {
    List<Path> all = new ArrayList<>();
    all.addAll(Fixtures.list("pods", ""));
    all.addAll(Fixtures.list("events", ""));
    return all.stream();
  }

  @ParameterizedTest
  @MethodSource("realFiles")
  void shouldReadEveryRealRecordingWithoutFailingAndAccountForWhatItCannotUse(Path file)
      throws Exception {
    Unusable unusable = new Unusable();
    List<Item> items = RecordedObjects.read(Files.readString(file), unusable);
    assertThat(items.size() + unusable.total()).as(file.getFileName().toString()).isPositive();
    // (one "pod" fixture is a bare DisruptionTarget condition, not a Pod: counted as unusable)
    if (file.getParent().getFileName().toString().equals("pods")
        && Files.readString(file).contains("\"kind\": \"Pod")) {
      assertThat(items).as(file.getFileName().toString()).anyMatch(i -> i instanceof PodItem);
    }
  }

  @Test
  void shouldReadAPodListAsARelistAndItsEventsList() {
    Unusable unusable = new Unusable();
    List<Item> pods =
        RecordedObjects.read(
            Fixtures.text("pods/troubleshoot-message-pending-pod-resources.json"), unusable);
    assertThat(pods).allMatch(i -> i instanceof PodItem && i.change() == ChangeType.RELIST);
    assertThat(((PodItem) pods.get(0)).pod().getMetadata().getUid()).isNotBlank();
    List<Item> events =
        RecordedObjects.read(
            Fixtures.text("events/troubleshoot-message-image-pull-fail.json"), unusable);
    assertThat(events).isNotEmpty().allMatch(i -> i instanceof CoreEventItem);
    assertThat(unusable.isEmpty()).isTrue();
  }

  @Test
  void shouldReadTheKspanYamlRecordingWithItsDeploymentAndReplicaSetAsOwners() {
    Unusable unusable = new Unusable();
    List<Item> items =
        RecordedObjects.read(
            Fixtures.text("events/kspan-kind-deployment-2-pods-watch-recording.yaml"), unusable);
    assertThat(items).anyMatch(i -> i instanceof CoreEventItem);
    assertThat(items)
        .filteredOn(i -> i instanceof RecordedObjects.OwnerItem)
        .extracting(i -> ((RecordedObjects.OwnerItem) i).owner().kind())
        .contains("Deployment", "ReplicaSet");
    assertThat(unusable.counts()).doesNotContainKey(RecordedObjects.OTHER_KIND);
  }

  @Test
  void shouldReadWatchEnvelopesOfBothEventApisOnePerLineOrPrettyPrinted() {
    String stream =
        """
        {"type":"ADDED","object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ai-lab","uid":"u1","creationTimestamp":"2026-01-01T00:00:00Z"}}}
        {"type":"BOOKMARK","object":{"apiVersion":"v1","kind":"Pod","metadata":{"resourceVersion":"12"}}}
        {
          "type": "MODIFIED",
          "object": {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ai-lab","uid":"u1"}}
        }
        {"type":"DELETED","object":{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":"ai-lab","uid":"u1"}}}
        {"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"e","namespace":"ai-lab","uid":"e1"},"reason":"FailedScheduling","note":"0/1 nodes are available: 1 Insufficient nvidia.com/gpu.","regarding":{"kind":"Pod","name":"p","namespace":"ai-lab","uid":"u1"},"eventTime":"2026-01-01T00:00:01.000000Z"}
        {"type":"ERROR","object":{"kind":"Status","message":"too old resource version"}}
        "a string"
        {"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"}}
        """;
    Unusable unusable = new Unusable();
    List<Item> items = RecordedObjects.read(stream, unusable);
    assertThat(items)
        .extracting(Item::change)
        .containsExactly(
            ChangeType.ADDED, ChangeType.MODIFIED, ChangeType.DELETED, ChangeType.ADDED);
    assertThat(items.get(3)).isInstanceOf(EventsV1Item.class);
    assertThat(((EventsV1Item) items.get(3)).event().getNote())
        .contains("Insufficient nvidia.com/gpu");
    assertThat(unusable.counts())
        .containsEntry(RecordedObjects.WATCH_ERROR, 1)
        .containsEntry(RecordedObjects.NOT_AN_OBJECT, 1)
        .containsEntry(RecordedObjects.OTHER_KIND, 1);
  }

  @Test
  void shouldKeepWhatCameBeforeASyntaxErrorAndSayWhere() {
    String stream =
        """
        {"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","uid":"u1"}}
        {"apiVersion":"v1","kind":"Pod","metadata":{"name":"q",
        """;
    Unusable unusable = new Unusable();
    List<Item> items = RecordedObjects.read(stream, unusable);
    assertThat(items).hasSize(1);
    assertThat(unusable.counts()).containsEntry(RecordedObjects.UNPARSEABLE, 1);
    assertThat(unusable.examples().get(RecordedObjects.UNPARSEABLE)).contains("line");
  }
}
