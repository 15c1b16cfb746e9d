package io.schedlens.common.metrics;

import java.io.IOException;
import java.io.InputStream;
import java.util.Properties;

/**
 * The version and commit these jars were built from (Maven fills {@code build-info.properties} in):
 * for {@code --version} and {@code schedlens_build_info}.
 */
public record BuildInfo(String version, String commit) {

  private static final BuildInfo CURRENT = load();

  public static BuildInfo current() {
    return CURRENT;
  }

  /** {@code 0.1.0 (commit 1a2b3c4)}. */
  public String describe() {
    return version + " (commit " + commit + ")";
  }

  private static BuildInfo load() {
    Properties p = new Properties();
    try (InputStream in =
        BuildInfo.class.getResourceAsStream("/io/schedlens/common/build-info.properties")) {
      if (in != null) {
        p.load(in);
      }
    } catch (IOException e) {
      // unknown below
    }
    String version = filled(p.getProperty("version"));
    String commit = filled(p.getProperty("commit"));
    if (!commit.equals("unknown") && "true".equals(p.getProperty("dirty"))) {
      commit += "-dirty";
    }
    return new BuildInfo(version, commit);
  }

  /** A value Maven filled in, or {@code unknown} (a placeholder left as it was, or nothing). */
  private static String filled(String v) {
    return v == null || v.isBlank() || v.contains("${") ? "unknown" : v.strip();
  }
}
