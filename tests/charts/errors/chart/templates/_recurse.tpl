{{- define "countdown" -}}
{{ . }}{{ if gt (int .) 0 }} {{ include "countdown" (sub (int .) 1) }}{{ end }}
{{- end }}
{{- define "forever" -}}
{{ include "forever" . }}
{{- end }}
{{- define "forever-tpl" -}}
{{ tpl "{{ include \"forever-tpl\" . }}" . }}
{{- end }}
