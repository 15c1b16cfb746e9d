#!/usr/bin/env python3
"""Writes grafana/dashboards/*.json, the schedlens dashboards.

The JSON files are what Grafana loads and what the tests check; this script only keeps their
layout, ids and variables consistent. Edit here, run `python3 grafana/generate_dashboards.py`, and
commit both. (No third-party module: plain json.)
"""
import json
import os
import sys

OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dashboards")
DS = {"type": "prometheus", "uid": "${datasource}"}

POD = 'namespace=~"$namespace", priority_class=~"$priority_class", arm=~"$arm"'
# The Kafka cluster of this release: the chart's PodMonitor copies the brokers' and the exporter's
# strimzi.io/cluster pod label onto their series, and renders the variable from its clusterName.
KAFKA = 'strimzi_io_cluster="$kafka_cluster"'
KAFKA_VAR = {"type": "constant", "name": "kafka_cluster", "label": "Kafka cluster", "hide": 2,
             "query": "schedlens", "current": {"text": "schedlens", "value": "schedlens"},
             "description": "The Strimzi Kafka cluster whose brokers the Kafka panels show (its "
                            "strimzi_io_cluster label)."}
# The Prometheus "cluster" label, as kube-prometheus-stack's dashboards select it: a hidden variable
# from schedlens_build_info's cluster values (the external or target label a multi-cluster
# Prometheus or Thanos adds); every query matches cluster="$cluster", which is cluster="" (series
# without the label) where there is none. The chart shows it with dashboards.multicluster.
CLUSTER = 'cluster="$cluster"'
CLUSTER_VAR = {"type": "query", "name": "cluster", "hide": 2, "label": "Cluster", "datasource": DS,
               "query": {"query": "label_values(schedlens_build_info, cluster)", "refId": "cluster"},
               "definition": "label_values(schedlens_build_info, cluster)",
               "current": {}, "refresh": 2, "sort": 1, "includeAll": False, "multi": False,
               "description": "The cluster whose schedlens this is, where one Prometheus holds "
                              "several (the cluster label); empty where there is no such label."}
API = "${api_url}/api/pods"
WORKLOADS_API = "${api_url}/api/workloads"
# The timeline pages, for people: the index filtered like the panel (a browser-reachable URL).
PAGES = "${schedlens_url}"


class Board:
    def __init__(self):
        self.panels = []
        self.x = 0
        self.y = 0
        self.row_h = 0

    def row(self, title):
        self._newline()
        self.panels.append({"type": "row", "title": title, "collapsed": False,
                            "gridPos": {"h": 1, "w": 24, "x": 0, "y": self.y}, "panels": []})
        self.y += 1

    def _newline(self):
        if self.x:
            self.y += self.row_h
            self.x = 0
            self.row_h = 0

    def add(self, panel, w=12, h=8):
        if self.x + w > 24:
            self._newline()
        panel["gridPos"] = {"h": h, "w": w, "x": self.x, "y": self.y}
        self.x += w
        self.row_h = max(self.row_h, h)
        self.panels.append(panel)

    def finish(self):
        for i, p in enumerate(self.panels, start=1):
            p["id"] = i
        return self.panels


# Words in PromQL that are neither metrics nor functions; after the grouping ones comes a label list.
KEYWORDS = {"and", "or", "unless", "bool", "offset", "by", "without", "on", "ignoring",
            "group_left", "group_right", "inf", "nan"}
GROUPING = {"by", "without", "on", "ignoring", "group_left", "group_right"}
# Aggregation operators, which may be followed by "by (...)" before their "(".
AGGREGATORS = {"sum", "min", "max", "avg", "count", "stddev", "stdvar", "topk", "bottomk",
               "quantile", "count_values", "group", "limitk", "limit_ratio"}


