package io.schedlens.common.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * A bearer token an endpoint requires: the settings {@code PREFIX.auth} ({@code token} or {@code
 * none}) and {@code PREFIX.token} (or {@code PREFIX.token.file}, {@link Secrets}), the start-up
 * rules that {@code token} needs a token (a missing Secret must not turn authentication off) of at
 * least {@link #MIN_LENGTH} characters, and the constant-time check of an {@code Authorization}
 * header. The collector's intake and the streams app's {@code /api} use it.
 */
public final class BearerToken {

  /** The shortest token taken: 128 bits as hex ({@code openssl rand -hex 32} gives 64). */
  public static final int MIN_LENGTH = 32;

  private BearerToken() {}

  /**
   * Adds {@code PREFIX.auth} and {@code PREFIX.token} to a command's settings.
   *
   * @param what what the token guards, for the settings' documentation
   */
  public static ConfigDef define(ConfigDef def, String prefix, String what) {
    def.define(
        prefix + ".auth",
        ConfigDef.Type.STRING,
        "token",
        ConfigDef.ValidString.in("token", "none"),
        ConfigDef.Importance.HIGH,
        "How "
            + what
            + " authenticates callers: token (an 'Authorization: Bearer' header with "
            + prefix
            + ".token, which must then be set) or none (anyone who reaches the port: only on"
            + " loopback, or behind a NetworkPolicy or an authenticating proxy).");
    return Secrets.define(
        def,
        prefix + ".token",
        "Bearer token "
            + what
            + " requires ("
            + prefix
            + ".auth token), at least "
            + MIN_LENGTH
            + " characters (openssl rand -hex 32); give it from a Secret, e.g. "
            + Secrets.envOf(prefix + ".token")
            + ", or as a mounted file ("
            + prefix
            + ".token.file).");
  }

  /**
   * The token a command's endpoint requires, or null under {@code PREFIX.auth none}.
   *
   * @throws ConfigException under {@code PREFIX.auth token} without a token, saying how to give one
   *     or to turn authentication off
   */
  public static String required(AbstractConfig config, String prefix, String what) {
    if (config.getString(prefix + ".auth").equals("none")) {
      return null;
    }
    String token = Secrets.read(config, prefix + ".token");
    String flag = "--" + prefix.replace('.', '-');
    if (token == null) {
      String env = Secrets.envOf(prefix + ".token");
      throw new ConfigException(
          what
              + " requires a bearer token ("
              + prefix
              + ".auth token): set "
              + env
              + " or "
              + env
              + "_FILE (or "
              + flag
              + "-token), or "
              + flag
              + "-auth none when only loopback, a NetworkPolicy or an authenticating proxy lets"
              + " callers reach the port");
    }
    if (token.length() < MIN_LENGTH) {
      throw new ConfigException(
          prefix
              + ".token is "
              + token.length()
              + " characters long, shorter than "
              + MIN_LENGTH
              + ": a short token is guessed; make one with openssl rand -hex 32");
    }
    return token;
  }

  /** Whether an {@code Authorization} header carries the token (constant time in the token). */
  public static boolean authorizes(String header, byte[] token) {
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, 7)) {
      return false;
    }
    return MessageDigest.isEqual(
        header.substring(7).trim().getBytes(StandardCharsets.UTF_8), token);
  }
}
