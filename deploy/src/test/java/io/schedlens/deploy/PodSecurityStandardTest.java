package io.schedlens.deploy;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * The restricted standard's checks, each held to a pod that breaks exactly that control (the
 * controls as kubernetes.io/docs/concepts/security/pod-security-standards/ names them), so that a
 * chart that passes them passes because it complies, not because a check is blind.
 */
class PodSecurityStandardTest {

  /** The smallest pod the restricted standard admits. */
  static PodSpecBuilder compliant() {
    return new PodSpecBuilder()
        .withNewSecurityContext()
        .withRunAsNonRoot(true)
        .withNewSeccompProfile()
        .withType("RuntimeDefault")
        .endSeccompProfile()
        .endSecurityContext()
        .addNewContainer()
        .withName("app")
        .withImage("example")
        .withNewSecurityContext()
        .withAllowPrivilegeEscalation(false)
        .withNewCapabilities()
        .withDrop("ALL")
        .endCapabilities()
        .endSecurityContext()
        .endContainer()
        .addNewVolume()
        .withName("data")
        .withNewPersistentVolumeClaim()
        .withClaimName("data")
        .endPersistentVolumeClaim()
        .endVolume();
  }

  @Test
  void shouldAdmitACompliantPod() {
    assertThat(PodSecurityStandard.restrictedViolations(compliant().build())).isEmpty();
  }

  static Stream<Arguments> violations() {
    return Stream.of(
        breaks("Host Namespaces", b -> b.withHostNetwork(true)),
        breaks("Host Namespaces", b -> b.withHostPID(true)),
        breaks(
            "Privileged Containers",
            b ->
                b.editFirstContainer()
                    .editSecurityContext()
                    .withPrivileged(true)
                    .endSecurityContext()
                    .endContainer()),
        breaks(
            "Capabilities",
            b ->
                b.editFirstContainer()
                    .editSecurityContext()
                    .editCapabilities()
                    .withAdd("NET_ADMIN")
                    .endCapabilities()
                    .endSecurityContext()
                    .endContainer()),
        breaks(
            "Capabilities",
            b ->
                b.editFirstContainer()
                    .editSecurityContext()
                    .editCapabilities()
                    .withDrop("NET_RAW")
                    .endCapabilities()
                    .endSecurityContext()
                    .endContainer()),
        breaks(
            "Volume Types",
            b ->
                b.addNewVolume()
                    .withName("host")
                    .withNewHostPath()
                    .withPath("/var")
                    .endHostPath()
                    .endVolume()),
        breaks(
            "Host Ports",
            b ->
                b.editFirstContainer()
                    .addNewPort()
                    .withContainerPort(80)
                    .withHostPort(80)
                    .endPort()
                    .endContainer()),
        breaks(
            "Privilege Escalation",
            b ->
                b.editFirstContainer()
                    .editSecurityContext()
                    .withAllowPrivilegeEscalation((Boolean) null)
                    .endSecurityContext()
                    .endContainer()),
        breaks(
            "Running as Non-root",
            b -> b.editSecurityContext().withRunAsNonRoot((Boolean) null).endSecurityContext()),
        breaks(
            "Running as Non-root",
            b ->
                b.editFirstContainer()
                    .editSecurityContext()
                    .withRunAsNonRoot(false)
                    .endSecurityContext()
                    .endContainer()),
        breaks(
            "Running as Non-root user",
            b -> b.editSecurityContext().withRunAsUser(0L).endSecurityContext()),
        breaks(
            "Seccomp", b -> b.editSecurityContext().withSeccompProfile(null).endSecurityContext()),
        breaks(
            "Seccomp",
            b ->
                b.editFirstContainer()
                    .editSecurityContext()
                    .withNewSeccompProfile()
                    .withType("Unconfined")
                    .endSeccompProfile()
                    .endSecurityContext()
                    .endContainer()),
        breaks(
            "Sysctls",
            b ->
                b.editSecurityContext()
                    .addNewSysctl()
                    .withName("kernel.msgmax")
                    .withValue("1")
                    .endSysctl()
                    .endSecurityContext()),
        breaks(
            "SELinux",
            b ->
                b.editSecurityContext()
                    .withNewSeLinuxOptions()
                    .withType("spc_t")
                    .endSeLinuxOptions()
                    .endSecurityContext()),
        breaks(
            "/proc Mount Type",
            b ->
                b.editFirstContainer()
                    .editSecurityContext()
                    .withProcMount("Unmasked")
                    .endSecurityContext()
                    .endContainer()),
        breaks(
            "Privilege Escalation",
            b -> b.addNewInitContainer().withName("init").withImage("example").endInitContainer()));
  }

  static Arguments breaks(String control, UnaryOperator<PodSpecBuilder> change) {
    return Arguments.of(control, change.apply(compliant()).build());
  }

  @ParameterizedTest(name = "{0}")
  @MethodSource("violations")
  void shouldRefuseAPodThatBreaksOneControl(String control, PodSpec pod) {
    assertThat(PodSecurityStandard.restrictedViolations(pod))
        .isNotEmpty()
        .anySatisfy(v -> assertThat(v).startsWith(control));
  }
}
