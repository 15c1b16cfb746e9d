package io.strimzi.crdgenerator.annotations;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The annotation type Strimzi's API model carries (its CRD generator's), declared under its own
 * name so that {@code ChartSchemas} can read, through reflection, which API versions each field is
 * present in. Strimzi publishes the type only in {@code io.strimzi:crd-annotations} builds for Java
 * 21 (1.x) or under another package (0.45), and the model's class files name it but do not need it:
 * without a declaration on the class path, reflection silently drops the annotation. Same shape as
 * Strimzi's (javap of crd-annotations 1.2.0): runtime retention, one String {@code value}.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target({ElementType.METHOD, ElementType.FIELD, ElementType.TYPE})
public @interface PresentInVersions {
  /** A Strimzi version range: {@code v1+}, {@code v1beta2}, {@code v1alpha1-v1beta2}. */
  String value();
}
