{{/*
The release's full name, the prefix of every object's name: fullnameOverride, else the release's
name when it contains the chart's (or nameOverride), else "<release>-schedlens". Release
"schedlens" names its objects schedlens-collector, schedlens-streams, ...; release "staging",
staging-schedlens-collector. Cut at 40 characters so that the longest Service name
(<fullname>-streams-headless) and the StatefulSet's pod names stay DNS labels.
The components' app.kubernetes.io/name (schedlens-collector, schedlens-streams, schedlens-export)
is the same in every release: Prometheus' job label is taken from it, and every selector adds
app.kubernetes.io/instance, the release.
*/}}
{{- define "schedlens.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- $name := .Values.nameOverride | default .Chart.Name -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 40 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 40 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end }}

{{/* The Strimzi Kafka cluster's name: kafka.strimzi.clusterName, else the full name. */}}
{{- define "schedlens.kafkaCluster" -}}
{{- .Values.kafka.strimzi.clusterName | default (include "schedlens.fullname" .) -}}
{{- end }}

{{- define "schedlens.labels" -}}
app.kubernetes.io/part-of: schedlens
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end }}

{{/* Labels of one component: its name, and the common labels. */}}
{{- define "schedlens.componentLabels" -}}
app.kubernetes.io/name: {{ .name }}
{{ include "schedlens.labels" .root }}
{{- end }}

{{/* The label the Prometheus Operator's release selects monitoring objects by. */}}
{{- define "schedlens.monitoringLabels" -}}
{{ include "schedlens.labels" . }}
release: {{ .Values.prometheusRelease | quote }}
{{- end }}

