{{- define "lib.service" -}}
apiVersion: v1
kind: Service
metadata:
  name: {{ .root.Release.Name }}-{{ .name }}
  labels:
    {{- include "lib.labels" .root | nindent 4 }}
spec:
  ports:
  {{- range $name, $port := .ports }}
    - name: {{ $name }}
      port: {{ $port }}
  {{- end }}
{{- end }}
{{- define "lib.labels" -}}
app.kubernetes.io/instance: {{ .Release.Name }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- with .Values.labels }}
{{ toYaml . }}
{{- end }}
{{- end }}
