package io.schedlens.serving.pages;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class LoginTest {

  @Test
  void shouldGoBackOnlyToAPageOfThisSite() {
    assertThat(Login.safeNext("/pods/u-1?x=1")).isEqualTo("/pods/u-1?x=1");
    assertThat(Login.safeNext("//evil.example/")).isEqualTo("/");
    assertThat(Login.safeNext("/\\evil.example")).isEqualTo("/");
    assertThat(Login.safeNext("https://evil.example/")).isEqualTo("/");
    assertThat(Login.safeNext("/login")).isEqualTo("/");
    assertThat(Login.safeNext("/pods/x\r\nSet-Cookie: a=b")).isEqualTo("/");
    assertThat(Login.safeNext(null)).isEqualTo("/");
  }

  @Test
  void shouldReadTheForm() {
    assertThat(Login.fields("token=a%2Bb%3D&next=%2Fpods%2Fu-1"))
        .containsEntry("token", "a+b=")
        .containsEntry("next", "/pods/u-1");
  }

  @Test
  void shouldPostTheTokenNeverPutItInTheAddressAndEscapeWhereItGoesBack() {
    String form = Login.form("/pods/\"><script>", false);

    assertThat(form)
        .contains("<form method=\"post\" action=\"/login\">", "type=\"password\"")
        .doesNotContain("<script>")
        .doesNotContain("method=\"get\"");
    assertThat(Login.form("/", true)).contains("id=\"login-failed\"");
  }
}
