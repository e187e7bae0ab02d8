{{- define "probe.greet" -}}
hello {{ . }}
{{- end -}}
{{- define "probe.values" -}}
str={{ .Values.str }} dollar={{ $.Values.three }}
{{- end -}}
{{- define "probe.novars" -}}
{{ . }}
{{- end -}}
{{- define "probe.recurse" -}}
{{- if gt . 0.5 -}}{{ . }},{{ template "probe.recurse" 0.25 }}{{- else -}}end{{- end -}}
{{- end -}}
{{- define "probe.dot" -}}[{{ . }}]{{- end -}}
