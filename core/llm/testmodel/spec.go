// Package testmodel writes random-weight GGUF models that llama.cpp loads and
// runs: BERT-style embedders and cross-encoders (rerankers) with a WordPiece
// vocabulary, and LLaMA/Qwen2/Qwen3-style decoders (a Qwen3 reranker among
// them) with a SentencePiece vocabulary. No weights can be downloaded on
// Cairn's build machines, so tests and `cairn bench` use these files: their
// shapes (and therefore their speed) match real models, their vocabularies
// are built from real English words so real tokenization happens, and their
// outputs are meaningless. Where token counts must be a real model's, a
// real vocabulary replaces the generated one: Spec.Tokenizer (Qwen2.5's
// byte-level BPE, from its tokenizer.json) or Spec.WordPiece (BERT's).
//
// It is a normal package, not a _test file, so that other packages' tests
// and the bench command can use it.
package testmodel

import "fmt"

// Arch is the llama.cpp architecture written to general.architecture.
type Arch string

// Architectures the writer knows how to lay out.
const (
	// BERT is an encoder (all-MiniLM, bge, e5 shapes) with a WordPiece vocabulary.
	BERT Arch = "bert"
	// LLaMA is a decoder with untied output and no attention biases.
	LLaMA Arch = "llama"
	// Qwen2 is a decoder with q/k/v biases, usually with tied output (Qwen2.5).
	Qwen2 Arch = "qwen2"
	// Qwen3 is a decoder without attention biases but with per-head
	// q/k norms; with rank pooling, a Qwen3-Reranker.
	Qwen3 Arch = "qwen3"
)

// Pooling mirrors llama.cpp's enum llama_pooling_type as stored in
// <arch>.pooling_type.
type Pooling uint32

// Pooling types, numbered as in llama.cpp.
const (
	PoolingNone Pooling = 0
	PoolingMean Pooling = 1
	PoolingCLS  Pooling = 2
	PoolingLast Pooling = 3
	// PoolingRank attaches the classification head (cls, cls.output) of
	// a cross-encoder reranker: one score per sequence.
	PoolingRank Pooling = 4
)

// WeightType is the storage type of the matrices (norms and biases are
// always F32, as convert_hf_to_gguf writes them).
type WeightType uint32

// Weight types, numbered as ggml_type.
const (
	F32  WeightType = 0
	F16  WeightType = 1
	Q8_0 WeightType = 8
)

// String returns the ggml name of the type.
func (w WeightType) String() string {
	switch w {
	case F32:
		return "F32"
	case F16:
		return "F16"
	case Q8_0:
		return "Q8_0"
	}
	return fmt.Sprintf("WeightType(%d)", uint32(w))
}

// Spec describes a model to write. Zero values take the defaults noted on
// each field.
type Spec struct {
	Arch    Arch
	Name    string // general.name; empty writes none, so file-name based identity is exercised
	Layers  int
	Hidden  int // embedding length
	Heads   int
	KVHeads int // decoders only; 0 means Heads
	FFN     int // feed-forward length
	Vocab   int // exact number of tokens; must leave room for the special and byte tokens
	Context int // <arch>.context_length
	Pooling Pooling
	Weights WeightType
	Seed    uint64

	// TiedOutput omits output.weight so the decoder reuses token_embd, as
	// Qwen2.5-0.5B does.
	TiedOutput bool
	// ChatTemplate is written to tokenizer.chat_template when not empty.
	ChatTemplate string
	// Tokenizer, for a decoder, replaces the generated SentencePiece
	// vocabulary with a real byte-level BPE one (ReadHFTokenizer), so
	// that text tokenizes as the real model's does. Vocab 0 takes its
	// size; a larger Vocab pads it with unused tokens, as the real
	// embedding tables are padded (Qwen2.5: 151,665 tokens, 151,936 rows).
	Tokenizer *BPE
	// WordPiece, for a BERT model, replaces the generated vocabulary
	// with a real one (ReadWordPiece); Vocab 0 takes its size.
	WordPiece *WordPiece
	// Extra holds further metadata keys, written as given (use uint32,
	// int32, float32, bool, string, []string, []int32 or []float32: the
	// GGUF writer rejects plain int).
	Extra map[string]any
}

// ChatML is the chat template of Qwen2.5 instruct models, in the form
// llama.cpp recognises as "chatml".
const ChatML = "{% for message in messages %}{{'<|im_start|>' + message['role'] + '\n' + message['content'] + '<|im_end|>' + '\n'}}{% endfor %}{% if add_generation_prompt %}{{ '<|im_start|>assistant\n' }}{% endif %}"

