package io.schedlens.serving.pages;

import io.schedlens.common.http.Secrets;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The pages' login sessions: what the cookie holds after a login is a value signed by the instances
 * (HMAC-SHA256 over its expiry and a random nonce), never the token. It expires ({@code
 * api.session.ttl}); every instance holding the same key accepts it. The key is {@code
 * api.session.key}, or derived from the API token, so that changing the token also ends every
 * session. Nothing is kept on the server: logging out clears the browser's cookie, and ending every
 * session at once is changing the key.
 */
final class Sessions {

  static final String COOKIE = "schedlens_session";

  private static final String VERSION = "v1";
  private static final Base64.Encoder B64 = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder B64D = Base64.getUrlDecoder();

  private final SecretKeySpec key;
  private final Duration ttl;
  private final Clock clock;
  private final SecureRandom random = new SecureRandom();

  Sessions(byte[] key, Duration ttl, Clock clock) {
    this.key = new SecretKeySpec(key, "HmacSHA256");
    this.ttl = ttl;
    this.clock = clock;
  }

  /** The key derived from the API token ({@link Secrets#derive}). */
  static byte[] keyFromToken(String token) {
    return Secrets.derive(token, "schedlens pages session key v1").getBytes(StandardCharsets.UTF_8);
  }

  /** A new session's value: {@code v1.<expiry seconds>.<nonce>.<signature>}. */
  String issue() {
    byte[] nonce = new byte[16];
    random.nextBytes(nonce);
    long expiry = clock.instant().plus(ttl).getEpochSecond();
    String signed = VERSION + "." + expiry + "." + B64.encodeToString(nonce);
    return signed + "." + B64.encodeToString(hmac(key, signed));
  }

  /** Whether a cookie's value is a session these instances issued that has not expired. */
  boolean valid(String value) {
    if (value == null || value.length() > 256) {
      return false;
    }
    int last = value.lastIndexOf('.');
    if (last < 0) {
      return false;
    }
    String signed = value.substring(0, last);
    byte[] given;
    try {
      given = B64D.decode(value.substring(last + 1));
    } catch (IllegalArgumentException e) {
      return false;
    }
    if (!MessageDigest.isEqual(hmac(key, signed), given)) {
      return false;
    }
    String[] parts = signed.split("\\.");
    if (parts.length != 3 || !parts[0].equals(VERSION)) {
      return false;
    }
    try {
      return Long.parseLong(parts[1]) > clock.instant().getEpochSecond();
    } catch (NumberFormatException e) {
      return false;
    }
  }

  /** The Set-Cookie value of a session. */
  String cookie(String value) {
    return COOKIE
        + "="
        + value
        + "; Path=/; Max-Age="
        + ttl.toSeconds()
        + "; Secure; HttpOnly; SameSite=Strict";
  }

  /** The Set-Cookie value that clears the session. */
  static String cleared() {
    return COOKIE + "=; Path=/; Max-Age=0; Secure; HttpOnly; SameSite=Strict";
  }

  private static byte[] hmac(SecretKeySpec key, String text) {
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(key);
      return mac.doFinal(text.getBytes(StandardCharsets.UTF_8));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is part of every JDK", e);
    }
  }
}
