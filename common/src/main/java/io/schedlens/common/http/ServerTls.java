package io.schedlens.common.http;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import javax.net.ssl.SSLContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A server's certificate and key from a TLS Secret's files, read again when they change:
 * cert-manager renews a certificate in the same Secret, and the kubelet swaps the mounted files in
 * place, so that a process reading them once at start would serve the old certificate until it
 * expired. A change is taken only once the two files make a usable pair (their contents can change
 * one after the other); until then the certificate in use stays.
 */
public final class ServerTls {

  private static final Logger log = LoggerFactory.getLogger(ServerTls.class);

  private final String cert;
  private final String key;
  private byte[] digest;
  private byte[] unusable;
  private volatile SSLContext context;

  private ServerTls(String cert, String key, byte[] digest, SSLContext context) {
    this.cert = cert;
    this.key = key;
    this.digest = digest;
    this.context = context;
  }

  /**
   * The files' TLS, or null when neither is given.
   *
   * @throws IllegalArgumentException what is wrong with the files, naming them
   */
  public static ServerTls of(String cert, String key) {
    SSLContext context = HttpTls.serverContext(cert, key);
    if (context == null) {
      return null;
    }
    return new ServerTls(cert, key, digestOf(cert, key), context);
  }

  /** The context in use. */
  public SSLContext context() {
    return context;
  }

  /**
   * A new context when the files' contents changed and make a usable pair, else null (unchanged, or
   * not yet usable: asked again later).
   */
  synchronized SSLContext reloaded() {
    byte[] now = digestOf(cert, key);
    if (now == null
        || MessageDigest.isEqual(now, digest)
        || (unusable != null && MessageDigest.isEqual(now, unusable))) {
      return null;
    }
    try {
      SSLContext next = HttpTls.serverContext(cert, key);
      digest = now;
      context = next;
      log.info("TLS certificate {} changed: new connections get the new one", cert);
      return next;
    } catch (IllegalArgumentException e) {
      // Said once for these contents: a pair half-swapped is whole at a later check.
      unusable = now;
      log.warn(
          "TLS files changed but are not usable yet (kept the certificate in use): {}",
          e.getMessage());
      return null;
    }
  }

  private static byte[] digestOf(String cert, String key) {
    try {
      MessageDigest d = MessageDigest.getInstance("SHA-256");
      d.update(Files.readAllBytes(Path.of(cert)));
      d.update(Files.readAllBytes(Path.of(key)));
      return d.digest();
    } catch (IOException e) {
      return null; // in the middle of a swap: asked again later
    } catch (NoSuchAlgorithmException e) {
      throw new IllegalStateException(e);
    }
  }
}
