package io.schedlens.common.http;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyStore;
import java.security.PrivateKey;
import java.security.Signature;
import java.security.cert.Certificate;
import java.security.cert.CertificateFactory;
import java.security.spec.PKCS8EncodedKeySpec;
import java.util.Base64;
import java.util.Collection;
import javax.net.ssl.KeyManagerFactory;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;

/**
 * TLS for an HTTP endpoint from the PEM files a Kubernetes TLS Secret holds ({@code tls.crt}: the
 * certificate chain, {@code tls.key}: a PKCS#8 private key, RSA or EC; read again when they change:
 * {@link ServerTls}). The JDK reads PKCS#8 itself; a PKCS#1 ("BEGIN RSA PRIVATE KEY") key is
 * refused with how to convert it. A key that is not the certificate's is refused too.
 */
public final class HttpTls {

  private HttpTls() {}

  /**
   * The server context for a certificate and key, or null when neither is given.
   *
   * @throws IllegalArgumentException what is wrong with the files, naming them
   */
  public static SSLContext serverContext(String certFile, String keyFile) {
    boolean cert = certFile != null && !certFile.isBlank();
    boolean key = keyFile != null && !keyFile.isBlank();
    if (!cert && !key) {
      return null;
    }
    if (cert != key) {
      throw new IllegalArgumentException(
          "TLS needs both the certificate and the private key (http.tls.cert and http.tls.key)");
    }
    try {
      Collection<? extends Certificate> chain;
      try (InputStream in = Files.newInputStream(Path.of(certFile))) {
        chain = CertificateFactory.getInstance("X.509").generateCertificates(in);
      }
      if (chain.isEmpty()) {
        throw new IllegalArgumentException(certFile + " holds no PEM certificate");
      }
      PrivateKey privateKey = privateKey(Path.of(keyFile));
      requirePair(chain.iterator().next(), privateKey, certFile, keyFile);
      KeyStore store = KeyStore.getInstance("PKCS12");
      store.load(null, null);
      char[] none = new char[0];
      store.setKeyEntry("http", privateKey, none, chain.toArray(new Certificate[0]));
      KeyManagerFactory kmf =
          KeyManagerFactory.getInstance(KeyManagerFactory.getDefaultAlgorithm());
      kmf.init(store, none);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(kmf.getKeyManagers(), null, null);
      return context;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException(
          "cannot use " + certFile + " and " + keyFile + " for TLS: " + e.getMessage(), e);
    }
  }

  /**
   * A client context trusting the PEM certificates of {@code caFile} (a CA bundle, or the servers'
   * own certificate), or null for the JVM's trust store when {@code caFile} is empty.
   */
  public static SSLContext clientContext(String caFile) {
    if (caFile == null || caFile.isBlank()) {
      return null;
    }
    try {
      KeyStore trust = KeyStore.getInstance("PKCS12");
      trust.load(null, null);
      try (InputStream in = Files.newInputStream(Path.of(caFile))) {
        int n = 0;
        for (Certificate c : CertificateFactory.getInstance("X.509").generateCertificates(in)) {
          trust.setCertificateEntry("ca-" + n++, c);
        }
        if (n == 0) {
          throw new IllegalArgumentException(caFile + " holds no PEM certificate");
        }
      }
      TrustManagerFactory tmf =
          TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
      tmf.init(trust);
      SSLContext context = SSLContext.getInstance("TLS");
      context.init(null, tmf.getTrustManagers(), null);
      return context;
    } catch (IOException | GeneralSecurityException e) {
      throw new IllegalArgumentException("cannot trust " + caFile + ": " + e.getMessage(), e);
    }
  }

  /** The key signs what the certificate's public key verifies: they are one pair. */
  private static void requirePair(Certificate cert, PrivateKey key, String certFile, String keyFile)
      throws GeneralSecurityException {
    String algorithm =
        switch (key.getAlgorithm()) {
          case "RSA" -> "SHA256withRSA";
          case "EC" -> "SHA256withECDSA";
          default -> key.getAlgorithm();
        };
    byte[] probe = "schedlens".getBytes(StandardCharsets.UTF_8);
    Signature sign = Signature.getInstance(algorithm);
    sign.initSign(key);
    sign.update(probe);
    byte[] signature = sign.sign();
    Signature verify = Signature.getInstance(algorithm);
    verify.initVerify(cert.getPublicKey());
    verify.update(probe);
    if (!verify.verify(signature)) {
      throw new IllegalArgumentException(
          keyFile + " is not the private key of the certificate in " + certFile);
    }
  }

  private static PrivateKey privateKey(Path file) throws IOException, GeneralSecurityException {
    String pem = Files.readString(file);
    if (pem.contains("BEGIN RSA PRIVATE KEY") || pem.contains("BEGIN EC PRIVATE KEY")) {
      throw new IllegalArgumentException(
          file
              + " is a PKCS#1/SEC1 key; give a PKCS#8 one (cert-manager: privateKey.encoding:"
              + " PKCS8; or openssl pkcs8 -topk8 -nocrypt -in KEY -out KEY8)");
    }
    int begin = pem.indexOf("-----BEGIN PRIVATE KEY-----");
    int end = pem.indexOf("-----END PRIVATE KEY-----");
    if (begin < 0 || end < 0) {
      throw new IllegalArgumentException(file + " holds no PEM 'BEGIN PRIVATE KEY' block");
    }
    byte[] der =
        Base64.getMimeDecoder()
            .decode(pem.substring(begin + "-----BEGIN PRIVATE KEY-----".length(), end));
    PKCS8EncodedKeySpec spec = new PKCS8EncodedKeySpec(der);
    for (String algorithm : new String[] {"RSA", "EC", "Ed25519"}) {
      try {
        return KeyFactory.getInstance(algorithm).generatePrivate(spec);
      } catch (GeneralSecurityException wrongAlgorithm) {
        // try the next
      }
    }
    throw new IllegalArgumentException(
        file + " holds a private key that is not RSA, EC or Ed25519");
  }
}
