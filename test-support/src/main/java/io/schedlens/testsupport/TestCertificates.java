package io.schedlens.testsupport;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyStore;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;

/**
 * A self-signed certificate for 127.0.0.1, made by the JDK's keytool, in the forms the tests need:
 * the PKCS12 keystore (a Kafka listener), and the PEM files of a Kubernetes TLS Secret ({@code
 * tls.crt}, PKCS#8 {@code tls.key}); the certificate is its own CA.
 */
public record TestCertificates(Path keystore, String password, Path certPem, Path keyPem) {

  public static TestCertificates make(Path dir, String password)
      throws IOException, InterruptedException, GeneralSecurityException {
    Path p12 = dir.resolve("server.p12");
    keytool(
        "-genkeypair",
        "-alias",
        "server",
        "-keyalg",
        "RSA",
        "-keysize",
        "2048",
        "-validity",
        "2",
        "-dname",
        "CN=127.0.0.1",
        "-ext",
        "SAN=ip:127.0.0.1",
        "-keystore",
        p12.toString(),
        "-storetype",
        "PKCS12",
        "-storepass",
        password,
        "-keypass",
        password);
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(p12)) {
      ks.load(in, password.toCharArray());
    }
    Base64.Encoder b64 = Base64.getMimeEncoder(64, "\n".getBytes(StandardCharsets.US_ASCII));
    Path crt = dir.resolve("tls.crt");
    Files.writeString(
        crt,
        "-----BEGIN CERTIFICATE-----\n"
            + b64.encodeToString(ks.getCertificate("server").getEncoded())
            + "\n-----END CERTIFICATE-----\n");
    Path key = dir.resolve("tls.key");
    Files.writeString(
        key,
        "-----BEGIN PRIVATE KEY-----\n"
            + b64.encodeToString(ks.getKey("server", password.toCharArray()).getEncoded())
            + "\n-----END PRIVATE KEY-----\n");
    return new TestCertificates(p12, password, crt, key);
  }

  private static void keytool(String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (p.waitFor() != 0) {
      throw new IOException("keytool failed: " + out);
    }
  }
}
