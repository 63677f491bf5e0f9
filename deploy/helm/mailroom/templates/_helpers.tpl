{{/* Names and labels follow the `helm create` conventions so tooling recognises them. */}}
{{- define "mailroom.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "mailroom.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Name of one service's objects. Call with (dict "root" $ "name" "gateway"). */}}
{{- define "mailroom.componentName" -}}
{{- printf "%s-%s" (include "mailroom.fullname" .root) .name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "mailroom.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
app.kubernetes.io/name: {{ include "mailroom.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: mailroom
{{- end -}}

{{/* Call with (dict "root" $ "name" "gateway"). */}}
{{- define "mailroom.selectorLabels" -}}
app.kubernetes.io/name: {{ include "mailroom.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{- define "mailroom.componentLabels" -}}
{{ include "mailroom.labels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{- define "mailroom.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/*
Stream names exactly as wireNames() in packages/contracts/src/subjects.ts derives them: the
prefix upper-cased with "-" turned into "_". The chart test compares against wireNames itself.
*/}}
{{- define "mailroom.streamPrefix" -}}
{{- .Values.config.natsPrefix | upper | replace "-" "_" -}}
{{- end -}}

{{/*
The JetStream backlogs each KEDA-scaled service drains (consumer names: wireNames().consumers).
Sending has two lanes: bulk mail and transactional mail, each with its own consumer; KEDA scales on
the larger of the two.
*/}}
{{- define "mailroom.kedaTargets" -}}
sending:
  - stream: {{ include "mailroom.streamPrefix" . }}_SEND_JOBS
    consumer: sending-delivery
  - stream: {{ include "mailroom.streamPrefix" . }}_TRANSACTIONAL_JOBS
    consumer: sending-transactional
workflows:
  - stream: {{ include "mailroom.streamPrefix" . }}_EVENTS
    consumer: workflows-triggers
{{- end -}}

{{/* A service's replica count is left to its autoscaler when one owns it. */}}
{{- define "mailroom.autoscaled" -}}
{{- $auto := and .svc.autoscaling .svc.autoscaling.enabled -}}
{{- $keda := and .root.Values.keda.enabled .svc.keda (hasKey (include "mailroom.kedaTargets" .root | fromYaml) .name) -}}
{{- if or $auto $keda }}true{{ end -}}
{{- end -}}

{{/* Existing Secrets whose every key becomes an environment variable (deduplicated). */}}
{{- define "mailroom.existingSecrets" -}}
{{- $names := list -}}
{{- with .Values.database.existingSecret }}{{ $names = append $names . }}{{ end -}}
{{- with .Values.secret.existingSecret }}{{ $names = append $names . }}{{ end -}}
{{- toYaml (uniq $names) -}}
{{- end -}}

{{/* Plain configuration, shared by every service (each reads only what it needs). */}}
{{- define "mailroom.configEnv" -}}
{{- $c := .Values.config -}}
NATS_URL: {{ $c.natsUrl | quote }}
NATS_PREFIX: {{ $c.natsPrefix | quote }}
NATS_REPLICAS: {{ $c.natsReplicas | default 1 | quote }}
DB_PREFIX: {{ .Values.database.prefix | quote }}
PUBLIC_URL: {{ $c.publicUrl | quote }}
LOG_LEVEL: {{ $c.logLevel | quote }}
INBOUND_SMTP_PORT: {{ $c.inboundSmtpPort | quote }}
{{- with $c.dnsServer }}
DNS_SERVER: {{ . | quote }}
{{- end }}
{{- with $c.returnPathDomain }}
RETURN_PATH_DOMAIN: {{ . | quote }}
{{- end }}
{{- with $c.trustProxy }}
TRUST_PROXY: {{ . | quote }}
{{- end }}
{{- with $c.sesSnsTopicArns }}
SES_SNS_TOPIC_ARNS: {{ . | quote }}
{{- end }}
{{- with $c.systemFrom }}
SYSTEM_FROM: {{ . | quote }}
{{- end }}
{{- with .Values.oidc.issuer }}
OIDC_ISSUER: {{ . | quote }}
{{- end }}
{{- with .Values.oidc.clientId }}
OIDC_CLIENT_ID: {{ . | quote }}
{{- end }}
{{- with $c.webhookAllowedHosts }}
WEBHOOK_ALLOWED_HOSTS: {{ . | quote }}
{{- end }}
{{- with $c.rspamdUrl }}
RSPAMD_URL: {{ . | quote }}
{{- end }}
{{- range $k, $v := $c.otel }}
{{ $k }}: {{ $v | quote }}
{{- end }}
{{- range $k, $v := $c.extraEnv }}
{{ $k }}: {{ $v | quote }}
{{- end }}
{{- end -}}

{{/* Credentials the chart itself holds; keys from an existing Secret override these. */}}
{{- define "mailroom.secretEnv" -}}
{{- if and .Values.database.url (not .Values.database.existingSecret) }}
DATABASE_URL: {{ .Values.database.url | quote }}
{{- end }}
{{- range $service, $url := .Values.database.serviceUrls }}
{{ upper $service }}_DATABASE_URL: {{ $url | quote }}
{{- end }}
{{- with .Values.redis.url }}
REDIS_URL: {{ . | quote }}
{{- end }}
{{- with .Values.smtp.url }}
SMTP_URL: {{ . | quote }}
{{- end }}
{{- with .Values.oidc.clientSecret }}
OIDC_CLIENT_SECRET: {{ . | quote }}
{{- end }}
{{- if not .Values.secret.existingSecret }}
MAILROOM_SECRET: {{ include "mailroom.mailroomSecret" . | quote }}
{{- end }}
{{- end -}}

{{/*
MAILROOM_SECRET signs unsubscribe and tracking links, so it must not change between upgrades:
an explicit value wins, then the one already in the cluster, then a random one. The random one is
memoised in .Values because both the release Secret and the migrations hook Secret include it.
GitOps tools that render without cluster access (no lookup) must set it or use existingSecret.
*/}}
{{- define "mailroom.mailroomSecret" -}}
{{- if .Values.secret.mailroomSecret -}}
{{- .Values.secret.mailroomSecret -}}
{{- else -}}
{{- $existing := lookup "v1" "Secret" .Release.Namespace (include "mailroom.fullname" .) -}}
{{- if and $existing $existing.data (hasKey $existing.data "MAILROOM_SECRET") -}}
{{- index $existing.data "MAILROOM_SECRET" | b64dec -}}
{{- else -}}
{{- if not (hasKey .Values.secret "generated") -}}
{{- $_ := set .Values.secret "generated" (randAlphaNum 48) -}}
{{- end -}}
{{- .Values.secret.generated -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* Pod security shared by the services and the migrations Job. */}}
{{- define "mailroom.podSecurityContext" -}}
runAsNonRoot: true
runAsUser: 10001
runAsGroup: 10001
fsGroup: 10001
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{- define "mailroom.containerSecurityContext" -}}
runAsNonRoot: true
allowPrivilegeEscalation: false
readOnlyRootFilesystem: true
capabilities:
  drop: ["ALL"]
seccompProfile:
  type: RuntimeDefault
{{- end -}}

{{/* envFrom of every container: config, chart Secret, then existing Secrets (last one wins). */}}
{{- define "mailroom.envFrom" -}}
- configMapRef:
    name: {{ include "mailroom.fullname" . }}-config
- secretRef:
    name: {{ include "mailroom.fullname" . }}
{{- range (include "mailroom.existingSecrets" . | fromYamlArray) }}
- secretRef:
    name: {{ . }}
{{- end }}
{{- end -}}

{{- define "mailroom.podScheduling" -}}
{{- with .Values.imagePullSecrets }}
imagePullSecrets:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.nodeSelector }}
nodeSelector:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.affinity }}
affinity:
  {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.priorityClassName }}
priorityClassName: {{ . }}
{{- end }}
{{- with .Values.serviceAccountName }}
serviceAccountName: {{ . }}
{{- end }}
{{- end -}}

{{/*
The services' NATS users and permissions, files/nats-users.json with config.natsPrefix filled in:
{ "<service>": { "user": "<prefix>-<service>", "permissions": {...} } }.
*/}}
{{- define "mailroom.natsUsers" -}}
{{- .Files.Get "files/nats-users.json" | replace "__NATS_PREFIX__" .Values.config.natsPrefix -}}
{{- end -}}

{{/*
A service's NATS password, stable across upgrades like MAILROOM_SECRET: natsAuth.passwords.<service>,
then the one already in the cluster, then a random one (memoised, since both Secrets include it).
Call with (dict "root" $ "name" "gateway").
*/}}
{{- define "mailroom.natsPassword" -}}
{{- $auth := .root.Values.natsAuth -}}
{{- if index ($auth.passwords | default dict) .name -}}
{{- index $auth.passwords .name -}}
{{- else -}}
{{- $existing := lookup "v1" "Secret" .root.Release.Namespace (printf "%s-nats-credentials" (include "mailroom.fullname" .root)) -}}
{{- if and $existing $existing.data (hasKey $existing.data .name) -}}
{{- index $existing.data .name | b64dec -}}
{{- else -}}
{{- if not (hasKey $auth "generated") -}}
{{- $_ := set $auth "generated" dict -}}
{{- end -}}
{{- if not (hasKey $auth.generated .name) -}}
{{- $_ := set $auth.generated .name (randAlphaNum 40) -}}
{{- end -}}
{{- index $auth.generated .name -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
What each service reaches besides NATS and DNS. database: it owns one (SERVICES in
packages/contracts); redis: its main.ts asks for Redis; public: internet egress and why. The chart
test checks the first two against the code.
*/}}
{{- define "mailroom.networkNeeds" -}}
gateway: { database: true, redis: true }
contacts: { database: true }
sending: { database: true, redis: true, smtp: true, public: { why: "SNS signing certificates", ports: [443] } }
campaigns: { database: true }
workflows: { database: true, public: { why: "webhook steps, to any port" } }
verify: { redis: true }
{{- end -}}

{{/* One egress rule: (dict "rule" {to, ports} "what" "comment" "udp" bool). Empty `to`: any address. */}}
{{- define "mailroom.egressRule" -}}
# {{ .what }}
- ports:
    {{- range .rule.ports }}
    - { port: {{ . }}, protocol: TCP }
    {{- if $.udp }}
    - { port: {{ . }}, protocol: UDP }
    {{- end }}
    {{- end }}
  {{- with .rule.to }}
  to:
    {{- toYaml . | nindent 4 }}
  {{- end }}
{{- end -}}
