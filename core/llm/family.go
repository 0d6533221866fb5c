package llm

import (
	"path/filepath"
	"regexp"
	"strings"
)

// Family is a known embedding-model family: it decides how queries and
// passages are worded before embedding, and which output sizes the model
// was trained to support.
type Family string

// Known families. FamilyGeneric is any other GGUF: no prefixes, pooling and
// dimension from its metadata.
const (
	FamilyGeneric        Family = "generic"
	FamilyMiniLM         Family = "minilm"
	FamilyBGE            Family = "bge"
	FamilyBGEChinese     Family = "bge-zh"
	FamilyE5             Family = "e5"
	FamilyNomic          Family = "nomic-embed"
	FamilyEmbeddingGemma Family = "embeddinggemma"
	FamilyQwen3Embedding Family = "qwen3-embedding"
)

// matryoshkaAny in FamilyConvention.Matryoshka allows any output size up to
// the native one (Qwen3-Embedding was trained for 32 up to its width).
const matryoshkaAny = -1

// FamilyConvention is how one family wants its inputs worded.
type FamilyConvention struct {
	Family Family
	// QueryPrefix goes before every query.
	QueryPrefix string
	// PassagePrefix returns what goes before a passage's text, given its
	// title (which may be empty).
	PassagePrefix func(title string) string
	// Pooling is what the family's published GGUFs use; the file's own
	// metadata wins when it says otherwise.
	Pooling Pooling
	// Matryoshka lists the output sizes the family was trained to keep
	// useful when truncated; nil means truncation is not supported. A
	// single entry of -1 means any size up to the native one.
	Matryoshka []int
}

// titleLine puts a title on its own line above the text, the plain
// convention for families without a title field.
func titleLine(prefix string) func(string) string {
	return func(title string) string {
		if title == "" {
			return prefix
		}
		return prefix + title + "\n"
	}
}

// conventions is the catalog, from the families' model cards.
var conventions = map[Family]FamilyConvention{
	FamilyGeneric: {Family: FamilyGeneric, PassagePrefix: titleLine("")},
	FamilyMiniLM:  {Family: FamilyMiniLM, PassagePrefix: titleLine(""), Pooling: PoolingMean},
	FamilyBGE: {Family: FamilyBGE, Pooling: PoolingCLS, PassagePrefix: titleLine(""),
		QueryPrefix: "Represent this sentence for searching relevant passages: "},
	FamilyBGEChinese: {Family: FamilyBGEChinese, Pooling: PoolingCLS, PassagePrefix: titleLine(""),
		QueryPrefix: "为这个句子生成表示以用于检索相关文章："},
	FamilyE5: {Family: FamilyE5, Pooling: PoolingMean, PassagePrefix: titleLine("passage: "),
		QueryPrefix: "query: "},
	FamilyNomic: {Family: FamilyNomic, Pooling: PoolingMean, PassagePrefix: titleLine("search_document: "),
		QueryPrefix: "search_query: ", Matryoshka: []int{768, 512, 256, 128, 64}},
	FamilyEmbeddingGemma: {Family: FamilyEmbeddingGemma, Pooling: PoolingMean,
		QueryPrefix: "task: search result | query: ",
		PassagePrefix: func(title string) string {
			if title == "" {
				title = "none"
			}
			return "title: " + title + " | text: "
		},
		Matryoshka: []int{768, 512, 256, 128}},
	FamilyQwen3Embedding: {Family: FamilyQwen3Embedding, Pooling: PoolingLast, PassagePrefix: titleLine(""),
		QueryPrefix: "Instruct: Given a web search query, retrieve relevant passages that answer the query\nQuery: ",
		Matryoshka:  []int{matryoshkaAny}},
}

// Convention returns the catalog entry for f (the generic one for an
// unknown family).
func Convention(f Family) FamilyConvention {
	if c, ok := conventions[f]; ok {
		return c
	}
	return conventions[FamilyGeneric]
}

var e5Name = regexp.MustCompile(`(^|[^a-z0-9])e5([^a-z0-9]|$)`)

// DetectFamily names the family of a model from its metadata and file name.
func DetectFamily(md *Metadata) Family {
	name := strings.ToLower(strings.Join([]string{
		md.Name, md.BaseName, filepath.Base(md.Path), md.String("general.finetune"),
	}, " "))
	arch := md.Architecture
	switch {
	case arch == "gemma-embedding" || strings.Contains(name, "embeddinggemma") || strings.Contains(name, "embedding-gemma"):
		return FamilyEmbeddingGemma
	case strings.Contains(name, "qwen3-embedding") || strings.Contains(name, "qwen3 embedding") ||
		(arch == "qwen3" && md.Pooling == PoolingLast):
		return FamilyQwen3Embedding
	case strings.Contains(name, "nomic-embed") || strings.HasPrefix(arch, "nomic-bert"):
		return FamilyNomic
	case e5Name.MatchString(name):
		return FamilyE5
	case strings.Contains(name, "bge-m3"):
		return FamilyGeneric // bge-m3 takes no instruction
	case strings.Contains(name, "bge") && strings.Contains(name, "zh"):
		return FamilyBGEChinese
	case strings.Contains(name, "bge"):
		return FamilyBGE
	case strings.Contains(name, "minilm"):
		return FamilyMiniLM
	}
	return FamilyGeneric
}
