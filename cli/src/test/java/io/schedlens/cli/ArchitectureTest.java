package io.schedlens.cli;

import static com.tngtech.archunit.lang.syntax.ArchRuleDefinition.noClasses;
import static org.assertj.core.api.Assertions.assertThat;

import com.tngtech.archunit.core.domain.JavaClass;
import com.tngtech.archunit.core.domain.JavaClasses;
import com.tngtech.archunit.core.importer.ClassFileImporter;
import com.tngtech.archunit.core.importer.ImportOption;
import com.tngtech.archunit.lang.ArchRule;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.streams.processor.api.Processor;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The layers, enforced: the main classes of every module (this module's test classpath holds them
 * all), checked with ArchUnit. The pure packages, tested without Kafka or a cluster, stay pure; the
 * two apps do not reach into each other or into the simulator.
 */
class ArchitectureTest {

  static JavaClasses main;

  @BeforeAll
  static void importMainClasses() {
    main =
        new ClassFileImporter()
            .withImportOption(ImportOption.Predefined.DO_NOT_INCLUDE_TESTS)
            .importPackages("io.schedlens");
  }

  @Test
  void shouldKeepTheTimelineLogicFreeOfKafkaAndKubernetesClients() {
    ArchRule rule =
        noClasses()
            .that()
            .resideInAnyPackage("io.schedlens.timeline..", "io.schedlens.simulator.cluster..")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage("org.apache.kafka..", "io.fabric8.kubernetes.client..")
            .because("timeline and scheduling logic are pure functions, tested without Kafka");
    rule.check(main);
  }

  @Test
  void shouldLayerTheStreamsAppsModules() {
    noClasses()
        .that()
        .resideInAPackage("io.schedlens.timeline..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.schedlens.serving..", "io.schedlens.topology..", "io.schedlens.streams..")
        .because("the timeline logic is the bottom layer: the topology and serving use it")
        .check(main);
    noClasses()
        .that()
        .resideInAPackage("io.schedlens.serving..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.schedlens.topology..", "io.schedlens.streams..")
        .because(
            "the serving side reads the published stores; it does not build or know the topology,"
                + " so the pages over files run without it")
        .check(main);
    noClasses()
        .that()
        .resideInAPackage("io.schedlens.topology..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.schedlens.serving..", "io.schedlens.streams..", "io.schedlens.whatif..")
        .because(
            "the topology is a pure factory at the bottom of the pipeline: the streams app runs it"
                + " with the serving side beside it, the what-if runs it in one process; the store"
                + " names both sides share are in schemas (PublishedStores)")
        .check(main);
  }