def with_cluster(expr):
    """expr with cluster="$cluster" in every vector selector: after the metric name's "{", or as a
    label set of its own after a bare metric name. Strings, label sets and ranges are copied."""
    out, i, n = [], 0, len(expr)

    def skip_to(close, j):
        depth = 0
        while j < n:
            c = expr[j]
            if c == '"':
                j = expr.index('"', j + 1) + 1
                continue
            if c == close and depth == 0:
                return j + 1
            if c == {"]": "[", "}": "{", ")": "("}[close]:
                depth += 1
            elif c == close:
                depth -= 1
            j += 1
        raise ValueError("unbalanced " + expr)

    while i < n:
        c = expr[i]
        if c == '"':
            j = expr.index('"', i + 1) + 1
            out.append(expr[i:j]); i = j
        elif c == "[":
            j = skip_to("]", i + 1)
            out.append(expr[i:j]); i = j
        elif c == "{":
            # a selector without a metric name
            j = skip_to("}", i + 1)
            inner = expr[i + 1:j - 1].strip()
            out.append("{" + (inner + ", " if inner else "") + CLUSTER + "}"); i = j
        elif c.isalpha() or c in "_:":
            j = i
            while j < n and (expr[j].isalnum() or expr[j] in "_:"):
                j += 1
            word = expr[i:j]
            k = j
            while k < n and expr[k] == " ":
                k += 1
            nxt = expr[k] if k < n else ""
            if word in GROUPING and nxt == "(":
                e = skip_to(")", k + 1)
                out.append(expr[i:e]); i = e
            elif word.lower() in KEYWORDS or word in AGGREGATORS or nxt == "(":
                out.append(word); i = j
            elif nxt == "{":
                e = skip_to("}", k + 1)
                inner = expr[k + 1:e - 1].strip()
                out.append(word + expr[j:k] + "{" + (inner + ", " if inner else "") + CLUSTER + "}")
                i = e
            else:
                out.append(word + "{" + CLUSTER + "}"); i = j
        elif c.isdigit() or c == ".":
            j = i
            while j < n and (expr[j].isalnum() or expr[j] in ".+-" and expr[j - 1] in "eE"
                             or expr[j] == "."):
                j += 1
            out.append(expr[i:j]); i = j
        else:
            out.append(c); i += 1
    return "".join(out)


def target(expr, legend="", ref="A", instant=False, fmt=None):
    t = {"datasource": DS, "refId": ref, "expr": with_cluster(expr), "legendFormat": legend or "__auto",
         "range": not instant, "instant": instant}
    if fmt:
        t["format"] = fmt
    return t


def links(*pairs):
    return [{"title": title, "url": url, "targetBlank": True} for title, url in pairs]


def page_and_api(title, page_query, api_url):
    """A link to the timeline pages' index for people, then the same as JSON for scripts."""
    return links((title, PAGES + "/" + page_query), (title + " (JSON)", api_url))


def timeseries(title, desc, targets, unit="short", links_=None, stack=False, min0=True):
    p = {"type": "timeseries", "title": title, "description": desc, "datasource": DS,
         "targets": targets,
         "fieldConfig": {"defaults": {"unit": unit, "links": links_ or [],
                                      "custom": {"drawStyle": "line", "lineWidth": 1,
                                                 "fillOpacity": 10 if stack else 0,
                                                 "stacking": {"mode": "normal" if stack else "none"},
                                                 "spanNulls": False}},
                         "overrides": []},
         "options": {"legend": {"displayMode": "table", "placement": "bottom",
                                "calcs": ["lastNotNull", "max"]},
                     "tooltip": {"mode": "multi", "sort": "desc"}}}
    if min0:
        p["fieldConfig"]["defaults"]["min"] = 0
    return p


def stat(title, desc, targets, unit="short", links_=None, thresholds=None):
    steps = [{"color": "green", "value": None}] + [
        {"color": c, "value": v} for v, c in (thresholds or [])]
    return {"type": "stat", "title": title, "description": desc, "datasource": DS,
            "targets": targets,
            "fieldConfig": {"defaults": {"unit": unit, "links": links_ or [],
                                         "thresholds": {"mode": "absolute", "steps": steps}},
                            "overrides": []},
            "options": {"reduceOptions": {"calcs": ["lastNotNull"], "fields": "", "values": False},
                        "colorMode": "background", "graphMode": "area", "textMode": "value_and_name"}}


def heatmap(title, desc, metric, selector):
    return {"type": "heatmap", "title": title, "description": desc, "datasource": DS,
            "targets": [target(
                f"sum by (le) (increase({metric}_bucket{{{selector}}}[$__rate_interval]))",
                "{{le}}", fmt="heatmap")],
            "options": {"calculate": False, "yAxis": {"unit": "s"},
                        "cellGap": 1, "color": {"scheme": "Oranges", "mode": "scheme"},
                        "tooltip": {"show": True, "yHistogram": True}},
            "fieldConfig": {"defaults": {}, "overrides": []}}


def bars(title, desc, targets, unit="s"):
    """One bar per arm/repeat over the dashboard's time range (instant queries over $__range)."""
    return {"type": "barchart", "title": title, "description": desc, "datasource": DS,
            "targets": targets,
            "transformations": [{"id": "reduce", "options": {"reducers": ["lastNotNull"]}}],
            "fieldConfig": {"defaults": {"unit": unit, "min": 0}, "overrides": []},
            "options": {"orientation": "horizontal", "showValue": "always",
                        "legend": {"displayMode": "list", "placement": "bottom"}}}


