{{- define "x" }}x{{ end }}
