package llm

// #if defined(__AVX512F__)
// enum { cairn_f16_step = 64 };
// #elif defined(__AVX__) || defined(__AVX2__)
// enum { cairn_f16_step = 32 };
// #else
// enum { cairn_f16_step = 0 };
// #endif
import "C"

// f16Step is how many elements ggml's F16 vector loops (ggml_vec_dot_f16,
// ggml_vec_mad_f16 in ggml-cpu/vec.cpp, GGML_F16_STEP) take per step in
// this build; the elements left over after the last whole step go one at
// a time, each through a scalar half-to-float conversion. cgo compiles
// this file with the same CGO_CFLAGS as ggml, so the value is ggml's. 0:
// neither AVX nor AVX-512, nothing to avoid.
const f16Step = int(C.cairn_f16_step)

// scalarAttention reports whether llama.cpp's CPU flash attention would
// run heads of width head in scalar code: it takes one dot product and
// one multiply-add per key over the head's width, and a width below or
// off the step loses the vector loop. Built with -march=native on an
// AVX-512 machine, a 32-wide head (all-MiniLM, bge-small, e5-small:
// 384/12) loses it entirely: 3.2 chunks/s against 7.8 for x86-64-v3,
// whose 32-element step fits (bench/llmbench/BENCHMARKS.md).
func scalarAttention(head, step int) bool {
	return step > 0 && head > 0 && head%step != 0
}

// headWidth is the width of a model's attention heads: the key length
// its metadata declares, else the embedding width over the heads.
func headWidth(md *Metadata) int {
	if v := md.Int(md.Architecture + ".attention.key_length"); v > 0 {
		return v
	}
	if md.HeadCount <= 0 {
		return 0
	}
	return md.EmbeddingLength / md.HeadCount
}
