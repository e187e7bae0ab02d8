{{/* Partials: files starting with `_` are parsed for their definitions and never rendered. */}}
{{- define "partials.name" -}}
{{ .Values.name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- define "partials.where" -}}
template={{ .Template.Name }} base={{ .Template.BasePath }}
{{- end }}
{{- define "partials.block" -}}
overridden
{{- end }}
