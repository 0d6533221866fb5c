/*
 * Audio-disabled stand-in for miniaudio.h.
 *
 * llama.cpp's tools/mtmd/mtmd-helper.cpp includes miniaudio to decode audio
 * inputs for multimodal models. Go module zips drop llama.cpp's vendor/ folder,
 * and Cairn never feeds audio to a model, so this header declares just the
 * items mtmd-helper.cpp uses and makes every decode/encode call fail.
 */
#ifndef CAIRN_MINIAUDIO_STUB_H
#define CAIRN_MINIAUDIO_STUB_H

#include <stddef.h>
#include <stdint.h>

#ifndef MA_API
#define MA_API static
#endif

typedef int ma_result;
typedef uint32_t ma_uint32;
typedef uint64_t ma_uint64;

#define MA_SUCCESS 0
#define MA_NOT_IMPLEMENTED (-29)

typedef enum { ma_format_unknown = 0, ma_format_f32 = 5 } ma_format;
typedef enum { ma_encoding_format_unknown = 0, ma_encoding_format_wav = 1 } ma_encoding_format;

typedef struct { ma_format format; ma_uint32 channels; ma_uint32 sampleRate; } ma_decoder_config;
typedef struct { int unused; } ma_decoder;
typedef struct { ma_encoding_format encodingFormat; ma_format format; ma_uint32 channels; ma_uint32 sampleRate; } ma_encoder_config;
typedef struct { int unused; } ma_encoder;

static inline ma_decoder_config ma_decoder_config_init(ma_format f, ma_uint32 ch, ma_uint32 rate) {
    ma_decoder_config c; c.format = f; c.channels = ch; c.sampleRate = rate; return c;
}
static inline ma_result ma_decoder_init_memory(const void *data, size_t size, const ma_decoder_config *cfg, ma_decoder *d) {
    (void)data; (void)size; (void)cfg; (void)d; return MA_NOT_IMPLEMENTED;
}
static inline ma_result ma_decoder_get_length_in_pcm_frames(ma_decoder *d, ma_uint64 *n) {
    (void)d; if (n) *n = 0; return MA_NOT_IMPLEMENTED;
}
static inline ma_result ma_decoder_read_pcm_frames(ma_decoder *d, void *out, ma_uint64 n, ma_uint64 *read) {
    (void)d; (void)out; (void)n; if (read) *read = 0; return MA_NOT_IMPLEMENTED;
}
static inline ma_result ma_decoder_uninit(ma_decoder *d) { (void)d; return MA_SUCCESS; }

static inline ma_encoder_config ma_encoder_config_init(ma_encoding_format e, ma_format f, ma_uint32 ch, ma_uint32 rate) {
    ma_encoder_config c; c.encodingFormat = e; c.format = f; c.channels = ch; c.sampleRate = rate; return c;
}
static inline ma_result ma_encoder_init_file(const char *path, const ma_encoder_config *cfg, ma_encoder *e) {
    (void)path; (void)cfg; (void)e; return MA_NOT_IMPLEMENTED;
}
static inline ma_result ma_encoder_write_pcm_frames(ma_encoder *e, const void *in, ma_uint64 n, ma_uint64 *written) {
    (void)e; (void)in; (void)n; if (written) *written = 0; return MA_NOT_IMPLEMENTED;
}
static inline ma_result ma_encoder_uninit(ma_encoder *e) { (void)e; return MA_SUCCESS; }

#endif
