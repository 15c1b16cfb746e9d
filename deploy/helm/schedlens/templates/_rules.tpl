{{- /*
The rule groups of files/prometheus-rules.yaml as the values in rules.* tune them:
- alerts named in rules.disabled are left out;
- each alert gets rules.additionalLabels (its own labels win) and the severity rules.severity names;
- workload alerts (selecting namespace=~".*") select rules.workloadNamespaces instead;
- self-alerts (selecting job="schedlens-streams" or job="schedlens-collector") select this
  release's targets only (its namespace and Service, the labels the Prometheus Operator gives them)
  and carry the release's namespace as label, for Alertmanager's grouping and inhibition;
- each threshold marked "tune" in the file is replaced by its value. A threshold is found by the
  text it has in the file: when the file changes so that the text is gone, rendering fails here
  rather than leaving a value without effect.
*/}}
{{- define "schedlens.rules" -}}
{{- $r := .Values.rules }}
{{- $t := $r.thresholds }}
{{- $fn := include "schedlens.fullname" . }}
{{- $ns := .Release.Namespace }}
{{- $tune := dict
      "SchedlensLatencyBudgetBurnFast" (list "* 0.01)" (printf "* %v)" $r.latencyErrorBudget))
      "SchedlensLatencyBudgetBurnSlow" (list "* 0.01)" (printf "* %v)" $r.latencyErrorBudget))
      "SchedlensPendingTooLong" (list ") > 600" (printf ") > %v" $t.pendingSeconds))
      "SchedlensServiceInterrupted" (list ") > 120" (printf ") > %v" $t.serviceInterruptedSeconds))
      "SchedlensPreemptionStorm" (list "[10m])) > 10" (printf "[10m])) > %v" $t.preemptionsIn10m))
      "SchedlensQueueWaitHigh" (list ") > 1800" (printf ") > %v" $t.queueWaitSeconds))
      "SchedlensGpusAllocatedButIdle" (list "} > 0.5" (printf "} > %v" $t.idleAllocatedGpuRatio))
      "SchedlensPipelineLagging" (list ") > 120" (printf ") > %v" $t.pipelineLagSeconds))
      "SchedlensDeadLettersRising" (list ") > 0.1" (printf ") > %v" $t.deadLettersPerSecond))
      "SchedlensCollectorDeadLettersRising" (list ") > 0.1" (printf ") > %v" $t.deadLettersPerSecond))
      "SchedlensCollectorBufferFilling" (list ") > 0.5" (printf ") > %v" $t.collectorBufferRatio)) }}
{{- $workload := "namespace=~\".*\"" }}
{{- $jobs := dict }}
{{- range $app := list "streams" "collector" }}
{{- $job := printf "job=\"schedlens-%s\"" $app }}
{{- $_ := set $jobs $job (printf "%s, namespace=%q, service=%q" $job $ns (printf "%s-%s" $fn $app)) }}
{{- end }}
{{- $groups := list }}
{{- range $g := (.Files.Get "files/prometheus-rules.yaml" | fromYaml).groups }}
{{- $rules := list }}
{{- range $rule := $g.rules }}
{{- if not $rule.alert }}
{{- $rules = append $rules $rule }}
{{- else if not (get $r.disabled $rule.alert) }}
{{- $expr := $rule.expr }}
{{- $labels := merge (deepCopy ($rule.labels | default dict)) $r.additionalLabels }}
{{- with get $r.severity $rule.alert }}
{{- $_ := set $labels "severity" . }}
{{- end }}
{{- with get $tune $rule.alert }}
{{- if not (contains (first .) $expr) }}
{{- fail (printf "files/prometheus-rules.yaml: %s no longer contains %q, the threshold templates/_rules.tpl replaces" $rule.alert (first .)) }}
{{- end }}
{{- $expr = replace (first .) (last .) $expr }}
{{- end }}
{{- if contains $workload $expr }}
{{- $expr = replace $workload (printf "namespace=~%q" $r.workloadNamespaces) $expr }}
{{- else if contains "job=\"schedlens-" $expr }}
{{- range $job, $scoped := $jobs }}
{{- $expr = replace $job $scoped $expr }}
{{- end }}
{{- $_ := set $labels "namespace" $ns }}
{{- else }}
{{- fail (printf "files/prometheus-rules.yaml: %s selects neither namespace=~\".*\" (a workload alert) nor job=\"schedlens-...\" (a self-alert)" $rule.alert) }}
{{- end }}
{{- $rules = append $rules (merge (dict "expr" $expr "labels" $labels) (omit $rule "expr" "labels")) }}
{{- end }}
{{- end }}
{{- $groups = append $groups (merge (dict "rules" $rules) (omit $g "rules")) }}
{{- end }}
{{- toYaml (dict "groups" $groups) }}
{{- end }}
