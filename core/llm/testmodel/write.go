package testmodel

import (
	"fmt"
	"math"
	"os"

	"github.com/ollama/ollama/fs/ggml"
)

// Write writes the model described by s to path as a GGUF file, replacing
// any file there. The same Spec (including Seed) always gives the same bytes.
func Write(path string, s Spec) error {
	if err := s.validate(); err != nil {
		return fmt.Errorf("testmodel %s: %w", path, err)
	}
	var (
		kv      ggml.KV
		tensors []*ggml.Tensor
		err     error
	)
	if s.Arch == BERT {
		kv, tensors, err = bertModel(s)
	} else {
		kv, tensors, err = decoderModel(s)
	}
	if err != nil {
		return fmt.Errorf("testmodel %s: %w", path, err)
	}
	if s.Name != "" {
		kv["general.name"] = s.Name
	}
	if s.ChatTemplate != "" {
		kv["tokenizer.chat_template"] = s.ChatTemplate
	}
	for k, v := range s.Extra {
		kv[k] = v
	}
	kv["general.file_type"] = fileType(s.Weights)

	f, err := os.Create(path)
	if err != nil {
		return fmt.Errorf("testmodel: %w", err)
	}
	if err := ggml.WriteGGUF(f, kv, tensors); err != nil {
		f.Close()
		return fmt.Errorf("testmodel %s: writing GGUF: %w", path, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("testmodel %s: %w", path, err)
	}
	return nil
}

// fileType is llama_ftype for a model whose matrices all have type w.
func fileType(w WeightType) uint32 {
	switch w {
	case F16:
		return 1
	case Q8_0:
		return 7
	}
	return 0
}

// uniform returns the half-width of a uniform distribution with variance
// 1/fanIn, which keeps activations of a random network in a sane range.
func uniform(fanIn int) float32 {
	return float32(math.Sqrt(3 / float64(fanIn)))
}

// shapeKV holds the keys every architecture needs for its shape.
func shapeKV(s Spec) ggml.KV {
	a := string(s.Arch)
	return ggml.KV{
		"general.architecture":      a,
		a + ".context_length":       uint32(s.Context),
		a + ".embedding_length":     uint32(s.Hidden),
		a + ".block_count":          uint32(s.Layers),
		a + ".feed_forward_length":  uint32(s.FFN),
		a + ".attention.head_count": uint32(s.Heads),
	}
}

func bertModel(s Spec) (ggml.KV, []*ggml.Tensor, error) {
	var (
		v                        *vocab
		err                      error
		pad, unk, cls, sep, mask = bertPAD, bertUNK, bertCLS, bertSEP, bertMASK
	)
	if wp := s.WordPiece; wp != nil {
		if s.Vocab == 0 {
			s.Vocab = len(wp.Tokens)
		}
		v = &vocab{tokens: append([]string(nil), wp.Tokens...), types: append([]int32(nil), wp.Types...)}
		for id := len(v.tokens); id < s.Vocab; id++ {
			v.tokens, v.types = append(v.tokens, fmt.Sprintf("[PAD%d]", id)), append(v.types, tokenUnused)
		}
		pad, unk, cls, sep, mask = wp.PAD, wp.UNK, wp.CLS, wp.SEP, wp.MASK
	} else if v, err = wordPiece(s.Vocab); err != nil {
		return nil, nil, err
	}
	a := string(s.Arch)
	kv := shapeKV(s)
	for key, val := range map[string]any{
		a + ".attention.layer_norm_epsilon":       float32(1e-12),
		a + ".attention.causal":                   false,
		a + ".pooling_type":                       uint32(s.Pooling),
		"tokenizer.ggml.model":                    "bert",
		"tokenizer.ggml.tokens":                   v.tokens,
		"tokenizer.ggml.token_type":               v.types,
		"tokenizer.ggml.token_type_count":         uint32(2),
		"tokenizer.ggml.bos_token_id":             uint32(cls),
		"tokenizer.ggml.cls_token_id":             uint32(cls),
		"tokenizer.ggml.seperator_token_id":       uint32(sep), // sic: llama.cpp's spelling
		"tokenizer.ggml.unknown_token_id":         uint32(unk),
		"tokenizer.ggml.padding_token_id":         uint32(pad),
		"tokenizer.ggml.mask_token_id":            uint32(mask),
		"tokenizer.ggml.add_bos_token":            true,
		"tokenizer.ggml.add_eos_token":            false,
		"tokenizer.ggml.add_sep_token":            true,
		"tokenizer.ggml.remove_extra_whitespaces": true,
	} {
		kv[key] = val
	}

	h, f, w := s.Hidden, s.FFN, s.Weights
	ts := []*ggml.Tensor{
		newTensor(s, "token_embd.weight", w, fillRandom, 0.05, h, s.Vocab),
		newTensor(s, "position_embd.weight", w, fillRandom, 0.05, h, s.Context),
		newTensor(s, "token_types.weight", F32, fillRandom, 0.05, h, 2),
		newTensor(s, "token_embd_norm.weight", F32, fillOnes, 0, h),
		newTensor(s, "token_embd_norm.bias", F32, fillZeros, 0, h),
	}
	if s.Pooling == PoolingRank {
		// The RoBERTa classification head as convert_hf_to_gguf writes
		// it: dense + tanh (cls), then one output (cls.output), the score.
		ts = append(ts,
			newTensor(s, "cls.weight", w, fillRandom, uniform(h), h, h),
			newTensor(s, "cls.bias", F32, fillRandom, 0.02, h),
			newTensor(s, "cls.output.weight", w, fillRandom, uniform(h), h, 1),
			newTensor(s, "cls.output.bias", F32, fillRandom, 0.02, 1),
		)
	}
	for i := range s.Layers {
		p := fmt.Sprintf("blk.%d.", i)
		ts = append(ts,
			newTensor(s, p+"attn_q.weight", w, fillRandom, uniform(h), h, h),
			newTensor(s, p+"attn_q.bias", F32, fillRandom, 0.02, h),
			newTensor(s, p+"attn_k.weight", w, fillRandom, uniform(h), h, h),
			newTensor(s, p+"attn_k.bias", F32, fillRandom, 0.02, h),
			newTensor(s, p+"attn_v.weight", w, fillRandom, uniform(h), h, h),
			newTensor(s, p+"attn_v.bias", F32, fillRandom, 0.02, h),
			newTensor(s, p+"attn_output.weight", w, fillRandom, uniform(h), h, h),
			newTensor(s, p+"attn_output.bias", F32, fillRandom, 0.02, h),
			newTensor(s, p+"attn_output_norm.weight", F32, fillOnes, 0, h),
			newTensor(s, p+"attn_output_norm.bias", F32, fillZeros, 0, h),
			newTensor(s, p+"ffn_up.weight", w, fillRandom, uniform(h), h, f),
			newTensor(s, p+"ffn_up.bias", F32, fillRandom, 0.02, f),
			newTensor(s, p+"ffn_down.weight", w, fillRandom, uniform(f), f, h),
			newTensor(s, p+"ffn_down.bias", F32, fillRandom, 0.02, h),
			newTensor(s, p+"layer_output_norm.weight", F32, fillOnes, 0, h),
			newTensor(s, p+"layer_output_norm.bias", F32, fillZeros, 0, h),
		)
	}
	return kv, ts, nil
}

func decoderModel(s Spec) (ggml.KV, []*ggml.Tensor, error) {
	if s.Tokenizer != nil {
		return bpeDecoder(s)
	}
	v, err := sentencePiece(s.Vocab)
	if err != nil {
		return nil, nil, err
	}
	a := string(s.Arch)
	ropeBase := float32(10000)
	if s.Arch == Qwen2 || s.Arch == Qwen3 {
		ropeBase = 1000000
	}
	kv := shapeKV(s)
	for key, val := range map[string]any{
		a + ".attention.head_count_kv":          uint32(s.kvHeads()),
		a + ".attention.layer_norm_rms_epsilon": float32(1e-6),
		a + ".rope.freq_base":                   ropeBase,
		"tokenizer.ggml.model":                  "llama",
		"tokenizer.ggml.tokens":                 v.tokens,
		"tokenizer.ggml.scores":                 v.scores,
		"tokenizer.ggml.token_type":             v.types,
		"tokenizer.ggml.bos_token_id":           uint32(spmBOS),
		"tokenizer.ggml.eos_token_id":           uint32(spmEOS),
		"tokenizer.ggml.unknown_token_id":       uint32(spmUNK),
		"tokenizer.ggml.add_bos_token":          s.Arch == LLaMA,
		"tokenizer.ggml.add_eos_token":          false,
	} {
		kv[key] = val
	}
	if s.Pooling != PoolingNone {
		kv[a+".pooling_type"] = uint32(s.Pooling)
	}
	if s.Pooling == PoolingRank {
		// Qwen3-Reranker's converter keeps the rows of "yes" and "no" of
		// the output layer as the head, labelled so.
		kv[a+".classifier.output_labels"] = []string{"yes", "no"}
	}
	if s.Pooling == PoolingLast {
		// Qwen3-Embedding appends <|endoftext|> and pools the hidden state
		// there.
		kv["tokenizer.ggml.eos_token_id"] = uint32(spmEndOfText)
		kv["tokenizer.ggml.add_eos_token"] = true
	} else if s.ChatTemplate != "" {
		// Instruct models end their turn with <|im_end|>.
		kv["tokenizer.ggml.eos_token_id"] = uint32(spmIMEnd)
	}

	return kv, decoderTensors(s), nil
}

// bpeDecoder lays out a decoder with s.Tokenizer's vocabulary, its keys as
// convert_hf_to_gguf writes them for Qwen2.5.
func bpeDecoder(s Spec) (ggml.KV, []*ggml.Tensor, error) {
	b := s.Tokenizer
	if s.Vocab == 0 {
		s.Vocab = len(b.Tokens)
	}
	tokens := append(make([]string, 0, s.Vocab), b.Tokens...)
	types := append(make([]int32, 0, s.Vocab), b.Types...)
	for id := len(tokens); id < s.Vocab; id++ {
		tokens, types = append(tokens, fmt.Sprintf("[PAD%d]", id)), append(types, tokenUnused)
	}
	a := string(s.Arch)
	kv := shapeKV(s)
	for key, val := range map[string]any{
		a + ".attention.head_count_kv":          uint32(s.kvHeads()),
		a + ".attention.layer_norm_rms_epsilon": float32(1e-6),
		a + ".rope.freq_base":                   float32(1000000),
		"tokenizer.ggml.model":                  "gpt2",
		"tokenizer.ggml.pre":                    b.Pre,
		"tokenizer.ggml.tokens":                 tokens,
		"tokenizer.ggml.token_type":             types,
		"tokenizer.ggml.merges":                 b.Merges,
		"tokenizer.ggml.add_bos_token":          false,
		"tokenizer.ggml.add_eos_token":          s.Pooling == PoolingLast,
	} {
		kv[key] = val
	}
	for key, id := range map[string]int{"bos_token_id": b.BOS, "eos_token_id": b.EOS, "padding_token_id": b.PAD} {
		if id >= 0 {
			kv["tokenizer.ggml."+key] = uint32(id)
		}
	}
	if s.Pooling == PoolingLast && b.PAD >= 0 {
		kv["tokenizer.ggml.eos_token_id"] = uint32(b.PAD) // <|endoftext|>, as Qwen3-Embedding
	}
	if s.Pooling != PoolingNone {
		kv[a+".pooling_type"] = uint32(s.Pooling)
	}
	if s.Pooling == PoolingRank {
		kv[a+".classifier.output_labels"] = []string{"yes", "no"}
	}
	return kv, decoderTensors(s), nil
}

// decoderTensors lays out a decoder's tensors, the embedding table (and
// the output, unless tied) with s.Vocab rows.
func decoderTensors(s Spec) []*ggml.Tensor {
	h, f, w := s.Hidden, s.FFN, s.Weights
	kvDim := h / s.Heads * s.kvHeads()
	ts := []*ggml.Tensor{
		newTensor(s, "token_embd.weight", w, fillRandom, 0.5, h, s.Vocab),
		newTensor(s, "output_norm.weight", F32, fillOnes, 0, h),
	}
	if !s.TiedOutput {
		ts = append(ts, newTensor(s, "output.weight", w, fillRandom, uniform(h), h, s.Vocab))
	}
	if s.Pooling == PoolingRank {
		ts = append(ts, newTensor(s, "cls.output.weight", w, fillRandom, uniform(h), h, 2))
	}
	for i := range s.Layers {
		p := fmt.Sprintf("blk.%d.", i)
		ts = append(ts,
			newTensor(s, p+"attn_norm.weight", F32, fillOnes, 0, h),
			newTensor(s, p+"attn_q.weight", w, fillRandom, uniform(h), h, h),
			newTensor(s, p+"attn_k.weight", w, fillRandom, uniform(h), h, kvDim),
			newTensor(s, p+"attn_v.weight", w, fillRandom, uniform(h), h, kvDim),
			newTensor(s, p+"attn_output.weight", w, fillRandom, uniform(h), h, h),
			newTensor(s, p+"ffn_norm.weight", F32, fillOnes, 0, h),
			newTensor(s, p+"ffn_gate.weight", w, fillRandom, uniform(h), h, f),
			newTensor(s, p+"ffn_up.weight", w, fillRandom, uniform(h), h, f),
			newTensor(s, p+"ffn_down.weight", w, fillRandom, uniform(f), f, h),
		)
		if s.Arch == Qwen3 {
			hd := h / s.Heads
			ts = append(ts,
				newTensor(s, p+"attn_q_norm.weight", F32, fillOnes, 0, hd),
				newTensor(s, p+"attn_k_norm.weight", F32, fillOnes, 0, hd),
			)
		}
		if s.Arch == Qwen2 {
			ts = append(ts,
				newTensor(s, p+"attn_q.bias", F32, fillRandom, 0.02, h),
				newTensor(s, p+"attn_k.bias", F32, fillRandom, 0.02, kvDim),
				newTensor(s, p+"attn_v.bias", F32, fillRandom, 0.02, kvDim),
			)
		}
	}
	return ts
}