def quantiles(metric, selector, by, qs=(0.5, 0.95)):
    return [target(
        f"histogram_quantile({q}, sum by ({by}, le) (rate({metric}_bucket{{{selector}}}[$__rate_interval])))",
        f"p{int(q * 100)} {{{{{by.split(', ')[-1]}}}}}", ref=chr(65 + i))
        for i, q in enumerate(qs)]


def variables(extra=(), pod_vars=True):
    v = [{"type": "datasource", "name": "datasource", "label": "Prometheus", "query": "prometheus",
          "current": {}, "hide": 0, "refresh": 1}, CLUSTER_VAR]
    if pod_vars:
        src = "{__name__=~\"schedlens_pods_finished_total|schedlens_pods_pending\", " + CLUSTER + "}"
        for name, label in (("namespace", "Namespace"), ("priority_class", "Priority class"),
                            ("arm", "Arm")):
            v.append({"type": "query", "name": name, "label": label, "datasource": DS,
                      "query": {"query": f"label_values({src}, {name})", "refId": name},
                      "definition": f"label_values({src}, {name})",
                      "includeAll": True, "multi": True, "allValue": ".*",
                      "current": {"text": "All", "value": "$__all"}, "refresh": 2, "sort": 1})
    v.extend(extra)
    return v


API_VAR = {"type": "textbox", "name": "api_url", "label": "schedlens API",
           "query": "http://schedlens-streams.schedlens:9471",
           "current": {"text": "http://schedlens-streams.schedlens:9471",
                       "value": "http://schedlens-streams.schedlens:9471"},
           "description": "Base URL of the streams app's API, for the JSON data links."}

PAGES_VAR = {"type": "textbox", "name": "schedlens_url", "label": "schedlens pages",
             "query": "http://localhost:9471",
             "current": {"text": "http://localhost:9471", "value": "http://localhost:9471"},
             "description": "The timeline pages as a browser reaches them: the Ingress host, or "
                            "http://localhost:9471 with kubectl port-forward (see the README)."}


def dashboard(uid, title, desc, panels, templating, annotations=(), tags=()):
    return {"uid": uid, "title": title, "description": desc, "tags": ["schedlens", *tags],
            "editable": True, "schemaVersion": 39, "version": 1, "graphTooltip": 1,
            "time": {"from": "now-6h", "to": "now"}, "refresh": "30s", "timezone": "",
            "templating": {"list": templating},
            "annotations": {"list": [
                {"builtIn": 1, "datasource": {"type": "grafana", "uid": "-- Grafana --"},
                 "enable": True, "hide": True, "iconColor": "rgba(0, 211, 255, 1)",
                 "name": "Annotations & Alerts", "type": "dashboard"}, *annotations]},
            "links": [{"title": "schedlens dashboards", "type": "dashboards", "tags": ["schedlens"],
                       "asDropdown": True},
                      *([{"title": "Timeline pages: pending, starving, preempted", "type": "link",
                          "url": PAGES + "/", "targetBlank": True, "icon": "external link"}]
                        if any(v.get("name") == "schedlens_url" for v in templating) else [])],
            "panels": panels}


