package io.schedlens.common.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.prometheus.metrics.model.registry.PrometheusRegistry;
import java.io.InputStream;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.Certificate;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import javax.net.ssl.SSLContext;
import javax.net.ssl.TrustManagerFactory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The endpoint over TLS from a TLS Secret's PEM files, made here with the JDK's keytool. */
class HttpTlsTest {

  @TempDir Path dir;

  /** tls.crt and tls.key as a Kubernetes TLS Secret holds them (key PKCS#8). */
  record Pem(Path cert, Path key, Certificate certificate) {}

  Pem pem() throws Exception {
    return pem("server");
  }

  /**
   * A new key pair and self-signed certificate, written to {@code NAME.crt} and {@code NAME.key}.
   */
  Pem pem(String name) throws Exception {
    Path p12 = dir.resolve(name + ".p12");
    List<String> cmd = new ArrayList<>();
    cmd.add(Path.of(System.getProperty("java.home"), "bin", "keytool").toString());
    cmd.addAll(
        List.of(
            "-genkeypair",
            "-alias",
            "server",
            "-keyalg",
            "EC",
            "-groupname",
            "secp256r1",
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
            "changeit"));
    Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    assertThat(p.waitFor()).as(out).isZero();
    KeyStore ks = KeyStore.getInstance("PKCS12");
    try (InputStream in = Files.newInputStream(p12)) {
      ks.load(in, "changeit".toCharArray());
    }
    Certificate cert = ks.getCertificate("server");
    Base64.Encoder b64 = Base64.getMimeEncoder(64, "\n".getBytes());
    Path crt = dir.resolve(name + ".crt");
    Files.writeString(
        crt,
        "-----BEGIN CERTIFICATE-----\n"
            + b64.encodeToString(cert.getEncoded())
            + "\n-----END CERTIFICATE-----\n");
    Path key = dir.resolve(name + ".key");
    Files.writeString(
        key,
        "-----BEGIN PRIVATE KEY-----\n"
            + b64.encodeToString(ks.getKey("server", "changeit".toCharArray()).getEncoded())
            + "\n-----END PRIVATE KEY-----\n");
    return new Pem(crt, key, cert);
  }

  @Test
  void shouldServeTheProbesAndRoutesOverTlsFromPemFiles() throws Exception {
    Pem pem = pem();
    SSLContext server = HttpTls.serverContext(pem.cert().toString(), pem.key().toString());
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    trust.setCertificateEntry("server", pem.certificate());
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext client = SSLContext.getInstance("TLS");
    client.init(null, tmf.getTrustManagers(), null);
    try (HttpEndpoint endpoint =
        HttpEndpoint.start(
            "127.0.0.1",
            0,
            server,
            new PrometheusRegistry(),
            () -> HttpEndpoint.Readiness.ready("ok"),
            2)) {
      assertThat(endpoint.baseUrl()).startsWith("https://127.0.0.1:");
      HttpResponse<String> r =
          HttpClient.newBuilder()
              .sslContext(client)
              .build()
              .send(
                  HttpRequest.newBuilder(URI.create(endpoint.baseUrl() + "/healthz")).build(),
                  HttpResponse.BodyHandlers.ofString());
      assertThat(r.statusCode()).isEqualTo(200);
      // A client that does not trust the certificate gets no answer.
      assertThatThrownBy(
              () ->
                  HttpClient.newHttpClient()
                      .send(
                          HttpRequest.newBuilder(URI.create(endpoint.baseUrl() + "/healthz"))
                              .build(),
                          HttpResponse.BodyHandlers.ofString()))
          .isInstanceOf(javax.net.ssl.SSLHandshakeException.class);
    }
  }

  /**
   * cert-manager renews the certificate in its Secret and the kubelet swaps the mounted files: the
   * running endpoint serves the new certificate to new connections, without a restart; a key that
   * does not match the certificate (the files caught half-swapped) keeps the old one until it does.
   */
  @Test
  void shouldServeARenewedCertificateWhenItsFilesChange() throws Exception {
    Pem first = pem("first");
    Pem second = pem("second");
    Path crt = dir.resolve("tls.crt");
    Path key = dir.resolve("tls.key");
    Files.copy(first.cert(), crt);
    Files.copy(first.key(), key);
    ServerTls tls = ServerTls.of(crt.toString(), key.toString());
    SSLContext client = trusting(first.certificate(), second.certificate());
    try (HttpEndpoint endpoint =
        HttpEndpoint.start(
                "127.0.0.1",
                0,
                tls.context(),
                new PrometheusRegistry(),
                () -> HttpEndpoint.Readiness.ready("ok"),
                2)
            .reloadingTls(tls, java.time.Duration.ofMillis(200))) {
      assertThat(served(client, endpoint.port())).isEqualTo(first.certificate());
      // Half-swapped: the new certificate beside the old key is not taken.
      Files.copy(second.cert(), crt, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      org.awaitility.Awaitility.await()
          .pollDelay(java.time.Duration.ofMillis(600))
          .until(() -> true);
      assertThat(served(client, endpoint.port())).isEqualTo(first.certificate());
      Files.copy(second.key(), key, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      org.awaitility.Awaitility.await()
          .atMost(java.time.Duration.ofSeconds(10))
          .until(() -> served(client, endpoint.port()).equals(second.certificate()));
    }
  }

  private static SSLContext trusting(Certificate... certs) throws Exception {
    KeyStore trust = KeyStore.getInstance("PKCS12");
    trust.load(null, null);
    for (int i = 0; i < certs.length; i++) {
      trust.setCertificateEntry("c" + i, certs[i]);
    }
    TrustManagerFactory tmf =
        TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
    tmf.init(trust);
    SSLContext client = SSLContext.getInstance("TLS");
    client.init(null, tmf.getTrustManagers(), null);
    return client;
  }

  /** The certificate a new connection to {@code port} is served. */
  private static Certificate served(SSLContext client, int port) throws Exception {
    try (javax.net.ssl.SSLSocket s =
        (javax.net.ssl.SSLSocket) client.getSocketFactory().createSocket("127.0.0.1", port)) {
      s.startHandshake();
      return s.getSession().getPeerCertificates()[0];
    }
  }

  @Test
  void shouldSayWhatIsWrongWithTheFiles() throws Exception {
    Pem pem = pem();
    assertThat(HttpTls.serverContext("", "")).isNull();
    assertThatThrownBy(() -> HttpTls.serverContext(pem.cert().toString(), ""))
        .hasMessageContaining("both the certificate and the private key");
    Path pkcs1 = dir.resolve("rsa.key");
    Files.writeString(
        pkcs1, "-----BEGIN RSA PRIVATE KEY-----\nAAAA\n-----END RSA PRIVATE KEY-----\n");
    assertThatThrownBy(() -> HttpTls.serverContext(pem.cert().toString(), pkcs1.toString()))
        .hasMessageContaining("PKCS#8")
        .hasMessageContaining("privateKey.encoding");
    assertThatThrownBy(
            () -> HttpTls.serverContext(dir.resolve("absent.crt").toString(), pem.key().toString()))
        .hasMessageContaining("absent.crt");
  }
}
