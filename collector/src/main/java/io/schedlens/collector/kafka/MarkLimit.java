package io.schedlens.collector.kafka;

/**
 * How far a source lets the progress marks of its topic go: a mark is a promise that every input of
 * the source up to its time has been written (docs/design.md, "Progress marks are promises"), so a
 * source that still holds inputs, or refused some that its sender will send again, must stop the
 * marks before their time.
 */
@FunctionalInterface
public interface MarkLimit {

  /** No mark at all for now (the source has not sent what it read yet). */
  long NONE = Long.MIN_VALUE;

  /** Any mark the clock allows. */
  long UNLIMITED = Long.MAX_VALUE;

  /** The latest time a mark may say now: {@link #NONE}, {@link #UNLIMITED} or a time. */
  long latest();
}