def oncall():
    b = Board()
    pending_link = page_and_api("Pending pods of this class (timelines)",
                                "?namespace=${__field.labels.namespace}"
                                "&priorityClass=${__field.labels.priority_class}",
                                API + "?state=pending&namespace=${__field.labels.namespace}"
                                "&priorityClass=${__field.labels.priority_class}")
    b.row("Waiting now")
    b.add(stat("Pods pending now", "Pods created and not yet scheduled, by priority class.",
               [target(f"sum by (priority_class) (schedlens_pods_pending{{{POD}}})",
                       "{{priority_class}}")], thresholds=[(1, "orange"), (10, "red")]), w=6)
    b.add(stat("Starving pods", "Pods pending past starvation.pending, or of a workload preempted "
               "starvation.preemptions times without completing.",
               [target(f"sum by (priority_class) (schedlens_pods_starving{{{POD}}})",
                       "{{priority_class}}")], thresholds=[(1, "red")],
               links_=page_and_api("Starving pods (timelines)", "",
                                   API + "?state=starving")), w=6)
    b.add(timeseries("Pods pending by priority class", "Pods pending now, per namespace and class.",
                     [target(f"sum by (namespace, priority_class) (schedlens_pods_pending{{{POD}}})",
                             "{{namespace}} {{priority_class}}")], links_=pending_link), w=12)
    b.add(timeseries("Oldest pending age by priority class",
                     "How long the oldest pod pending now has waited (event time).",
                     [target(f"max by (namespace, priority_class) "
                             f"(schedlens_oldest_pending_age_seconds{{{POD}}})",
                             "{{namespace}} {{priority_class}}")], unit="s", links_=pending_link),
          w=12)
    b.add(timeseries("Starving pods by priority class", "Pods starving now.",
                     [target(f"sum by (namespace, priority_class) (schedlens_pods_starving{{{POD}}})",
                             "{{namespace}} {{priority_class}}")],
                     links_=page_and_api("Starving pods of this class (timelines)",
                                         "?namespace=${__field.labels.namespace}"
                                         "&priorityClass=${__field.labels.priority_class}",
                                         API + "?state=starving&namespace=${__field.labels.namespace}"
                                         "&priorityClass=${__field.labels.priority_class}")), w=12)
    b.row("How long pods wait")
    b.add(timeseries("Pending duration p50 / p95 by class",
                     "Creation to scheduling, of pods scheduled in the interval (event time).",
                     quantiles("schedlens_pending_duration_seconds", POD, "priority_class"), unit="s"))
    b.add(heatmap("Pending duration", "Distribution of pending durations.",
                  "schedlens_pending_duration_seconds", POD))
    b.add(timeseries("Time to Ready p50 / p95 by class",
                     "Creation to Ready (for servers: model loaded). Running is not Ready.",
                     quantiles("schedlens_time_to_ready_seconds", POD, "priority_class"), unit="s"))
    b.add(heatmap("Time to Ready", "Distribution of creation to Ready.",
                  "schedlens_time_to_ready_seconds", POD))
    b.add(timeseries("Time to first OK request p50 / p95 by class",
                     "Creation to the first successful request after Ready: what users feel.",
                     quantiles("schedlens_time_to_first_ok_request_seconds", POD, "priority_class"),
                     unit="s"), w=24)
    b.row("Preemption and GPU cost")
    pre = 'namespace=~"$namespace", victim_priority_class=~"$priority_class", arm=~"$arm"'
    b.add(timeseries("Preemptions per minute, victim class → preemptor class",
                     "Pods preempted by the scheduler to make room for higher-priority pods.",
                     [target("sum by (namespace, victim_priority_class, preemptor_priority_class) "
                             f"(rate(schedlens_preemptions_total{{{pre}}}[$__rate_interval])) * 60",
                             "{{victim_priority_class}} → {{preemptor_priority_class}}")],
                     unit="short", stack=True,
                     links_=page_and_api("Preempted pods of this class (timelines)",
                                         "?namespace=${__field.labels.namespace}"
                                         "&priorityClass=${__field.labels.victim_priority_class}",
                                         API + "?state=preempted&namespace=${__field.labels.namespace}"
                                         "&priorityClass=${__field.labels.victim_priority_class}")))
    b.add(timeseries("Wasted GPU-hours by class and cause",
                     "GPU time lost since the last checkpoint when a pod was ended early.",
                     [target("sum by (priority_class, cause) "
                             f"(increase(schedlens_wasted_gpu_seconds_total{{{POD}}}[$__rate_interval])) / 3600",
                             "{{priority_class}} {{cause}}")], unit="h", stack=True))
    b.add(timeseries("Allocated and allocated-but-idle GPU-hours by class",
                     "Of pods that finished: GPU time allocated, the part DCGM saw idle, and the part "
                     "no DCGM sample covers (missing data, not idle). Allocation is not utilisation.",
                     [target("sum by (priority_class) "
                             f"(increase(schedlens_allocated_gpu_seconds_total{{{POD}}}[$__rate_interval])) / 3600",
                             "allocated {{priority_class}}"),
                      target("sum by (priority_class) "
                             f"(increase(schedlens_idle_allocated_gpu_seconds_total{{{POD}}}[$__rate_interval])) / 3600",
                             "idle {{priority_class}}", ref="B"),
                      target("sum by (priority_class) "
                             f"(increase(schedlens_unsampled_gpu_seconds_total{{{POD}}}[$__rate_interval])) / 3600",
                             "unsampled {{priority_class}}", ref="C")], unit="h"))
    b.add(timeseries("GPU-hours held waiting for gangs by class and workload kind",
                     "GPUs held by the running pods of a gang (JobSet, TrainJob, LeaderWorkerSet "
                     "group, RayCluster, RayJob) while another pod of the same gang was pending: "
                     "allocated, idle by construction. Counted as the wait grows.",
                     [target("sum by (namespace, workload_kind, priority_class) "
                             f"(increase(schedlens_gang_wait_gpu_seconds_total{{{POD}}}[$__rate_interval])) / 3600",
                             "{{namespace}} {{workload_kind}} {{priority_class}}")], unit="h", stack=True,
                     links_=page_and_api("Workloads of this kind (timelines)",
                                         "?namespace=${__field.labels.namespace}",
                                         WORKLOADS_API + "?namespace=${__field.labels.namespace}"
                                         "&kind=${__field.labels.workload_kind}")))
    b.add(timeseries("Kueue admission wait p95 by queue and class",
                     "How long workloads waited in a Kueue LocalQueue for each admission (from the "
                     "Workload's creation or its re-queueing to Admitted). Kueue keeps a queued Job "
                     "suspended, without pods: pod Pending does not show this wait. Class: the "
                     "WorkloadPriorityClass.",
                     [target("histogram_quantile(0.95, sum by (namespace, queue, priority_class, le) "
                             "(rate(schedlens_queue_wait_seconds_bucket{namespace=~\"$namespace\", "
                             "priority_class=~\"$priority_class\"}[$__rate_interval])))",
                             "{{namespace}}/{{queue}} {{priority_class}}")], unit="s"), w=12)
    b.add(timeseries("Kueue preemptions and evictions by reason",
                     "Workloads Kueue evicted: preempted (InClusterQueue: for a higher priority in "
                     "the same ClusterQueue; InCohortReclamation: a cohort member took back the "
                     "quota this one borrowed) or evicted for another reason (PodsReadyTimeout, "
                     "AdmissionCheck, …). Each ended its running pods: see their wasted GPU work.",
                     [target("sum by (namespace, queue, reason, preemption_reason) "
                             "(increase(schedlens_queue_evictions_total{namespace=~\"$namespace\"}"
                             "[$__rate_interval]))",
                             "{{namespace}}/{{queue}} {{reason}} {{preemption_reason}}")],
                     stack=True), w=12)
    b.add(timeseries("GPU-equivalent hours by GPU resource",
                     "Of pods that finished: GPU time allocated in GPU-equivalents (devices x the "
                     "part of a physical GPU each is x time: an H100's 1g.10gb MIG slice is 1/7), by "
                     "the resource requested (nvidia.com/gpu, nvidia.com/mig-*, a shared one). "
                     "shared=true: time-sliced or MPS replicas whose replicas per GPU are not known, "
                     "counted as whole GPUs (an upper bound).",
                     [target("sum by (resource, shared) "
                             "(increase(schedlens_gpu_equivalent_seconds_total{namespace=~\"$namespace\"}"
                             "[$__rate_interval])) / 3600",
                             "{{resource}} shared={{shared}}")], unit="h", stack=True), w=24)
    b.row("What users feel")
    b.add(timeseries("Request SLO-breach ratio by class",
                     "Share of requests slower than the SLO of their service or class.",
                     [target(f"sum by (priority_class) (rate(schedlens_slo_breaches_total{{{POD}}}[$__rate_interval]))"
                             f" / sum by (priority_class) (rate(schedlens_requests_total{{{POD}}}[$__rate_interval]))",
                             "{{priority_class}}")], unit="percentunit"), w=8)
    b.add(timeseries("Error-budget burn rate (1h and 5m windows)",
                     "Latency-SLO breach ratio divided by the 1 % budget: 1 spends the budget in "
                     "30 days, 14.4 pages (SchedlensLatencyBudgetBurnFast).",
                     [target('schedlens:slo_breach_ratio:rate1h{namespace=~"$namespace", '
                             'priority_class=~"$priority_class"} / 0.01',
                             "1h {{priority_class}}"),
                      target('schedlens:slo_breach_ratio:rate5m{namespace=~"$namespace", '
                             'priority_class=~"$priority_class"} / 0.01',
                             "5m {{priority_class}}", ref="B")], unit="x"), w=8)
    b.add(timeseries("Request error ratio by class", "HTTP 5xx or no response.",
                     [target(f"sum by (priority_class) (rate(schedlens_request_errors_total{{{POD}}}[$__rate_interval]))"
                             f" / sum by (priority_class) (rate(schedlens_requests_total{{{POD}}}[$__rate_interval]))",
                             "{{priority_class}}")], unit="percentunit"), w=8)
    b.row("Service continuity")
    b.add(stat("Serving workloads without a Ready replica now",
               "Deployments and StatefulSets that lost their last Ready replica and still want "
               "one (SchedlensServiceInterrupted pages after 2 minutes).",
               [target(f"sum by (priority_class) (schedlens_workloads_interrupted{{{POD}, "
                       'workload_kind=~"Deployment|StatefulSet"})', "{{priority_class}}")],
               thresholds=[(1, "red")],
               links_=page_and_api("Workloads interrupted now (timelines)", "",
                                   WORKLOADS_API + "?interrupted=true")), w=6)
    b.add(stat("Longest interruption going on",
               "How long the longest service interruption going on now has lasted.",
               [target(f"max by (priority_class) (schedlens_workload_interruption_age_seconds{{{POD}}})",
                       "{{priority_class}}")], unit="s",
               thresholds=[(60, "orange"), (120, "red")]), w=6)
    b.add(stat("Workloads degraded now",
               "Workloads with some but fewer Ready replicas than wanted, since losing one.",
               [target(f"sum by (priority_class) (schedlens_workloads_degraded{{{POD}}})",
                       "{{priority_class}}")], thresholds=[(1, "orange")]), w=12)
    b.add(timeseries("Service interruption, seconds per minute, by workload kind and class",
                     "Time workloads had no Ready replica while they wanted one (counted when the "
                     "interruption ends), from the loss of a Ready replica: a drain, a node "
                     "failure, a preemption, a rollout. Cold starts are not interruptions.",
                     [target("sum by (workload_kind, priority_class) "
                             f"(rate(schedlens_workload_interruption_seconds_total{{{POD}}}[$__rate_interval])) * 60",
                             "{{workload_kind}} {{priority_class}}")], unit="s", stack=True,
                     links_=page_and_api("Workloads interrupted now (timelines)",
                                         "?namespace=${__field.labels.namespace}",
                                         WORKLOADS_API + "?interrupted=true"
                                         "&namespace=${__field.labels.namespace}")))
    b.add(timeseries("Recovery p95 by cause: disruption → replacement Ready",
                     "How long a workload took to get a Ready replacement after a pod was ended "
                     "early, by what ended it.",
                     [target("histogram_quantile(0.95, sum by (cause, le) "
                             "(rate(schedlens_workload_recovery_seconds_bucket"
                             f"{{{POD}, stage=\"ready\"}}[$__rate_interval])))",
                             "{{cause}}")], unit="s"))
    annotations = [{"name": "Preemptions", "datasource": DS, "enable": True,
                    "iconColor": "red",
                    "expr": with_cluster(
                        "sum by (victim_priority_class, preemptor_priority_class) "
                        "(increase(schedlens_preemptions_total{namespace=~\"$namespace\", "
                        "arm=~\"$arm\"}[1m])) > 0"),
                    "step": "60s", "titleFormat": "Preemption",
                    "textFormat": "{{victim_priority_class}} preempted by {{preemptor_priority_class}}"
                                  " · <a href=\"" + PAGES + "/?priorityClass={{victim_priority_class}}\""
                                  " target=\"_blank\">the victims' timelines</a>",
                    "useValueForTime": False}]
    return dashboard("schedlens-oncall", "GPU priority & preemption",
                     "Who waits, who is preempted, what it costs and whether users notice.",
                     b.finish(), variables([API_VAR, PAGES_VAR]), annotations, ["on-call"])


