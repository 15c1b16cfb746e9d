package io.schedlens.timeline;

import static org.assertj.core.api.Assertions.assertThat;

import io.schedlens.testsupport.Fixtures;
import org.junit.jupiter.api.Test;

class PreemptionNotesTest {

  @Test
  void shouldReadTheKubeSchedulerNoteWithTheUid() {
    assertThat(
            PreemptionNotes.fromNote(
                "Preempted by pod 5d9c3c8e-7a46-4f0c-a0d4-1b2c3d4e5f60 on node gpu-node-1"))
        .hasValue(
            new PreemptionNotes.Named(
                "5d9c3c8e-7a46-4f0c-a0d4-1b2c3d4e5f60", null, null, "gpu-node-1"));
  }

  @Test
  void shouldReadTheOldNamespaceSlashNameNote() {
    String line =
        Fixtures.text("events/issue-excerpts-preemption-event-lines.txt")
            .lines()
            .filter(l -> l.contains("Preempted by"))
            .findFirst()
            .orElseThrow();
    String note = line.substring(line.indexOf("Preempted by"));

    assertThat(PreemptionNotes.fromNote(note))
        .hasValue(
            new PreemptionNotes.Named(
                null, "quota3", "nginx-5b85c78645-zfvzc", "CapacityScheduling"));
  }

  @Test
  void shouldReadTheKubernetes126ConditionMessage() {
    String json = Fixtures.text("pods/issue-k8s-pr114623-disruptiontarget-condition-k8s-1.26.json");
    String message = json.replaceAll("(?s).*\"message\": \"([^\"]*)\".*", "$1");

    assertThat(PreemptionNotes.fromConditionMessage(message))
        .hasValue(new PreemptionNotes.Named(null, "default", "pause2", null));
    assertThat(
            PreemptionNotes.fromConditionMessage(
                "default-scheduler: preempting to accommodate a higher priority pod"))
        .isEmpty();
  }
}
