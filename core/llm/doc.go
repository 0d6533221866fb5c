// Package llm is the only part of Cairn's core that touches llama.cpp
// (through github.com/ollama/ollama/llama, compiled by cgo). It reads GGUF
// metadata, embeds passages and queries, writes chat answers, and downloads
// models.
//
//   - ReadMetadata reads a GGUF header in pure Go (architecture, sizes,
//     pooling, chat template, a fingerprint) without loading weights.
//   - LoadEmbedder opens an embedding model; DetectFamily and Convention
//     decide how its queries and passages are worded (prefixes, titles),
//     from a catalog of known families. Inputs longer than the model's
//     window are split, embedded and averaged; EmbedInfo says so.
//   - LoadGenerator opens an instruct model; Generate formats messages with
//     the model's own chat template (FormatChat, ChatML as fallback) and
//     streams Tokens, ending with one that carries Stats.
//   - LoadReranker opens a cross-encoder (rank pooling: bge-reranker,
//     Qwen3-Reranker, ms-marco MiniLM); Score gives one number per
//     (question, passage) pair, in the tokenizer's pair encoding or the
//     model's rerank prompt, and PerPair says what a pair costs here.
//   - Download fetches a model with resume and SHA-256 check; Catalog lists
//     the models `cairn models pull` knows.
//   - BenchEmbed and BenchGenerate are the measurements `cairn bench` runs;
//     the testmodel subpackage writes random-weight models of real shapes
//     for them and for tests.
//
// llama.cpp's log goes to log/slog: informational lines at Debug (silent
// by default), warnings and errors at their levels. Each Embedder and
// Generator serializes its own decodes; llama.cpp's CPU threads busy-wait
// between operations, so two models decoding at once on the same cores, or
// a thread count above the free cores, cost far more than they gain.
package llm
