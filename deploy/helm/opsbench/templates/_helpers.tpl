{{/* Names: <release>-opsbench, or the release name alone when it already says opsbench. */}}
{{- define "opsbench.fullname" -}}
{{- if contains "opsbench" .Release.Name -}}
{{- .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-opsbench" .Release.Name | trunc 50 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}

{{- define "opsbench.labels" -}}
app.kubernetes.io/name: opsbench
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" }}
{{- end -}}

{{/* Selector labels of one component: (dict "root" $ "component" "web") */}}
{{- define "opsbench.selector" -}}
app.kubernetes.io/name: opsbench
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .component }}
{{- end -}}

{{- define "opsbench.webImage" -}}
{{ .Values.image.web.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}
{{- define "opsbench.appImage" -}}
{{ .Values.image.app.repository }}:{{ .Values.image.tag | default .Chart.AppVersion }}
{{- end -}}

{{- define "opsbench.secretName" -}}
{{- .Values.secrets.existingSecret | default (printf "%s-secrets" (include "opsbench.fullname" .)) -}}
{{- end -}}

{{/* Bundled Postgres / Redis: on unless an external one's Secret is given. */}}
{{- define "opsbench.bundledPostgres" -}}
{{- if not .Values.externalDatabase.existingSecret -}}true{{- end -}}
{{- end -}}
{{- define "opsbench.bundledRedis" -}}
{{- if not .Values.externalRedis.existingSecret -}}true{{- end -}}
{{- end -}}
{{- define "opsbench.postgresHost" -}}{{ include "opsbench.fullname" . }}-postgresql{{- end -}}
{{- define "opsbench.redisHost" -}}{{ include "opsbench.fullname" . }}-redis{{- end -}}

{{/*
The application's connections, as web and workers read them: DATABASE_URL and REDIS_URL from an external Secret, or
the bundled servers' parts (POSTGRES_* / REDIS_*: the apps build the URL, URL-encoding the password).
*/}}
{{- define "opsbench.connectionEnv" -}}
{{- if include "opsbench.bundledPostgres" . }}
- name: POSTGRES_HOST
  value: {{ include "opsbench.postgresHost" . }}
- name: POSTGRES_PORT
  value: "5432"
- name: POSTGRES_DB
  value: opsbench
- name: POSTGRES_USER
  value: {{ .Values.migrate.appDbUser | quote }}
- name: POSTGRES_PASSWORD
  valueFrom: { secretKeyRef: { name: {{ include "opsbench.secretName" . }}, key: app-db-password } }
{{- else }}
- name: DATABASE_URL
  valueFrom: { secretKeyRef: { name: {{ .Values.externalDatabase.existingSecret }}, key: url } }
{{- end }}
{{- if include "opsbench.bundledRedis" . }}
- name: REDIS_HOST
  value: {{ include "opsbench.redisHost" . }}
- name: REDIS_PORT
  value: "6379"
- name: REDIS_PASSWORD
  valueFrom: { secretKeyRef: { name: {{ include "opsbench.secretName" . }}, key: redis-password } }
{{- else }}
- name: REDIS_URL
  valueFrom: { secretKeyRef: { name: {{ .Values.externalRedis.existingSecret }}, key: url } }
{{- end }}
- name: OPSBENCH_SECRET_KEY
  valueFrom: { secretKeyRef: { name: {{ include "opsbench.secretName" . }}, key: secret-key } }
- name: OPSBENCH_LOAD_ALLOWED_HOSTS
  value: {{ .Values.load.allowedHosts | quote }}
- name: OPSBENCH_LOAD_PRIVATE_RANGES
  value: {{ .Values.load.privateRanges | quote }}
- name: OPSBENCH_PUBLIC_URL
  value: {{ .Values.publicUrl | quote }}
{{- end -}}

{{/* Pod-level settings every pod of the chart shares. */}}
{{- define "opsbench.podCommon" -}}
{{- with .Values.image.pullSecrets }}
imagePullSecrets:
{{- range . }}
  - name: {{ . }}
{{- end }}
{{- end }}
{{- with .Values.nodeSelector }}
nodeSelector: {{- toYaml . | nindent 2 }}
{{- end }}
{{- with .Values.tolerations }}
tolerations: {{- toYaml . | nindent 2 }}
{{- end }}
# No pod of opsbench talks to the Kubernetes API with its own account (a kubernetes target's credential is a
# workspace's kubeconfig), and the runner must hold no secret: no service-account token is mounted.
serviceAccountName: {{ include "opsbench.fullname" . }}
automountServiceAccountToken: false
# Service links would put the addresses of Postgres and Redis into every container's environment, the runner's too.
enableServiceLinks: false
{{- end -}}

{{/*
A worker pod: the worker (unprivileged, holds the secrets) and its k6 runner (root with the sandbox's privileges,
no secret), one network namespace (so targets the worker starts on 127.0.0.1 are what the load network reaches, as
compose's network_mode: service:runner), the runner's socket on a volume only the two mount.
(dict "root" $ "role" "all"|"load" "component" "worker"|"load-generator" "values" .Values.worker|.Values.loadGenerators)
*/}}
{{- define "opsbench.workerPod" -}}
{{- $root := .root -}}
metadata:
  labels:
    {{- include "opsbench.labels" $root | nindent 4 }}
    app.kubernetes.io/component: {{ .component }}
spec:
  {{- include "opsbench.podCommon" $root | trim | nindent 2 }}
  terminationGracePeriodSeconds: {{ add $root.Values.worker.shutdownGraceSeconds 15 }}
  {{- if $root.Values.runner.sysctls }}
  securityContext:
    sysctls:
      - { name: net.ipv4.conf.all.route_localnet, value: "1" }
      - { name: net.ipv4.ip_forward, value: "1" }
  {{- end }}
  containers:
    - name: worker
      image: {{ include "opsbench.appImage" $root }}
      imagePullPolicy: {{ $root.Values.image.pullPolicy }}
      command: ["node", "--import", "tsx", "apps/worker/src/main.ts"]
      {{- if eq .role "load" }}
      args: ["--role", "load"]
      {{- end }}
      env:
        {{- include "opsbench.connectionEnv" $root | trim | nindent 8 }}
        - name: OPSBENCH_RUNNER_SOCKET
          value: /run/opsbench-runner/runner.sock
        - name: OPSBENCH_SHUTDOWN_GRACE_SECONDS
          value: {{ $root.Values.worker.shutdownGraceSeconds | quote }}
        - name: LOG_LEVEL
          value: {{ $root.Values.logLevel | quote }}
        {{- with .values.extraEnv }}
        {{- toYaml . | nindent 8 }}
        {{- end }}
      securityContext:
        runAsUser: 1000
        runAsGroup: 1000
        runAsNonRoot: true
        allowPrivilegeEscalation: false
        capabilities: { drop: ["ALL"] }
        seccompProfile: { type: RuntimeDefault }
      # Fresh while this pod's worker wrote its heartbeat to Redis within 20 s (apps/worker/src/healthcheck.ts).
      readinessProbe:
        exec: { command: ["node", "--import", "tsx", "apps/worker/src/healthcheck.ts"] }
        initialDelaySeconds: 15
        periodSeconds: 15
        timeoutSeconds: 20
      livenessProbe:
        exec: { command: ["node", "--import", "tsx", "apps/worker/src/healthcheck.ts"] }
        initialDelaySeconds: 60
        periodSeconds: 30
        timeoutSeconds: 20
        failureThreshold: 4
      resources: {{- toYaml .values.resources | nindent 8 }}
      volumeMounts:
        - { name: runner-socket, mountPath: /run/opsbench-runner }
    - name: runner
      image: {{ include "opsbench.appImage" $root }}
      imagePullPolicy: {{ $root.Values.image.pullPolicy }}
      command: ["node", "--import", "tsx", "apps/runner/src/main.ts"]
      # No secret, no database or Redis address: the worker hands it what a run needs over the socket.
      env:
        - name: OPSBENCH_RUNNER_SOCKET
          value: /run/opsbench-runner/runner.sock
        # The worker runs as the image's user node (1000:1000): its group may use the socket.
        - name: OPSBENCH_RUNNER_SOCKET_GID
          value: "1000"
        - name: OPSBENCH_ENGINE
          value: /usr/local/bin/opsbench-engine
        - name: OPSBENCH_WORK_DIR
          value: /app/.data/runs
        - name: LOG_LEVEL
          value: {{ $root.Values.logLevel | quote }}
        - name: OPSBENCH_ALLOW_UNSANDBOXED_SCRIPTS
          value: {{ ternary "1" "0" $root.Values.runner.allowUnsandboxedScripts | quote }}
        - name: OPSBENCH_K6_BLOCKED_RANGES
          value: {{ $root.Values.runner.blockedRanges | quote }}
      # The privileges of compose's runner service, no more (docs/self-hosting.md "The runner"): root for ip netns,
      # nft and bubblewrap's switch to nobody; NET_ADMIN for the veth and the nftables table; SYS_ADMIN for the
      # namespaces and mounts; no seccomp profile (bubblewrap's pivot_root) and no AppArmor profile (its mounts).
      securityContext:
        runAsUser: 0
        runAsNonRoot: false
        privileged: false
        capabilities: { add: ["NET_ADMIN", "SYS_ADMIN"] }
        seccompProfile: { type: Unconfined }
        appArmorProfile: { type: Unconfined }
      # Answers on its socket and its sandbox works (apps/runner/src/healthcheck.ts).
      readinessProbe:
        exec: { command: ["node", "--import", "tsx", "apps/runner/src/healthcheck.ts"] }
        initialDelaySeconds: 10
        periodSeconds: 15
        timeoutSeconds: 20
      livenessProbe:
        exec: { command: ["node", "--import", "tsx", "apps/runner/src/healthcheck.ts"] }
        initialDelaySeconds: 30
        periodSeconds: 30
        timeoutSeconds: 20
        failureThreshold: 4
      resources: {{- toYaml (.runnerResources | default $root.Values.runner.resources) | nindent 8 }}
      volumeMounts:
        - { name: runner-socket, mountPath: /run/opsbench-runner }
  volumes:
    # Only the runner's unix socket, shared by the two containers.
    - name: runner-socket
      emptyDir: { medium: Memory, sizeLimit: 1Mi }
{{- end -}}
