{{- define "shapes.name" -}}{{ .Values.name }}{{- end }}
