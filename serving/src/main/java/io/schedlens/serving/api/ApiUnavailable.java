package io.schedlens.serving.api;

import java.io.IOException;

/**
 * An answer cannot be given whole now (an instance did not answer, a partition is being moved): the
 * API answers 503 with {@code Retry-After}, never a partial answer presented as whole.
 */
public class ApiUnavailable extends IOException {
  private static final long serialVersionUID = 1L;

  public ApiUnavailable(String message) {
    super(message);
  }

  public ApiUnavailable(String message, Throwable cause) {
    super(message, cause);
  }
}
