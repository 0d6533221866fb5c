// ggml-cpu.cpp asks for the AMX buffer type when the compiler targets AMX
// (-march=native on Sapphire Rapids and later), but ollama's cgo build of
// ggml-cpu leaves out ggml-cpu/amx, so such a build did not link. Without
// that buffer type ggml runs the same models on its AVX-512 kernels, which
// is what a null here says.
#if defined(__AMX_INT8__) && defined(__AVX512VNNI__)
struct ggml_backend_buffer_type;
ggml_backend_buffer_type *ggml_backend_amx_buffer_type() { return nullptr; }
#endif
