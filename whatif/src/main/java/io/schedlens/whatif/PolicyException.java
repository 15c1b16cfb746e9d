package io.schedlens.whatif;

/** A policy file that cannot be used: the message says where and why. */
public final class PolicyException extends RuntimeException {

  public PolicyException(String message) {
    super(message);
  }

  public PolicyException(String message, Throwable cause) {
    super(message, cause);
  }
}
