package io.schedlens.deploy;

import io.fabric8.kubernetes.api.model.Capabilities;
import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.ContainerPort;
import io.fabric8.kubernetes.api.model.PodSecurityContext;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.SELinuxOptions;
import io.fabric8.kubernetes.api.model.SeccompProfile;
import io.fabric8.kubernetes.api.model.SecurityContext;
import io.fabric8.kubernetes.api.model.Volume;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.stream.Stream;

/**
 * The {@code restricted} Pod Security Standard (which includes {@code baseline}), as Kubernetes
 * documents it for the versions the chart supports (1.30 and later,
 * kubernetes.io/docs/concepts/security/pod-security-standards/), evaluated on a pod spec the way
 * the Pod Security admission controller does. No Java library implements the standard (the
 * admission controller is Go code inside the API server), so its rules are written out here, each
 * with the standard's name for it, and {@code PodSecurityStandardTest} holds every rule to a pod
 * that breaks it.
 */
final class PodSecurityStandard {

  private PodSecurityStandard() {}

  static final Set<String> BASELINE_CAPABILITIES =
      Set.of(
          "AUDIT_WRITE",
          "CHOWN",
          "DAC_OVERRIDE",
          "FOWNER",
          "FSETID",
          "KILL",
          "MKNOD",
          "NET_BIND_SERVICE",
          "SETFCAP",
          "SETGID",
          "SETPCAP",
          "SETUID",
          "SYS_CHROOT");

  static final Set<String> SAFE_SYSCTLS =
      Set.of(
          "kernel.shm_rmid_forced",
          "net.ipv4.ip_local_port_range",
          "net.ipv4.ip_unprivileged_port_start",
          "net.ipv4.tcp_syncookies",
          "net.ipv4.ping_group_range",
          "net.ipv4.ip_local_reserved_ports",
          "net.ipv4.tcp_keepalive_time",
          "net.ipv4.tcp_fin_timeout",
          "net.ipv4.tcp_keepalive_intvl",
          "net.ipv4.tcp_keepalive_probes");

  static final Set<String> SELINUX_TYPES =
      Set.of("container_t", "container_init_t", "container_kvm_t", "container_engine_t");

  /** The restricted profile allows only these volume sources. */
  static final Map<String, Function<Volume, Object>> RESTRICTED_VOLUMES =
      Map.of(
          "configMap", Volume::getConfigMap,
          "csi", Volume::getCsi,
          "downwardAPI", Volume::getDownwardAPI,
          "emptyDir", Volume::getEmptyDir,
          "ephemeral", Volume::getEphemeral,
          "persistentVolumeClaim", Volume::getPersistentVolumeClaim,
          "projected", Volume::getProjected,
          "secret", Volume::getSecret);

