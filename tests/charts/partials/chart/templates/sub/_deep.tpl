{{- define "partials.deep" -}}
deep: {{ . | toJson }}
{{- end -}}
