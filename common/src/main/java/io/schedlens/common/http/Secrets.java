package io.schedlens.common.http;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.util.HexFormat;
import java.util.Locale;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;
import org.apache.kafka.common.config.AbstractConfig;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;
import org.apache.kafka.common.config.types.Password;

/**
 * A secret setting given either as its value ({@code NAME}, e.g. from an environment variable set
 * from a Secret) or as a file that holds it ({@code NAME.file}, a Secret mounted as a volume, as
 * the chart does: the value never appears in the pod's spec or environment). Read at start; a
 * trailing newline is not part of it.
 */
public final class Secrets {

  private Secrets() {}

  /** Adds {@code name} and {@code name.file} to a command's settings. */
  public static ConfigDef define(ConfigDef def, String name, String doc) {
    return def.define(name, ConfigDef.Type.PASSWORD, null, ConfigDef.Importance.HIGH, doc)
        .define(
            name + ".file",
            ConfigDef.Type.STRING,
            "",
            ConfigDef.Importance.HIGH,
            "A file holding "
                + name
                + " (a mounted Secret's key), instead of the value itself; a trailing newline is"
                + " not part of it.");
  }

  /**
   * The secret, or null when neither is given.
   *
   * @throws ConfigException both given, or the file cannot be read or is empty
   */
  public static String read(AbstractConfig config, String name) {
    Password value = config.getPassword(name);
    String file = config.getString(name + ".file");
    boolean hasValue = value != null && !value.value().isEmpty();
    if (file == null || file.isBlank()) {
      return hasValue ? value.value() : null;
    }
    if (hasValue) {
      throw new ConfigException(
          "give " + name + " or " + name + ".file, not both (" + envOf(name) + " is set too)");
    }
    try {
      String s = Files.readString(Path.of(file), StandardCharsets.UTF_8).strip();
      if (s.isEmpty()) {
        throw new ConfigException(name + ".file " + file + " is empty");
      }
      return s;
    } catch (IOException e) {
      throw new ConfigException(
          "cannot read " + name + ".file " + file + " (" + e.getMessage() + "): mount the Secret");
    }
  }

  /**
   * A secret of its own derived from another, for one use ({@code label}): the HMAC-SHA256 of the
   * label under the secret, in hex. Whoever holds the secret can derive it too.
   */
  public static String derive(String secret, String label) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA256"));
      return HexFormat.of().formatHex(mac.doFinal(label.getBytes(StandardCharsets.UTF_8)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }

  /** The environment variable of a setting. */
  static String envOf(String name) {
    return "SCHEDLENS_" + name.toUpperCase(Locale.ROOT).replace('.', '_');
  }
}
