package io.schedlens.serving.pages;

import com.sun.net.httpserver.HttpExchange;
import io.schedlens.avro.PodTimeline;
import io.schedlens.avro.WorkloadTimeline;
import io.schedlens.common.http.BearerToken;
import io.schedlens.common.http.HttpEndpoint;
import io.schedlens.schemas.WorkloadKey;
import io.schedlens.serving.api.ApiUnavailable;
import io.schedlens.serving.api.ListPaging;
import io.schedlens.serving.api.Listing;
import io.schedlens.serving.api.TimelineFilters;
import java.io.IOException;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.apache.kafka.streams.errors.InvalidStateStoreException;

/**
 * The HTML pages for people (the HTTP adapter; the pages themselves are pure): {@code /} the
 * on-call index, {@code /pods/{uid}} a pod's timeline, {@code /pods/{namespace}/{name}} the pod of
 * that name (a choice when the name was reused), {@code /workloads/{namespace}/{kind}/{name}}.
 *
 * <p>Behind the same bearer token as {@code /api} when one is set: a browser that cannot send the
 * header logs in once through the form at {@code /login} ({@link Login}: POSTed, never in an
 * address), which sets a Secure, HttpOnly, SameSite=Strict cookie holding a signed, expiring
 * session ({@link Sessions}), never the token; {@code /logout} clears it. A login is refused when
 * it comes from another site (its {@code Sec-Fetch-Site} or {@code Origin}), and a client that
 * keeps giving wrong tokens waits longer each time ({@link LoginBackoff}).
 */
public final class TimelinePages {

  static final String LOGOUT = "/logout";

  /** The index's filters, as query parameters (what the dashboards' links may pass). */
  public static final Set<String> INDEX_FILTERS = Set.copyOf(IndexPage.FILTERS);

  private static final long PREEMPTION_WINDOW_MS = Duration.ofHours(6).toMillis();
  private static final int RELATED_MAX = 50;

  /** Rows of each list of the index at most (the count says how many match in all). */
  static final int LIST_MAX = 500;

  private final PageSource source;
  private final PagesAccess access;
  private final byte[] token;
  private final Sessions sessions;
  private final LoginBackoff backoff;

  public TimelinePages(PageSource source, PagesAccess access) {
    this.source = source;
    this.access = access;
    this.token = access.token() == null ? null : access.token().getBytes(StandardCharsets.UTF_8);
    this.sessions =
        access.token() == null
            ? null
            : new Sessions(access.sessionKey(), access.sessionTtl(), access.clock());
    this.backoff = new LoginBackoff(access.clock());
  }

  public void handle(HttpExchange exchange) throws IOException {
    String path = exchange.getRequestURI().getRawPath();
    if (Login.PATH.equals(path)) {
      login(exchange);
      return;
    }
    if (LOGOUT.equals(path)) {
      logout(exchange);
      return;
    }
    if (token != null && !authorized(exchange)) {
      return;
    }
    if (!exchange.getRequestMethod().equals("GET")) {
      html(exchange, 405, Html.problem("Method not allowed", "The pages answer GET only."));
      return;
    }
    String[] parts = segments(path);
    try {
      Map<String, String> query = TimelineFilters.query(exchange.getRequestURI());
      if (parts.length == 0) {
        html(exchange, 200, index(query));
      } else if (parts[0].equals("pods") && parts.length == 2) {
        pod(exchange, parts[1]);
      } else if (parts[0].equals("pods") && parts.length == 3) {
        podNamed(exchange, parts[1], parts[2]);
      } else if (parts[0].equals("workloads") && (parts.length == 4 || parts.length == 5)) {
        workload(exchange, parts[1], parts[2], parts[3], parts.length == 5 ? parts[4] : null);
      } else {
        html(
            exchange,
            404,
            Html.problem(
                "No such page",
                "Pages: / (the index), /pods/{uid}, /pods/{namespace}/{name},"
                    + " /workloads/{namespace}/{kind}/{name}[/{controllerUid}]."));
      }
    } catch (ApiUnavailable | InvalidStateStoreException e) {
      exchange.getResponseHeaders().set("Retry-After", "5");
      html(
          exchange,
          503,
          Html.problem(
              "Not available right now",
              "The answer would be partial, so there is none: "
                  + e.getMessage()
                  + ". State is being restored or an instance is moving; reload in a few"
                  + " seconds."));
    } catch (IllegalArgumentException e) {
      html(exchange, 400, Html.problem("Bad request", e.getMessage()));
    }
  }