// Tiny is a 2-layer, 32-wide BERT embedder with mean pooling and a 64-token
// context: it loads and embeds in milliseconds, and a few sentences already
// overflow its context.
func Tiny() Spec {
	return Spec{
		Arch: BERT, Name: "tiny-minilm-test", Layers: 2, Hidden: 32, Heads: 4, FFN: 64,
		Vocab: 4096, Context: 64, Pooling: PoolingMean, Weights: F32, Seed: 1,
	}
}

// MiniLML6 has all-MiniLM-L6-v2's exact shape: 6 layers, 384 wide, 12
// heads, 1536 FFN, 30522 tokens, 512 context, mean pooling, F16 weights as
// the common GGUF conversions ship it.
func MiniLML6() Spec {
	return Spec{
		Arch: BERT, Name: "all-MiniLM-L6-v2", Layers: 6, Hidden: 384, Heads: 12, FFN: 1536,
		Vocab: 30522, Context: 512, Pooling: PoolingMean, Weights: F16, Seed: 6,
	}
}

// BGESmall has bge-small-en-v1.5's shape (and multilingual-e5-small's
// transformer): 12 layers, 384 wide, 12 heads, 1536 FFN, CLS pooling.
// e5-small's 250K-token vocabulary is left out: the embedding table is
// looked up, not multiplied, so it changes the file, not the speed.
func BGESmall() Spec {
	return Spec{
		Arch: BERT, Name: "bge-small-en-v1.5-shape", Layers: 12, Hidden: 384, Heads: 12, FFN: 1536,
		Vocab: 30522, Context: 512, Pooling: PoolingCLS, Weights: F16, Seed: 10,
	}
}

// BERTBase is a 12-layer, 768-wide BERT (12 heads, 3072 FFN), the size of
// nomic-embed-text-v1.5, whose nomic-bert layers (rotary positions, a
// gated FFN with a third 768x3072 matrix) the writer does not lay out: its
// speed is an upper bound for nomic's, about 20 % above it by FLOPs.
func BERTBase() Spec {
	return Spec{
		Arch: BERT, Name: "bert-base-shape", Layers: 12, Hidden: 768, Heads: 12, FFN: 3072,
		Vocab: 30522, Context: 512, Pooling: PoolingMean, Weights: F16, Seed: 11,
	}
}

// TinyChat is a 2-layer, 64-wide LLaMA decoder with the ChatML template and
// a 512-token context, for generation tests.
func TinyChat() Spec {
	return Spec{
		Arch: LLaMA, Name: "tiny-chat-test", Layers: 2, Hidden: 64, Heads: 4, KVHeads: 2, FFN: 128,
		Vocab: 4096, Context: 512, Weights: F32, Seed: 2, ChatTemplate: ChatML,
	}
}

// TinyLastToken is a 2-layer causal Qwen2 decoder with last-token pooling,
// shaped like a miniature Qwen3-Embedding: it exercises the KV-cache path of
// embedding.
func TinyLastToken() Spec {
	return Spec{
		Arch: Qwen2, Name: "Qwen3-Embedding-tiny-test", Layers: 2, Hidden: 64, Heads: 4, KVHeads: 2,
		FFN: 128, Vocab: 4096, Context: 128, Pooling: PoolingLast, Weights: F32, Seed: 3,
		TiedOutput: true,
	}
}

// Qwen25_05B has Qwen2.5-0.5B-Instruct's shape: 24 layers, 896 wide, 14
// heads, 2 KV heads, 4864 FFN, 151936 tokens, tied output, ChatML; weights
// default to F16 (about 1 GB on disk). Use it for generation benchmarks.
func Qwen25_05B() Spec {
	return Spec{
		Arch: Qwen2, Name: "Qwen2.5-0.5B-Instruct-shape", Layers: 24, Hidden: 896, Heads: 14, KVHeads: 2,
		FFN: 4864, Vocab: 151936, Context: 32768, Weights: F16, Seed: 5, TiedOutput: true,
		ChatTemplate: ChatML,
	}
}

// Qwen25_15B has Qwen2.5-1.5B-Instruct's shape: 28 layers, 1536 wide, 12
// heads, 2 KV heads, 8960 FFN, 151936 tokens, tied output, ChatML; the
// catalogue's laptop default. F16 weights are about 3.1 GB on disk, Q8_0
// about 1.6 GB.
func Qwen25_15B() Spec {
	return Spec{
		Arch: Qwen2, Name: "Qwen2.5-1.5B-Instruct-shape", Layers: 28, Hidden: 1536, Heads: 12, KVHeads: 2,
		FFN: 8960, Vocab: 151936, Context: 32768, Weights: F16, Seed: 12, TiedOutput: true,
		ChatTemplate: ChatML,
	}
}