{{- define "schedlens.image" -}}
{{- if .Values.image.digest -}}
{{ .Values.image.repository }}@{{ .Values.image.digest }}
{{- else -}}
{{ .Values.image.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}
{{- end }}

{{/*
JAVA_TOOL_OPTIONS adds to what the image sets rather than replacing it: the image's
-XX:+ExitOnOutOfMemoryError is repeated here because a variable set on the container replaces
the image's variable of the same name.
*/}}
{{- define "schedlens.javaOptions" -}}
- name: JAVA_TOOL_OPTIONS
  value: {{ printf "-Xmx%s %s -XX:+ExitOnOutOfMemoryError" .heap .gc | quote }}
{{- end }}

{{/* Pod and container security that passes the restricted Pod Security Standard. */}}
{{- define "schedlens.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 65532
runAsGroup: 65532
fsGroup: 65532
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{- define "schedlens.containerSecurityContext" -}}
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
runAsNonRoot: true
capabilities:
  drop: ["ALL"]
seccompProfile:
  type: RuntimeDefault
{{- end }}

{{/* The Kafka bootstrap address of the chosen provider. */}}
{{- define "schedlens.kafkaBootstrap" -}}
{{- if not (has .Values.kafka.provider (list "strimzi" "external")) -}}
{{- fail (printf "kafka.provider must be strimzi or external, not %q" .Values.kafka.provider) -}}
{{- end -}}
{{- if eq .Values.kafka.provider "strimzi" -}}
{{ include "schedlens.kafkaCluster" . }}-kafka-bootstrap:9093
{{- else -}}
{{ required "kafka.external.bootstrapServers is required with kafka.provider=external" .Values.kafka.external.bootstrapServers }}
{{- end -}}
{{- end }}

{{/*
The Kafka client environment of one app (.user: its KafkaUser; .jaasSecret: the external
provider's Secret for it). Strimzi: TLS and SCRAM-SHA-512 as the app's KafkaUser, the JAAS line from
the Secret Strimzi writes for the user, the cluster CA from its Secret.
*/}}
{{- define "schedlens.kafkaEnv" -}}
{{- $v := .root.Values -}}
- name: KAFKA_BOOTSTRAP_SERVERS
  value: {{ include "schedlens.kafkaBootstrap" .root | quote }}
{{- if eq $v.kafka.provider "strimzi" }}
- name: KAFKA_SECURITY_PROTOCOL
  value: SASL_SSL
- name: KAFKA_SASL_MECHANISM
  value: SCRAM-SHA-512
- name: KAFKA_SASL_JAAS_CONFIG
  valueFrom:
    secretKeyRef:
      name: {{ .user }}
      key: sasl.jaas.config
- name: KAFKA_SSL_TRUSTSTORE_TYPE
  value: PEM
- name: KAFKA_SSL_TRUSTSTORE_LOCATION
  value: /etc/schedlens/kafka-ca/ca.crt
{{- else }}
- name: KAFKA_SECURITY_PROTOCOL
  value: {{ $v.kafka.external.securityProtocol | quote }}
{{- if .jaasSecret }}
- name: KAFKA_SASL_MECHANISM
  value: {{ $v.kafka.external.saslMechanism | quote }}
- name: KAFKA_SASL_JAAS_CONFIG
  valueFrom:
    secretKeyRef:
      name: {{ .jaasSecret }}
      key: sasl.jaas.config
{{- end }}
{{- if $v.kafka.external.caSecret }}
- name: KAFKA_SSL_TRUSTSTORE_TYPE
  value: PEM
- name: KAFKA_SSL_TRUSTSTORE_LOCATION
  value: /etc/schedlens/kafka-ca/ca.crt
{{- end }}
{{- end }}
{{- end }}

{{/* Whether the apps mount a Kafka CA, and from which Secret. */}}
{{- define "schedlens.kafkaCaSecret" -}}
{{- if eq .Values.kafka.provider "strimzi" -}}
{{ include "schedlens.kafkaCluster" . }}-cluster-ca-cert
{{- else -}}
{{ .Values.kafka.external.caSecret }}
{{- end -}}
{{- end }}

{{/*
TLS of the intake and /api: "" (off), or the Secret holding tls.crt, tls.key and ca.crt. auto turns
into cert-manager where the cluster serves cert-manager.io/v1.
*/}}
{{- define "schedlens.tlsMode" -}}
{{- $m := .Values.tls.mode -}}
{{- if not (has $m (list "auto" "cert-manager" "secret" "off")) -}}
{{- fail (printf "tls.mode must be auto, cert-manager, secret or off, not %q" $m) -}}
{{- end -}}
{{- if eq $m "auto" -}}
{{- if .Capabilities.APIVersions.Has "cert-manager.io/v1" -}}cert-manager{{- else -}}off{{- end -}}
{{- else -}}
{{ $m }}
{{- end -}}
{{- end }}

{{- define "schedlens.tlsSecret" -}}
{{- $m := include "schedlens.tlsMode" . -}}
{{- if eq $m "cert-manager" -}}
{{ include "schedlens.fullname" . }}-tls
{{- else if eq $m "secret" -}}
{{ required "tls.secretName is required with tls.mode=secret" .Values.tls.secretName }}
{{- end -}}
{{- end }}

{{/* Settings every app gets when TLS is on: the certificate and key it serves. */}}
{{- define "schedlens.tlsEnv" -}}
- name: SCHEDLENS_HTTP_TLS_CERT
  value: /etc/schedlens/tls/tls.crt
- name: SCHEDLENS_HTTP_TLS_KEY
  value: /etc/schedlens/tls/tls.key
{{- end }}

{{- define "schedlens.validate" -}}
{{- if and .Values.dcgm.discovery (empty .Values.dcgm.namespaces) -}}
{{- fail "dcgm.discovery needs dcgm.namespaces (the GPU Operator's is gpu-operator), or set dcgm.discovery=false and list dcgm.targets" -}}
{{- end -}}
{{- if and .Values.export.enabled (not (hasPrefix "jdbc:" .Values.export.to)) (empty .Values.export.existingClaim) -}}
{{- fail "export.enabled writes files: give export.existingClaim (a PersistentVolumeClaim for export.to), or a jdbc: URL in export.to" -}}
{{- end -}}
{{- range $c := list "collector" "streams" -}}
{{- $sa := (index $.Values $c).serviceAccount -}}
{{- if and (not $sa.create) (empty $sa.name) -}}
{{- fail (printf "%s.serviceAccount.create is false: name the existing ServiceAccount in %s.serviceAccount.name, or let the chart create one" $c $c) -}}
{{- end -}}
{{- end -}}
{{- end }}

{{/*
The timeline pages and /api as people's browsers reach them, for the dashboards' data links:
dashboards.pagesUrl, else the pages Ingress's host (it terminates TLS), else a port-forward to
localhost:9471 (https when the streams app serves TLS).
*/}}
{{- define "schedlens.pagesUrl" -}}
{{- if .Values.dashboards.pagesUrl -}}
{{ .Values.dashboards.pagesUrl }}
{{- else if .Values.pagesIngress.enabled -}}
https://{{ .Values.pagesIngress.host }}
{{- else if eq (include "schedlens.tlsMode" .) "off" -}}
http://localhost:9471
{{- else -}}
https://localhost:9471
{{- end -}}
{{- end }}

{{/*
Where a component's pods run, from its values (collector, streams, export): priorityClassName,
nodeSelector, tolerations, affinity, topologySpreadConstraints; nothing for an empty one.
*/}}
{{- define "schedlens.podPlacement" -}}
{{- with .priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with .nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .topologySpreadConstraints }}
topologySpreadConstraints:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/*
A component's pod template metadata: the chart's labels, the values' podLabels (which must not
repeat the chart's) and podAnnotations. (dict "name" "schedlens-collector" "v" .Values.collector
"root" .)
*/}}
{{- define "schedlens.podMetadata" -}}
labels:
  {{- include "schedlens.componentLabels" (dict "name" .name "root" .root) | nindent 2 }}
  {{- with .v.podLabels }}
  {{- toYaml . | nindent 2 }}
  {{- end }}
{{- with .v.podAnnotations }}
annotations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- end }}

{{/*
A component's ServiceAccount name: its serviceAccount.name, else the release's name for it.
(dict "v" .Values.collector.serviceAccount "default" (printf "%s-collector" $fn))
*/}}
{{- define "schedlens.serviceAccountName" -}}
{{- .v.name | default .default -}}
{{- end }}
