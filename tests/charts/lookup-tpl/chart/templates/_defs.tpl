{{- define "greeting" -}}greetings from {{ .Template.Name }}{{- end }}