// TinyReranker is a 2-layer, 32-wide BERT cross-encoder with rank pooling
// and a classification head (cls.weight, cls.output.weight: one score per
// pair), shaped like a miniature ms-marco MiniLM cross-encoder: it loads
// and scores in milliseconds through llama.cpp's real rerank path.
func TinyReranker() Spec {
	return Spec{
		Arch: BERT, Name: "tiny-reranker-test", Layers: 2, Hidden: 32, Heads: 4, FFN: 64,
		Vocab: 4096, Context: 128, Pooling: PoolingRank, Weights: F32, Seed: 7,
	}
}

// BGERerankerV2M3 has bge-reranker-v2-m3's transformer (XLM-RoBERTa large):
// 24 layers, 1024 wide, 16 heads, 4096 FFN, rank pooling with the
// classification head, F16 weights as the common conversions ship it. Two
// differences, for the generator's sake: the vocabulary is WordPiece with
// 30522 tokens, not XLM-R's 250002 SentencePiece pieces (the embedding
// table is looked up, not multiplied, so its size changes the file, not
// the speed), and the context is 1024 positions, not 8194 (a rerank pair
// is cut to 512 tokens anyway).
func BGERerankerV2M3() Spec {
	return Spec{
		Arch: BERT, Name: "bge-reranker-v2-m3-shape", Layers: 24, Hidden: 1024, Heads: 16, FFN: 4096,
		Vocab: 30522, Context: 1024, Pooling: PoolingRank, Weights: F16, Seed: 8,
	}
}

// TinyQwen3Reranker is a 2-layer, 64-wide Qwen3 decoder with rank pooling
// and Qwen3-Reranker's head: cls.output with two outputs labelled yes and
// no, which llama.cpp reads at the last token and turns into P(yes) with a
// softmax. It carries no rerank prompt, as some conversions do not.
func TinyQwen3Reranker() Spec {
	return Spec{
		Arch: Qwen3, Name: "Qwen3-Reranker-tiny-test", Layers: 2, Hidden: 64, Heads: 4, KVHeads: 2,
		FFN: 128, Vocab: 4096, Context: 512, Pooling: PoolingRank, Weights: F32, Seed: 9, TiedOutput: true,
	}
}

func (s Spec) validate() error {
	switch {
	case s.Arch != BERT && s.Arch != LLaMA && s.Arch != Qwen2 && s.Arch != Qwen3:
		return fmt.Errorf("unknown architecture %q", s.Arch)
	case s.Layers <= 0 || s.Hidden <= 0 || s.Heads <= 0 || s.FFN <= 0 || s.Context <= 0:
		return fmt.Errorf("layers, hidden, heads, ffn and context must be positive: %+v", s)
	case s.Hidden%s.Heads != 0:
		return fmt.Errorf("hidden %d is not a multiple of heads %d", s.Hidden, s.Heads)
	case s.kvHeads() <= 0 || s.Heads%s.kvHeads() != 0:
		return fmt.Errorf("heads %d is not a multiple of kv heads %d", s.Heads, s.kvHeads())
	case s.Weights != F32 && s.Weights != F16 && s.Weights != Q8_0:
		return fmt.Errorf("unsupported weight type %v", s.Weights)
	case s.Pooling == PoolingRank && s.Arch != BERT && s.Arch != Qwen3:
		return fmt.Errorf("rank pooling is written for BERT cross-encoders and Qwen3 rerankers only, not %q", s.Arch)
	case s.Tokenizer != nil && s.Arch == BERT:
		return fmt.Errorf("a BPE tokenizer is written for decoders only, not %q", s.Arch)
	case s.WordPiece != nil && s.Arch != BERT:
		return fmt.Errorf("a WordPiece vocabulary is written for BERT models only, not %q", s.Arch)
	case s.WordPiece != nil && s.Vocab != 0 && s.Vocab < len(s.WordPiece.Tokens):
		return fmt.Errorf("vocab %d is smaller than the vocabulary's %d tokens", s.Vocab, len(s.WordPiece.Tokens))
	case s.Tokenizer != nil && s.Vocab != 0 && s.Vocab < len(s.Tokenizer.Tokens):
		return fmt.Errorf("vocab %d is smaller than the tokenizer's %d tokens", s.Vocab, len(s.Tokenizer.Tokens))
	case s.Weights == Q8_0 && (s.Hidden%32 != 0 || s.FFN%32 != 0):
		return fmt.Errorf("Q8_0 needs hidden and ffn multiples of 32, have %d and %d", s.Hidden, s.FFN)
	}
	return nil
}

func (s Spec) kvHeads() int {
	if s.Arch == BERT || s.KVHeads == 0 {
		return s.Heads
	}
	return s.KVHeads
}
