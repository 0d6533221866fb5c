package llm

import (
	"fmt"
	"net/url"
	"strings"
)

// Kind says what a model is for.
type Kind string

// Model kinds.
const (
	KindEmbedding  Kind = "embedding"
	KindGeneration Kind = "generation"
	// KindRerank is a cross-encoder (rank pooling) that reorders results.
	KindRerank Kind = "rerank"
)

// CatalogEntry is a model `cairn models pull NAME` can download.
type CatalogEntry struct {
	Name   string // what the user types; lower case
	Kind   Kind
	Family Family // embedding models only
	URL    string // a huggingface.co resolve URL
	Size   int64  // approximate bytes, for the progress bar and disk check
	// SHA256 is the expected hex digest; empty means unknown, and callers
	// should warn (or refuse) before trusting the file.
	SHA256  string
	License string
	Notes   string
}

// Catalog lists the downloadable models. The URLs follow each publisher's
// file naming on huggingface.co as known when this was written; they could
// not be checked from the build machine (no network), and no digests were
// published with them here, so every SHA256 is empty until someone with
// network access records it.
func Catalog() []CatalogEntry {
	return []CatalogEntry{
		{Name: "all-minilm-l6-v2", Kind: KindEmbedding, Family: FamilyMiniLM,
			URL:  "https://huggingface.co/second-state/All-MiniLM-L6-v2-Embedding-GGUF/resolve/main/all-MiniLM-L6-v2-Q8_0.gguf",
			Size: 25 << 20, License: "Apache-2.0", Notes: "384 dims, English, fastest"},
		{Name: "bge-small-en-v1.5", Kind: KindEmbedding, Family: FamilyBGE,
			URL:  "https://huggingface.co/CompendiumLabs/bge-small-en-v1.5-gguf/resolve/main/bge-small-en-v1.5-q8_0.gguf",
			Size: 36 << 20, License: "MIT", Notes: "384 dims, English"},
		{Name: "nomic-embed-text-v1.5", Kind: KindEmbedding, Family: FamilyNomic,
			URL:  "https://huggingface.co/nomic-ai/nomic-embed-text-v1.5-GGUF/resolve/main/nomic-embed-text-v1.5.Q8_0.gguf",
			Size: 146 << 20, License: "Apache-2.0", Notes: "768 dims (Matryoshka to 64), 8192-token context"},
		{Name: "multilingual-e5-small", Kind: KindEmbedding, Family: FamilyE5,
			URL:  "https://huggingface.co/keisuke-miyako/multilingual-e5-small-gguf-q8_0/resolve/main/multilingual-e5-small-q8_0.gguf",
			Size: 125 << 20, License: "MIT", Notes: "384 dims, 100 languages"},
		{Name: "embeddinggemma-300m", Kind: KindEmbedding, Family: FamilyEmbeddingGemma,
			URL:  "https://huggingface.co/ggml-org/embeddinggemma-300M-GGUF/resolve/main/embeddinggemma-300M-Q8_0.gguf",
			Size: 330 << 20, License: "Gemma", Notes: "768 dims (Matryoshka 512/256/128), multilingual"},
		{Name: "qwen3-embedding-0.6b", Kind: KindEmbedding, Family: FamilyQwen3Embedding,
			URL:  "https://huggingface.co/Qwen/Qwen3-Embedding-0.6B-GGUF/resolve/main/Qwen3-Embedding-0.6B-Q8_0.gguf",
			Size: 640 << 20, License: "Apache-2.0", Notes: "1024 dims (Matryoshka), multilingual, slowest"},
		{Name: "qwen2.5-0.5b-instruct", Kind: KindGeneration,
			URL:  "https://huggingface.co/Qwen/Qwen2.5-0.5B-Instruct-GGUF/resolve/main/qwen2.5-0.5b-instruct-q4_k_m.gguf",
			Size: 398 << 20, License: "Apache-2.0", Notes: "small machines; short answers"},
		{Name: "qwen2.5-1.5b-instruct", Kind: KindGeneration,
			URL:  "https://huggingface.co/Qwen/Qwen2.5-1.5B-Instruct-GGUF/resolve/main/qwen2.5-1.5b-instruct-q4_k_m.gguf",
			Size: 1117 << 20, License: "Apache-2.0", Notes: "laptop default"},
		{Name: "qwen2.5-3b-instruct", Kind: KindGeneration,
			URL:  "https://huggingface.co/Qwen/Qwen2.5-3B-Instruct-GGUF/resolve/main/qwen2.5-3b-instruct-q4_k_m.gguf",
			Size: 2105 << 20, License: "Qwen Research", Notes: "desktop"},
		{Name: "llama-3.2-3b-instruct", Kind: KindGeneration,
			URL:  "https://huggingface.co/bartowski/Llama-3.2-3B-Instruct-GGUF/resolve/main/Llama-3.2-3B-Instruct-Q4_K_M.gguf",
			Size: 2019 << 20, License: "Llama 3.2 Community", Notes: "desktop, English"},
		{Name: "gemma-3-1b-it", Kind: KindGeneration,
			URL:  "https://huggingface.co/ggml-org/gemma-3-1b-it-GGUF/resolve/main/gemma-3-1b-it-Q4_K_M.gguf",
			Size: 806 << 20, License: "Gemma", Notes: "small machines"},
		{Name: "bge-reranker-v2-m3", Kind: KindRerank,
			URL:  "https://huggingface.co/gpustack/bge-reranker-v2-m3-GGUF/resolve/main/bge-reranker-v2-m3-Q8_0.gguf",
			Size: 606 << 20, License: "Apache-2.0", Notes: "reranker, multilingual, 568M parameters (XLM-RoBERTa large)"},
		{Name: "qwen3-reranker-0.6b", Kind: KindRerank,
			URL:  "https://huggingface.co/ggml-org/Qwen3-Reranker-0.6B-Q8_0-GGUF/resolve/main/qwen3-reranker-0.6b-q8_0.gguf",
			Size: 639 << 20, License: "Apache-2.0", Notes: "reranker, multilingual, yes/no prompt"},
	}
}

// LookupCatalog finds a catalog entry by name, ignoring case.
func LookupCatalog(name string) (CatalogEntry, bool) {
	for _, m := range Catalog() {
		if strings.EqualFold(m.Name, name) {
			return m, true
		}
	}
	return CatalogEntry{}, false
}

// MirrorURL is the entry's URL on a mirror of its host: base (scheme,
// host and an optional path prefix) replaces https://huggingface.co, and
// the file's path is kept, so a mirror with huggingface.co's layout (or a
// test server) serves the catalogue.
func (c CatalogEntry) MirrorURL(base string) (string, error) {
	src, err := url.Parse(c.URL)
	if err != nil {
		return "", err
	}
	b, err := url.Parse(strings.TrimRight(base, "/"))
	if err != nil || (b.Scheme != "http" && b.Scheme != "https") || b.Host == "" {
		return "", fmt.Errorf("model catalogue mirror %q is not an http:// or https:// URL", base)
	}
	b.Path += src.Path
	b.RawPath, b.RawQuery = "", src.RawQuery
	return b.String(), nil
}
