package io.schedlens.common.http;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.util.Locale;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * A bearer token an endpoint requires: the settings {@code PREFIX.auth} ({@code token} or {@code
 * none}) and {@code PREFIX.token}, the start-up rule that {@code token} needs a token (a missing
 * Secret must not turn authentication off), and the constant-time check of an {@code Authorization}
 * header. The collector's intake and the streams app's {@code /api} use it.
 */
public final class BearerToken {

  private BearerToken() {}

  /**
   * Adds {@code PREFIX.auth} and {@code PREFIX.token} to a command's settings.
   *
   * @param what what the token guards, for the settings' documentation
   */
  public static ConfigDef define(ConfigDef def, String prefix, String what) {
    return def.define(
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
                + " loopback, or behind a NetworkPolicy or an authenticating proxy).")
        .define(
            prefix + ".token",
            ConfigDef.Type.PASSWORD,
            null,
            ConfigDef.Importance.HIGH,
            "Bearer token "
                + what
                + " requires ("
                + prefix
                + ".auth token); give it from a Secret, e.g. SCHEDLENS_"
                + prefix.toUpperCase(Locale.ROOT).replace('.', '_')
                + "_TOKEN.");
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
    Password p = config.getPassword(prefix + ".token");
    if (p == null || p.value().isEmpty()) {
      String flag = "--" + prefix.replace('.', '-');
      String env = "SCHEDLENS_" + prefix.toUpperCase(Locale.ROOT).replace('.', '_');
      throw new ConfigException(
          what
              + " requires a bearer token ("
              + prefix
              + ".auth token): set "
              + env
              + "_TOKEN or "
              + flag
              + "-token, or "
              + flag
              + "-auth none when only loopback, a NetworkPolicy or an authenticating proxy lets"
              + " callers reach the port");
    }
    return p.value();
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