  String index(Map<String, String> query) throws IOException {
    Map<String, String> filters = new LinkedHashMap<>();
    for (String k : IndexPage.FILTERS) {
      String v = query.get(k);
      if (v != null && !v.isBlank()) {
        filters.put(k, v.strip());
      }
    }
    Map<String, String> workloadFilters = new HashMap<>();
    if (filters.containsKey("namespace")) {
      workloadFilters.put("namespace", filters.get("namespace"));
    }
    if (filters.containsKey("arm")) {
      workloadFilters.put("arm", filters.get("arm"));
    }
    workloadFilters.put("interrupted", "true");
    List<WorkloadTimeline> interrupted =
        new ArrayList<>(source.workloads(workloadFilters, ListPaging.MAX_LIMIT).items());
    if (filters.containsKey("priorityClass")) {
      interrupted.removeIf(w -> !filters.get("priorityClass").equals(w.getPriorityClass()));
    }
    long window = preemptionWindow(query.get("hours"));
    long now = source.now();
    Map<String, String> recent = new HashMap<>(filters);
    recent.put("preemptedSince", String.valueOf(now - window));
    return IndexPage.render(
        new IndexPage.Data(
            source.pods("pending", filters, LIST_MAX),
            source.pods("starving", filters, LIST_MAX),
            source.pods("preempted", recent, LIST_MAX),
            interrupted,
            filters,
            now,
            window));
  }

  /** {@code ?hours=N}: how far back the index lists preemptions (default 6 hours). */
  static long preemptionWindow(String hours) {
    if (hours == null || hours.isBlank()) {
      return PREEMPTION_WINDOW_MS;
    }
    try {
      long h = Long.parseLong(hours.strip());
      if (h >= 1 && h <= 24L * 366) {
        return Duration.ofHours(h).toMillis();
      }
    } catch (NumberFormatException e) {
      // said below
    }
    throw new IllegalArgumentException(
        "hours must be a whole number of hours from 1 to 8784 (a year), not '" + hours + "'");
  }

  private void pod(HttpExchange exchange, String rawUid) throws IOException {
    String uid = decode(rawUid);
    Optional<PodTimeline> t = source.pod(uid);
    if (t.isEmpty()) {
      html(
          exchange,
          404,
          Html.problem(
              "No timeline for pod UID " + uid,
              "Unknown, or gone longer than api.final.retention. By name:"
                  + " /pods/{namespace}/{name}."));
      return;
    }
    html(exchange, 200, podPage(t.get()));
  }

  /** The page of a pod, with its preemptor and victims looked up. */
  public String podPage(PodTimeline t) throws IOException {
    Map<String, PodTimeline> related = new HashMap<>();
    if (t.getPreemptor() != null && t.getPreemptor().getUid() != null) {
      source.pod(t.getPreemptor().getUid()).ifPresent(p -> related.put(p.getUid(), p));
    }
    for (String v : t.getVictims().subList(0, Math.min(RELATED_MAX, t.getVictims().size()))) {
      source.pod(v).ifPresent(p -> related.put(p.getUid(), p));
    }
    return PodPage.render(t, related, source.now());
  }