def experiment():
    b = Board()
    sel = 'namespace=~"$namespace", arm=~"$arm", arm!=""'
    serving = f'{sel}, workload_kind=~"$serving_kind"'
    batch = f'{sel}, workload_kind=~"$batch_kind"'
    by = "arm, repeat"
    legend = "{{arm}} #{{repeat}}"

    def q95(metric, s):
        return target(f"histogram_quantile(0.95, sum by ({by}, le) "
                      f"(increase({metric}_bucket{{{s}}}[$__range])))", legend, instant=True)

    b.row("Serving (interactive) — did users get faster?")
    b.add(bars("Pending p95 of serving pods, per arm and repeat",
               "Creation to scheduling over the time range.",
               [q95("schedlens_pending_duration_seconds", serving)]), w=8)
    b.add(bars("Time to Ready p95 of serving pods, per arm and repeat", "Creation to Ready.",
               [q95("schedlens_time_to_ready_seconds", serving)]), w=8)
    b.add(bars("Time to first OK request p95, per arm and repeat",
               "Creation to the first successful request after Ready.",
               [q95("schedlens_time_to_first_ok_request_seconds", serving)]), w=8)
    b.add(bars("SLO-breach ratio of serving pods, per arm and repeat",
               "Requests slower than their SLO, over requests.",
               [target(f"sum by ({by}) (increase(schedlens_slo_breaches_total{{{serving}}}[$__range]))"
                       f" / sum by ({by}) (increase(schedlens_requests_total{{{serving}}}[$__range]))",
                       legend, instant=True)], unit="percentunit"), w=12)
    b.add(timeseries("Pending p95 of serving pods over time, by arm",
                     "The arms side by side over the run.",
                     [target(f"histogram_quantile(0.95, sum by (arm, le) (rate("
                             f"schedlens_pending_duration_seconds_bucket{{{serving}}}[$__rate_interval])))",
                             "{{arm}}")], unit="s"), w=12)
    b.row("Batch — at what cost, and does anything starve?")
    b.add(bars("Pending p95 of batch pods, per arm and repeat", "Creation to scheduling.",
               [q95("schedlens_pending_duration_seconds", batch)]), w=8)
    b.add(bars("Wasted GPU-hours of batch pods, per arm and repeat",
               "GPU time lost since the last checkpoint by pods ended early.",
               [target(f"sum by ({by}) (increase(schedlens_wasted_gpu_seconds_total{{{batch}}}[$__range])) / 3600",
                       legend, instant=True)], unit="h"), w=8)
    b.add(bars("Preemptions, per arm and repeat", "Victims of the scheduler's preemption.",
               [target(f"sum by ({by}) (increase(schedlens_preemptions_total{{{sel}}}[$__range]))",
                       legend, instant=True)], unit="short"), w=8)
    b.add(bars("Most pods starving at once, per arm and repeat",
               "Peak of pods starving (pending too long, or preempted too often).",
               [target(f"max_over_time((sum by ({by}) (schedlens_pods_starving{{{sel}}}))[$__range:1m])",
                       legend, instant=True)], unit="short"), w=12)
    b.row("Service continuity — what a disruption costs users and batch work")
    b.add(bars("Service interruption per arm and repeat, by workload kind",
               "Seconds without a Ready replica while one was wanted, from the loss of one "
               "(drain, node failure, preemption, rollout).",
               [target(f"sum by ({by}, workload_kind) "
                       f"(increase(schedlens_workload_interruption_seconds_total{{{sel}}}[$__range]))",
                       "{{arm}} #{{repeat}} {{workload_kind}}", instant=True)], unit="s"), w=12)
    b.add(bars("Pods finished by outcome and arm", "Succeeded, Preempted, Failed, Deleted, ...",
               [target(f"sum by (arm, outcome) (increase(schedlens_pods_finished_total{{{sel}}}[$__range]))",
                       "{{arm}} {{outcome}}", instant=True)], unit="short"), w=12)
    extra = [
        {"type": "custom", "name": "serving_kind", "label": "Serving workloads",
         "query": "Deployment,StatefulSet", "includeAll": True, "multi": True,
         "allValue": "Deployment|StatefulSet",
         "current": {"text": "Deployment", "value": "Deployment"},
         "description": "Workload kind of the serving (interactive) pods. In the control arm "
                        "pods carry no PriorityClass, so the arms are compared by workload."},
        {"type": "custom", "name": "batch_kind", "label": "Batch workloads", "query": "Job",
         "current": {"text": "Job", "value": "Job"}},
    ]
    v = [x for x in variables(extra) if x["name"] != "priority_class"]
    return dashboard("schedlens-experiment", "Experiment: control vs treatment",
                     "The arms of an experiment side by side, per repeat. For the verdict over "
                     "repeats, with spread, use ./schedlens report.", b.finish(), v,
                     tags=["experiment"])