  /**
   * The applications, each a part that runs on its own (the collector, the streams app, the
   * what-if), share libraries, never each other: what two of them need (the collector's
   * projections, the topology) is a module of its own below both.
   */
  @Test
  void shouldKeepEveryApplicationOffTheOthers() {
    String[] apps = {"io.schedlens.collector..", "io.schedlens.streams..", "io.schedlens.whatif.."};
    for (String app : apps) {
      List<String> others = new ArrayList<>(List.of(apps));
      others.remove(app);
      noClasses()
          .that()
          .resideInAPackage(app)
          .should()
          .dependOnClassesThat()
          .resideInAnyPackage(others.toArray(String[]::new))
          .check(main);
    }
    noClasses()
        .that()
        .resideInAnyPackage("io.schedlens.projections..", "io.schedlens.topology..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(apps)
        .because("the libraries the applications share are below every one of them")
        .check(main);
    noClasses()
        .that()
        .resideInAPackage("io.schedlens.projections..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.fabric8.kubernetes.client.dsl..",
            "io.fabric8.kubernetes.client.informers..",
            "org.apache.kafka.clients.producer.KafkaProducer",
            "org.apache.kafka.streams..")
        .because("the projections are what the collector makes of what it reads, not how it reads")
        .check(main);
  }

  /**
   * The runs (the demo, a replay) wire the applications together in one process; the commands
   * parse, validate and print over them. Nothing below depends on either.
   */
  @Test
  void shouldKeepTheRunsAboveTheAppsAndTheCommandsAboveTheRuns() {
    noClasses()
        .that()
        .resideOutsideOfPackages("io.schedlens.runs..", "io.schedlens.cli..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.schedlens.runs..", "io.schedlens.cli..")
        .because("the runs and the commands are the top of the house")
        .check(main);
    noClasses()
        .that()
        .resideInAPackage("io.schedlens.runs..")
        .should()
        .dependOnClassesThat()
        .resideInAPackage("io.schedlens.cli..")
        .check(main);
  }

  @Test
  void shouldTypeWhatEveryStageReadsAndWrites() {
    List<String> checked = new ArrayList<>();
    for (JavaClass c : main) {
      if (!c.isAssignableTo(Processor.class) || c.isInterface()) {
        continue;
      }
      for (Type t : c.reflect().getGenericInterfaces()) {
        if (t instanceof ParameterizedType p && p.getRawType() == Processor.class) {
          assertThat(p.getActualTypeArguments())
              .as("%s: a stage's keys and values are typed, not Object", c.getName())
              .doesNotContain(Object.class);
          checked.add(c.getSimpleName());
        }
      }
    }
    assertThat(checked).contains("PodStage", "WorkloadStage", "NodeStage");
    List<String> held = new ArrayList<>();
    for (JavaClass c : main) {
      for (var field : c.getFields()) {
        if (field.getRawType().isEquivalentTo(Processor.class)
            && field.reflect().getGenericType() instanceof ParameterizedType p) {
          assertThat(p.getActualTypeArguments())
              .as("%s: a processor held is typed, not Object", field.getFullName())
              .doesNotContain(Object.class);
          held.add(field.getFullName());
        }
      }
    }
    assertThat(held).as("the what-if's stages hold their processors").isNotEmpty();
  }

  @Test
  void shouldKeepTheCheckRulesFreeOfKafkaAndOfTheKubernetesClient() {
    ArchRule rule =
        noClasses()
            .that()
            .resideInAPackage("io.schedlens.check")
            .should()
            .dependOnClassesThat()
            .resideInAnyPackage(
                "org.apache.kafka..",
                "io.fabric8.kubernetes.client",
                "io.fabric8.kubernetes.client.dsl..",
                "io.fabric8.kubernetes.client.http..")
            .because(
                "the rules judge manifests and ClusterFacts; only check.cluster talks to a cluster"
                    + " (the model's YAML mapping, client.utils.KubernetesSerialization, is allowed)");
    rule.check(main);
  }

  @Test
  void shouldKeepTheAppsApartFromEachOtherAndFromTheSimulator() {
    noClasses()
        .that()
        .resideInAnyPackage("io.schedlens.collector..", "io.schedlens.projections..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.schedlens.streams..",
            "io.schedlens.topology..",
            "io.schedlens.serving..",
            "io.schedlens.timeline..",
            "io.schedlens.simulator..")
        .check(main);
    noClasses()
        .that()
        .resideInAnyPackage(
            "io.schedlens.streams..",
            "io.schedlens.topology..",
            "io.schedlens.serving..",
            "io.schedlens.timeline..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.schedlens.collector..", "io.schedlens.projections..", "io.schedlens.simulator..")
        .check(main);
  }

  @Test
  void shouldKeepTheSharedModulesBelowTheApps() {
    noClasses()
        .that()
        .resideInAnyPackage("io.schedlens.schemas..", "io.schedlens.common..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage(
            "io.schedlens.collector..",
            "io.schedlens.projections..",
            "io.schedlens.streams..",
            "io.schedlens.topology..",
            "io.schedlens.serving..",
            "io.schedlens.timeline..",
            "io.schedlens.simulator..",
            "io.schedlens.export..",
            "io.schedlens.report..",
            "io.schedlens.check..",
            "io.schedlens.cli..")
        .check(main);
  }

  @Test
  void shouldKeepTheSimulatorCheckAndReportOffTheAppsCommonModule() {
    noClasses()
        .that()
        .resideInAnyPackage(
            "io.schedlens.simulator..", "io.schedlens.check..", "io.schedlens.report..")
        .should()
        .dependOnClassesThat()
        .resideInAnyPackage("io.schedlens.common..", "io.prometheus..")
        .because("they need durations and times (the base module), not Kafka or an HTTP exporter")
        .check(main);
  }

  @Test
  void shouldLetTheSimulatorsControllersActOnlyThroughTheirContext() {
    noClasses()
        .that()
        .haveSimpleNameEndingWith("Controller")
        .and()
        .resideInAPackage("io.schedlens.simulator.cluster")
        .should()
        .dependOnClassesThat()
        .haveSimpleName("ClusterState")
        .orShould()
        .dependOnClassesThat()
        .haveSimpleName("ClusterRun")
        .because(
            "the Deployment, ReplicaSet and Job controllers see the cluster through"
                + " ControllerContext, as Kubernetes' controllers see it through the API")
        .check(main);
  }

  @Test
  void shouldKeepTheSimulatorsComponentsOffTheRunThatWiresThem() {
    noClasses()
        .that()
        .resideInAPackage("io.schedlens.simulator.cluster")
        .and()
        .areTopLevelClasses()
        .and()
        .doNotHaveSimpleName("ClusterRun")
        .should()
        .dependOnClassesThat()
        .haveSimpleName("ClusterRun")
        .because(
            "each component (scheduling queue, kubelet, node lifecycle, traffic, GPUs) acts on"
                + " ClusterState and is told what the others do through what it was given")
        .check(main);
  }
}