  private void podNamed(HttpExchange exchange, String namespace, String name) throws IOException {
    String ns = decode(namespace);
    String n = decode(name);
    List<PodTimeline> found =
        source.pods("all", Map.of("namespace", ns, "name", n), RELATED_MAX).items();
    if (found.size() == 1) {
      html(exchange, 200, podPage(found.get(0)));
      return;
    }
    if (found.isEmpty()) {
      html(
          exchange,
          404,
          Html.problem(
              "No pod " + ns + "/" + n,
              "No timeline of a pod of that name is held (unknown, or gone longer than"
                  + " api.final.retention)."));
      return;
    }
    StringBuilder b =
        new StringBuilder("<h1>")
            .append(Html.esc(ns + "/" + n))
            .append(": the name was used by ")
            .append(found.size())
            .append(
                " pods</h1><table id=\"choices\"><thead><tr><th scope=\"col\">UID</th>"
                    + "<th scope=\"col\">created</th><th scope=\"col\">ended</th>"
                    + "<th scope=\"col\">outcome</th></tr></thead><tbody>");
    for (PodTimeline p : found) {
      b.append("<tr><td>")
          .append(Html.link(Html.podHref(p.getUid()), p.getUid()))
          .append("</td><td>")
          .append(Html.time(p.getCreatedAt()))
          .append("</td><td>")
          .append(Html.time(p.getTerminatedAt()))
          .append("</td><td>")
          .append(Html.esc(p.getOutcome()))
          .append("</td></tr>");
    }
    b.append("</tbody></table>");
    html(exchange, 200, Html.page(ns + "/" + n, b.toString()));
  }

  private void workload(
      HttpExchange exchange, String namespace, String kind, String name, String uid)
      throws IOException {
    String ns = decode(namespace);
    String k = decode(kind);
    String n = decode(name);
    WorkloadKey key = new WorkloadKey(ns, k, n, uid == null ? null : decode(uid));
    Optional<WorkloadTimeline> w = source.workload(key);
    if (w.isEmpty()) {
      html(
          exchange,
          404,
          Html.problem(
              "No timeline for workload " + key,
              "The kind is Deployment, StatefulSet, Job, DaemonSet or Pod, spelt as Kubernetes"
                  + " does; none of its pods seen yet?"));
      return;
    }
    Listing<PodTimeline> pods =
        source.pods(
            "all",
            Map.of("namespace", ns, "workloadKind", k, "workloadName", n),
            ListPaging.MAX_LIMIT);
    // Every workload this name has had (a Job created again under its name), newest first.
    List<WorkloadTimeline> named =
        source.workloads(Map.of("namespace", ns, "kind", k), LIST_MAX).items().stream()
            .filter(x -> x.getName().equals(n))
            .sorted(
                Comparator.comparingLong(WorkloadTimeline::getUpdatedAt)
                    .reversed()
                    .thenComparing(x -> WorkloadKey.of(x).identity()))
            .toList();
    html(exchange, 200, WorkloadPage.render(w.get(), pods, named, source.now()));
  }

  private boolean authorized(HttpExchange exchange) throws IOException {
    if (BearerToken.authorizes(exchange.getRequestHeaders().getFirst("Authorization"), token)) {
      return true;
    }
    for (String header : exchange.getRequestHeaders().getOrDefault("Cookie", List.of())) {
      for (String c : header.split(";")) {
        String[] kv = c.strip().split("=", 2);
        if (kv.length == 2 && kv[0].equals(Sessions.COOKIE) && sessions.valid(kv[1])) {
          return true;
        }
      }
    }
    exchange.getResponseHeaders().set("WWW-Authenticate", "Bearer realm=\"schedlens\"");
    String raw = exchange.getRequestURI().getRawQuery();
    String here = exchange.getRequestURI().getRawPath() + (raw == null ? "" : "?" + raw);
    html(exchange, 401, Login.form(here, false));
    return false;
  }