def pipeline():
    b = Board()
    b.row("Flow")
    b.add(timeseries("Collector: records produced per topic", "Acknowledged by Kafka.",
                     [target("sum by (topic) (rate(schedlens_collector_records_produced_total[$__rate_interval]))",
                             "{{topic}}")], unit="ops"))
    b.add(timeseries("Streams app: records in and out per topic", "Read and written by the streams app.",
                     [target("sum by (topic) (rate(schedlens_records_in_total[$__rate_interval]))",
                             "in {{topic}}"),
                      target("sum by (topic) (rate(schedlens_records_out_total[$__rate_interval]))",
                             "out {{topic}}", ref="B")], unit="ops"))
    b.add(timeseries("Consumer lag per topic", "Records waiting in the streams app's input partitions.",
                     [target("sum by (topic) (schedlens_consumer_lag_records)", "{{topic}}")]))
    b.add(timeseries("Event-to-metric delay p50 / p99 per topic",
                     "Wall-clock time from an input's event time to its processing.",
                     quantiles("schedlens_event_to_metric_lag_seconds", "", "topic", (0.5, 0.99)),
                     unit="s"))
    b.row("Losses")
    b.add(timeseries("Dead letters by reason", "Inputs that could not be used (streams app and collector).",
                     [target("sum by (reason) (rate(schedlens_dead_letters_total[$__rate_interval]))",
                             "streams {{reason}}"),
                      target("sum by (reason) (rate(schedlens_collector_dead_letters_total[$__rate_interval]))",
                             "collector {{reason}}", ref="B")], unit="ops",
                     links_=[]), w=8)
    b.add(timeseries("Late records by kind", "Inputs after their grace period.",
                     [target("sum by (kind) (rate(schedlens_late_records_total[$__rate_interval]))",
                             "{{kind}}")], unit="ops"), w=8)
    b.add(timeseries("Collector buffer fill", "Records buffered for Kafka / capacity; full means backpressure.",
                     [target("sum(schedlens_collector_buffer_records) / sum(schedlens_collector_buffer_capacity_records)",
                             "buffer")], unit="percentunit"), w=8)
    b.row("Collector health")
    b.add(timeseries("dcgm-exporter scrape up by target", "1: the last scrape succeeded.",
                     [target("min by (target) (schedlens_collector_scrape_up)", "{{target}}")]), w=8)
    b.add(timeseries("Scrape duration by target", "Duration of the last scrape.",
                     [target("max by (target) (schedlens_collector_scrape_duration_seconds)", "{{target}}")],
                     unit="s"), w=8)
    b.add(timeseries("Scrapes by result", "ok, timeout, http-error, parse-error, io-error, skipped-backpressure.",
                     [target("sum by (result) (rate(schedlens_collector_scrapes_total[$__rate_interval]))",
                             "{{result}}")], unit="ops"), w=8)
    b.add(timeseries("Kafka reachable, informers synced", "1 is healthy.",
                     [target("min(schedlens_collector_kafka_up)", "kafka"),
                      target("min by (resource) (schedlens_collector_informer_synced)",
                             "informer {{resource}}", ref="B")]), w=12)
    b.add(timeseries("Targets up", "Prometheus' own view of the schedlens processes.",
                     [target('up{job=~"schedlens-.*"}', "{{job}} {{instance}}")]), w=12)
    b.row("Processes")
    b.add(timeseries("Heap in use after GC", "Old generation after the last collection, per process.",
                     [target('sum by (job, instance) (jvm_memory_pool_collection_used_bytes{job=~"schedlens-.*",pool=~".*Old Gen.*|Tenured Gen"})',
                             "{{job}} {{instance}}")], unit="bytes"), w=8)
    b.add(timeseries("CPU", "Cores busy per process.",
                     [target('rate(process_cpu_seconds_total{job=~"schedlens-.*"}[$__rate_interval])',
                             "{{job}} {{instance}}")], unit="short"), w=8)
    b.add(stat("Running builds", "Version and commit of every process (schedlens_build_info).",
               [target('count by (version, commit) (schedlens_build_info)', "{{version}} {{commit}}",
                       instant=True)]), w=8)
    # Strimzi's kafkaExporter and the brokers' JMX exporter (the chart's Kafka): names from the
    # rules in deploy/helm/schedlens/files/kafka-metrics-config.yml.
    b.row("Kafka brokers")
    b.add(stat("Under-replicated partitions", "Partitions with fewer in-sync replicas than replicas: a broker is down or slow.",
               [target(f'sum(kafka_server_replicamanager_underreplicatedpartitions{{{KAFKA}}})', "", instant=True)],
               thresholds=[(1, "red")]), w=6)
    b.add(stat("Offline partitions", "Partitions without a leader: writes to them fail.",
               [target(f'max(kafka_controller_kafkacontroller_offlinepartitionscount{{{KAFKA}}})', "", instant=True)],
               thresholds=[(1, "red")]), w=6)
    b.add(stat("Active controller", "Exactly one.",
               [target(f'sum(kafka_controller_kafkacontroller_activecontrollercount{{{KAFKA}}})', "", instant=True)],
               thresholds=[(0, "red"), (1, "green"), (2, "red")]), w=6)
    b.add(stat("Brokers", "Brokers the exporter sees.",
               [target(f'max(kafka_brokers{{{KAFKA}}})', "", instant=True)]), w=6)
    b.add(timeseries("Consumer group lag", "Records behind, per schedlens consumer group (kafkaExporter).",
                     [target(f'sum by (consumergroup) (kafka_consumergroup_lag{{{KAFKA}, consumergroup=~"schedlens.*"}})',
                             "{{consumergroup}}")]), w=12)
    b.add(timeseries("Bytes in and out per broker", "From the brokers' JMX metrics.",
                     [target(f'sum by (pod) (rate(kafka_server_brokertopicmetrics_bytesin_total{{{KAFKA}}}[$__rate_interval]))',
                             "in {{pod}}"),
                      target(f'sum by (pod) (rate(kafka_server_brokertopicmetrics_bytesout_total{{{KAFKA}}}[$__rate_interval]))',
                             "out {{pod}}", ref="B")], unit="Bps"), w=12)
    return dashboard("schedlens-pipeline", "schedlens pipeline health",
                     "Is schedlens itself keeping up and losing nothing?", b.finish(),
                     variables([KAFKA_VAR], pod_vars=False), tags=["pipeline"])


def main():
    # an output directory may be given (the test regenerates into a temporary one and compares)
    out = sys.argv[1] if len(sys.argv) > 1 else OUT
    os.makedirs(out, exist_ok=True)
    for name, d in (("gpu-priority-preemption", oncall()), ("experiment", experiment()),
                    ("pipeline-health", pipeline())):
        with open(os.path.join(out, name + ".json"), "w") as f:
            json.dump(d, f, indent=2, ensure_ascii=False)
            f.write("\n")


if __name__ == "__main__":
    main()