  /** Every way the pod spec breaks the restricted standard; empty when it passes. */
  static List<String> restrictedViolations(PodSpec pod) {
    List<String> v = new ArrayList<>();
    PodSecurityContext psc = pod.getSecurityContext();
    List<Container> containers = allContainers(pod);

    // baseline: host namespaces
    if (Boolean.TRUE.equals(pod.getHostNetwork())) v.add("Host Namespaces: hostNetwork");
    if (Boolean.TRUE.equals(pod.getHostPID())) v.add("Host Namespaces: hostPID");
    if (Boolean.TRUE.equals(pod.getHostIPC())) v.add("Host Namespaces: hostIPC");
    // baseline: HostProcess
    if (psc != null
        && psc.getWindowsOptions() != null
        && Boolean.TRUE.equals(psc.getWindowsOptions().getHostProcess())) {
      v.add("HostProcess: pod");
    }
    if (psc != null) {
      if (psc.getSeLinuxOptions() != null) seLinux(psc.getSeLinuxOptions(), "pod", v);
      if (psc.getSeccompProfile() != null
          && "Unconfined".equals(psc.getSeccompProfile().getType())) {
        v.add("Seccomp: pod Unconfined");
      }
      if (psc.getSysctls() != null) {
        psc.getSysctls().stream()
            .filter(s -> !SAFE_SYSCTLS.contains(s.getName()))
            .forEach(s -> v.add("Sysctls: " + s.getName()));
      }
      if (Long.valueOf(0).equals(psc.getRunAsUser()))
        v.add("Running as Non-root user: pod runAsUser 0");
      if (psc.getAppArmorProfile() != null
          && "Unconfined".equals(psc.getAppArmorProfile().getType())) {
        v.add("AppArmor: pod Unconfined");
      }
    }
    // restricted: volume types (baseline: no hostPath, which this includes)
    if (pod.getVolumes() != null) {
      for (Volume vol : pod.getVolumes()) {
        boolean allowed = RESTRICTED_VOLUMES.values().stream().anyMatch(f -> f.apply(vol) != null);
        if (!allowed) v.add("Volume Types: " + vol.getName());
      }
    }
    boolean podNonRoot = psc != null && Boolean.TRUE.equals(psc.getRunAsNonRoot());
    boolean podSeccomp = psc != null && confined(psc.getSeccompProfile());
    for (Container c : containers) {
      String n = "container " + c.getName();
      SecurityContext sc = c.getSecurityContext();
      if (c.getPorts() != null) {
        for (ContainerPort p : c.getPorts()) {
          if (p.getHostPort() != null && p.getHostPort() != 0) v.add("Host Ports: " + n);
        }
      }
      if (sc == null) {
        v.add("Privilege Escalation: " + n + " does not set allowPrivilegeEscalation false");
        v.add("Capabilities: " + n + " does not drop ALL");
        if (!podNonRoot) v.add("Running as Non-root: " + n);
        if (!podSeccomp) v.add("Seccomp: " + n);
        continue;
      }
      if (Boolean.TRUE.equals(sc.getPrivileged())) v.add("Privileged Containers: " + n);
      if (sc.getWindowsOptions() != null
          && Boolean.TRUE.equals(sc.getWindowsOptions().getHostProcess())) {
        v.add("HostProcess: " + n);
      }
      if (sc.getProcMount() != null && !"Default".equals(sc.getProcMount())) {
        v.add("/proc Mount Type: " + n);
      }
      if (sc.getSeLinuxOptions() != null) seLinux(sc.getSeLinuxOptions(), n, v);
      if (sc.getAppArmorProfile() != null
          && "Unconfined".equals(sc.getAppArmorProfile().getType())) {
        v.add("AppArmor: " + n + " Unconfined");
      }
      if (!Boolean.FALSE.equals(sc.getAllowPrivilegeEscalation())) {
        v.add("Privilege Escalation: " + n + " does not set allowPrivilegeEscalation false");
      }
      if (Boolean.FALSE.equals(sc.getRunAsNonRoot())
          || (!podNonRoot && !Boolean.TRUE.equals(sc.getRunAsNonRoot()))) {
        v.add("Running as Non-root: " + n);
      }
      if (Long.valueOf(0).equals(sc.getRunAsUser())) v.add("Running as Non-root user: " + n);
      SeccompProfile sp = sc.getSeccompProfile();
      if (sp != null ? !confined(sp) : !podSeccomp) v.add("Seccomp: " + n);
      Capabilities caps = sc.getCapabilities();
      if (caps == null || caps.getDrop() == null || !caps.getDrop().contains("ALL")) {
        v.add("Capabilities: " + n + " does not drop ALL");
      }
      if (caps != null && caps.getAdd() != null) {
        for (String add : caps.getAdd()) {
          if (!add.equals("NET_BIND_SERVICE")) v.add("Capabilities: " + n + " adds " + add);
        }
      }
    }
    return v;
  }

  private static boolean confined(SeccompProfile p) {
    return p != null && ("RuntimeDefault".equals(p.getType()) || "Localhost".equals(p.getType()));
  }

  private static void seLinux(SELinuxOptions o, String where, List<String> v) {
    if (o.getType() != null && !o.getType().isEmpty() && !SELINUX_TYPES.contains(o.getType())) {
      v.add("SELinux: " + where + " type " + o.getType());
    }
    if (o.getUser() != null && !o.getUser().isEmpty()) v.add("SELinux: " + where + " user");
    if (o.getRole() != null && !o.getRole().isEmpty()) v.add("SELinux: " + where + " role");
  }

  private static List<Container> allContainers(PodSpec pod) {
    List<Container> all = new ArrayList<>();
    Stream.of(pod.getInitContainers(), pod.getContainers())
        .filter(l -> l != null)
        .forEach(all::addAll);
    if (pod.getEphemeralContainers() != null) {
      pod.getEphemeralContainers()
          .forEach(
              e ->
                  all.add(
                      new ContainerBuilder()
                          .withName(e.getName())
                          .withSecurityContext(e.getSecurityContext())
                          .withPorts(e.getPorts())
                          .build()));
    }
    return all;
  }
}
