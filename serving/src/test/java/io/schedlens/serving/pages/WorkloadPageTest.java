package io.schedlens.serving.pages;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.serving.api.Listing;
import java.util.List;
import org.junit.jupiter.api.Test;

class WorkloadPageTest {

  static WorkloadTimeline job(String uid, long updatedAt) {
    return WorkloadTimeline.newBuilder()
        .setNamespace("ai-lab")
        .setKind("Job")
        .setName("embed")
        .setControllerUid(uid)
        .setDesiredSource("observed")
        .setDesired(0)
        .setReady(0)
        .setUpdatedAt(updatedAt)
        .build();
  }

  @Test
  void shouldListEveryWorkloadItsNameHasHadNewestFirstEachALink() {
    WorkloadTimeline second = job("u-2", 2_000_000);
    String page =
        WorkloadPage.render(
            second,
            new Listing<>(List.of(), 0, null),
            List.of(job("u-3", 3_000_000), second, job("u-1", 1_000_000)),
            3_000_000);

    assertThat(page).contains("id=\"named\"");
    String list = page.substring(page.indexOf("id=\"named\""));
    assertThat(list.indexOf("/workloads/ai-lab/Job/embed/u-3"))
        .isPositive()
        .isLessThan(list.indexOf("u-2"));
    assertThat(list.indexOf("u-2")).isLessThan(list.indexOf("/workloads/ai-lab/Job/embed/u-1"));
    assertThat(list)
        .doesNotContain("href=\"/workloads/ai-lab/Job/embed/u-2\"")
        .contains("this one");
  }

  @Test
  void shouldListNothingForANameWithOneWorkload() {
    WorkloadTimeline only = job("u-1", 1_000_000);
    assertThat(WorkloadPage.render(only, new Listing<>(List.of(), 0, null), 1_000_000))
        .doesNotContain("id=\"named\"");
  }
}
