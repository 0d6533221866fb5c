// Package llm is the only part of Cairn's core that touches llama.cpp: it
// reads GGUF metadata, loads embedding and generation models, embeds
// passages and queries, streams generated tokens and downloads models.
package llm

import _ "github.com/ollama/ollama/llama"