  /** {@code /login}: the form (GET), the token posted from it (POST). */
  private void login(HttpExchange exchange) throws IOException {
    if (exchange.getRequestMethod().equals("GET")) {
      String next;
      try {
        next = TimelineFilters.query(exchange.getRequestURI()).get("next");
      } catch (IllegalArgumentException e) {
        next = "/";
      }
      html(exchange, 200, Login.form(next, false));
      return;
    }
    if (!exchange.getRequestMethod().equals("POST")) {
      html(exchange, 405, Html.problem("Method not allowed", "/login answers GET and POST."));
      return;
    }
    if (SameSite.crossSite(exchange)) {
      html(exchange, 403, Html.problem("Forbidden", "A login must come from these pages."));
      return;
    }
    String client = clientAddress(exchange);
    Duration wait = backoff.waitOf(client);
    if (!wait.isZero()) {
      exchange.getResponseHeaders().set("Retry-After", Long.toString(wait.toSeconds() + 1));
      html(
          exchange,
          429,
          Html.problem(
              "Too many wrong tokens",
              "Wait " + (wait.toSeconds() + 1) + " s before the next try from this address."));
      return;
    }
    byte[] body = exchange.getRequestBody().readNBytes(Login.MAX_BODY_BYTES + 1);
    if (body.length > Login.MAX_BODY_BYTES) {
      html(exchange, 413, Html.problem("Too large", "A login form is a token and a page."));
      return;
    }
    Map<String, String> form;
    try {
      form = Login.fields(new String(body, StandardCharsets.UTF_8));
    } catch (IllegalArgumentException e) {
      html(exchange, 400, Html.problem("Bad request", "The form is not URL-encoded."));
      return;
    }
    String given = form.getOrDefault("token", "");
    String next = Login.safeNext(form.get("next"));
    if (token != null) {
      if (!BearerToken.authorizes("Bearer " + given, token)) {
        backoff.failed(client);
        html(exchange, 401, Login.form(next, true));
        return;
      }
      backoff.succeeded(client);
      exchange.getResponseHeaders().add("Set-Cookie", sessions.cookie(sessions.issue()));
    }
    exchange.getResponseHeaders().set("Location", next);
    exchange.sendResponseHeaders(303, -1);
    exchange.close();
  }

  /** {@code /logout}: a button (GET), the session cleared (POST). */
  private void logout(HttpExchange exchange) throws IOException {
    if (exchange.getRequestMethod().equals("GET")) {
      html(exchange, 200, Login.logoutForm());
      return;
    }
    if (!exchange.getRequestMethod().equals("POST")) {
      html(exchange, 405, Html.problem("Method not allowed", "/logout answers GET and POST."));
      return;
    }
    if (SameSite.crossSite(exchange)) {
      html(exchange, 403, Html.problem("Forbidden", "A logout must come from these pages."));
      return;
    }
    exchange.getResponseHeaders().add("Set-Cookie", Sessions.cleared());
    exchange.getResponseHeaders().set("Location", Login.PATH);
    exchange.sendResponseHeaders(303, -1);
    exchange.close();
  }

  /** The client's address: the proxy's header where one is in front, else the connection's. */
  private String clientAddress(HttpExchange exchange) {
    if (access.clientAddressHeader() != null) {
      String forwarded = exchange.getRequestHeaders().getFirst(access.clientAddressHeader());
      if (forwarded != null && !forwarded.isBlank()) {
        String[] hops = forwarded.split(",");
        return hops[hops.length - 1].strip();
      }
    }
    return exchange.getRemoteAddress() == null
        ? "unknown"
        : exchange.getRemoteAddress().getAddress().getHostAddress();
  }

  private static String[] segments(String rawPath) {
    String p = rawPath == null ? "/" : rawPath;
    while (p.startsWith("/")) {
      p = p.substring(1);
    }
    while (p.endsWith("/")) {
      p = p.substring(0, p.length() - 1);
    }
    return p.isEmpty() ? new String[0] : p.split("/", -1);
  }

  /** A path segment, decoded; a malformed escape is a bad request (400), said without detail. */
  private static String decode(String s) {
    try {
      return URLDecoder.decode(s.replace("+", "%2B"), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("the address has a malformed % escape");
    }
  }

  private static void html(HttpExchange exchange, int status, String body) throws IOException {
    exchange.getResponseHeaders().set("Cache-Control", "no-store");
    exchange.getResponseHeaders().set("X-Content-Type-Options", "nosniff");
    exchange
        .getResponseHeaders()
        .set(
            "Content-Security-Policy",
            "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; form-action 'self'");
    HttpEndpoint.respond(exchange, status, "text/html", body); // adds the charset
  }
}
