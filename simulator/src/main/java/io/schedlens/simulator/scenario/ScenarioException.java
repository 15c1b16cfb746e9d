package io.schedlens.simulator.scenario;

/** A scenario that cannot be run; the message names the file, the field and what is wrong. */
public final class ScenarioException extends RuntimeException {

  public ScenarioException(String message) {
    super(message);
  }

  public ScenarioException(String message, Throwable cause) {
    super(message, cause);
  }
}
