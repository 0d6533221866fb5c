module cairn

go 1.26.8

require (
	github.com/ollama/ollama v0.17.4
	golang.org/x/net v0.62.0
	golang.org/x/text v0.43.0
)

require golang.org/x/sync v0.24.0 // indirect
