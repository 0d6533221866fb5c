package llm

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"math"
	"os"
)

// ErrNotGGUF is returned (wrapped, with the file name) for a file that does
// not start with the GGUF magic.
var ErrNotGGUF = errors.New("not a GGUF file")

// Pooling is how an embedding model turns token states into one vector,
// numbered as llama.cpp's enum llama_pooling_type.
type Pooling int

// Pooling types.
const (
	PoolingNone Pooling = 0
	PoolingMean Pooling = 1
	PoolingCLS  Pooling = 2
	PoolingLast Pooling = 3
	PoolingRank Pooling = 4
)

// String names the pooling type.
func (p Pooling) String() string {
	switch p {
	case PoolingNone:
		return "none"
	case PoolingMean:
		return "mean"
	case PoolingCLS:
		return "cls"
	case PoolingLast:
		return "last"
	case PoolingRank:
		return "rank"
	}
	return fmt.Sprintf("pooling(%d)", int(p))
}

// ArrayInfo stands in for a metadata array too long to keep (a vocabulary):
// its element type (GGUF numbering) and length.
type ArrayInfo struct {
	Type uint32
	Len  uint64
}

// Metadata is what a GGUF header says about a model. Reading it touches no
// tensor data except a few sampled blocks for the fingerprint.
type Metadata struct {
	Path         string
	Architecture string // general.architecture
	Name         string // general.name, may be empty
	BaseName     string // general.basename, may be empty
	// EmbeddingLength, ContextLength, BlockCount and HeadCount come from
	// <arch>.embedding_length and friends; 0 when absent.
	EmbeddingLength int
	ContextLength   int
	BlockCount      int
	HeadCount       int
	// Pooling is <arch>.pooling_type; PoolingNone when absent, which is
	// what llama.cpp assumes too.
	Pooling Pooling
	// Causal is false for encoders that declare <arch>.attention.causal =
	// false (BERT family) and for architectures llama.cpp runs as encoders.
	Causal         bool
	ChatTemplate   string // tokenizer.chat_template
	TokenizerModel string // tokenizer.ggml.model: bert, llama, gpt2, ...
	VocabSize      int    // length of tokenizer.ggml.tokens
	TensorCount    int
	Size           int64 // file size in bytes
	// Fingerprint is a hex SHA-256 over the header (all metadata and tensor
	// descriptions), the file size and sampled tensor data: two files with
	// the same fingerprint hold the same model for every practical purpose.
	Fingerprint string
	// KV holds every metadata value; arrays longer than 64 elements are
	// replaced by an ArrayInfo.
	KV map[string]any
}

// encoderArchs run without a causal mask in llama.cpp even when their
// metadata says nothing about it.
var encoderArchs = map[string]bool{
	"bert": true, "nomic-bert": true, "nomic-bert-moe": true, "jina-bert-v2": true,
	"jina-bert-v3": true, "neo-bert": true, "modern-bert": true, "t5encoder": true,
}

// ReadMetadata reads the GGUF header of the file at path.
func ReadMetadata(path string) (*Metadata, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("reading model metadata: %w", err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading model metadata: %w", err)
	}
	md, err := decodeHeader(f, st.Size())
	if err != nil {
		if errors.Is(err, ErrNotGGUF) {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return nil, fmt.Errorf("%s: reading GGUF header: %w", path, err)
	}
	md.Path = path
	return md, nil
}

// ggufReader reads little-endian GGUF values, hashing every byte it reads.
type ggufReader struct {
	r   *bufio.Reader
	h   hash.Hash
	n   int64
	buf [8]byte
}

func (g *ggufReader) read(n int) ([]byte, error) {
	var b []byte
	if n <= len(g.buf) {
		b = g.buf[:n]
	} else {
		b = make([]byte, n)
	}
	if _, err := io.ReadFull(g.r, b); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return nil, err
	}
	g.h.Write(b)
	g.n += int64(n)
	return b, nil
}

func (g *ggufReader) u32() (uint32, error) {
	b, err := g.read(4)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(b), nil
}

func (g *ggufReader) u64() (uint64, error) {
	b, err := g.read(8)
	if err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(b), nil
}

// maxString bounds a single string so a corrupt length cannot make us
// allocate gigabytes; real chat templates are a few kilobytes.
const maxString = 16 << 20

func (g *ggufReader) str() (string, error) {
	n, err := g.u64()
	if err != nil {
		return "", err
	}
	if n > maxString {
		return "", fmt.Errorf("string of %d bytes is implausibly long", n)
	}
	b, err := g.read(int(n))
	return string(b), err
}

// GGUF value types.
const (
	ggufUint8 uint32 = iota
	ggufInt8
	ggufUint16
	ggufInt16
	ggufUint32
	ggufInt32
	ggufFloat32
	ggufBool
	ggufString
	ggufArray
	ggufUint64
	ggufInt64
	ggufFloat64
)

func (g *ggufReader) scalar(t uint32) (any, error) {
	var n int
	switch t {
	case ggufString:
		return g.str()
	case ggufUint8, ggufInt8, ggufBool:
		n = 1
	case ggufUint16, ggufInt16:
		n = 2
	case ggufUint32, ggufInt32, ggufFloat32:
		n = 4
	case ggufUint64, ggufInt64, ggufFloat64:
		n = 8
	default:
		return nil, fmt.Errorf("unknown value type %d", t)
	}
	b, err := g.read(n)
	if err != nil {
		return nil, err
	}
	switch t {
	case ggufUint8:
		return b[0], nil
	case ggufInt8:
		return int8(b[0]), nil
	case ggufBool:
		return b[0] != 0, nil
	case ggufUint16:
		return binary.LittleEndian.Uint16(b), nil
	case ggufInt16:
		return int16(binary.LittleEndian.Uint16(b)), nil
	case ggufUint32:
		return binary.LittleEndian.Uint32(b), nil
	case ggufInt32:
		return int32(binary.LittleEndian.Uint32(b)), nil
	case ggufFloat32:
		return math.Float32frombits(binary.LittleEndian.Uint32(b)), nil
	case ggufUint64:
		return binary.LittleEndian.Uint64(b), nil
	case ggufInt64:
		return int64(binary.LittleEndian.Uint64(b)), nil
	default:
		return math.Float64frombits(binary.LittleEndian.Uint64(b)), nil
	}
}

// keptArray is the longest array kept in Metadata.KV.
const keptArray = 64

func (g *ggufReader) value(t uint32) (any, error) {
	if t != ggufArray {
		return g.scalar(t)
	}
	et, err := g.u32()
	if err != nil {
		return nil, err
	}
	n, err := g.u64()
	if err != nil {
		return nil, err
	}
	if et == ggufArray {
		return nil, errors.New("nested arrays are not supported")
	}
	if n > keptArray {
		// Still read every element: the hash must cover the vocabulary.
		for range n {
			if _, err := g.scalar(et); err != nil {
				return nil, err
			}
		}
		return ArrayInfo{Type: et, Len: n}, nil
	}
	out := make([]any, 0, n)
	for range n {
		v, err := g.scalar(et)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
	return out, nil
}

func decodeHeader(f *os.File, size int64) (*Metadata, error) {
	g := &ggufReader{r: bufio.NewReaderSize(f, 1<<16), h: sha256.New()}
	magic, err := g.read(4)
	if err != nil || string(magic) != "GGUF" {
		return nil, ErrNotGGUF
	}
	version, err := g.u32()
	if err != nil {
		return nil, err
	}
	if version < 2 || version > 3 {
		return nil, fmt.Errorf("unsupported GGUF version %d", version)
	}
	nTensors, err := g.u64()
	if err != nil {
		return nil, err
	}
	nKV, err := g.u64()
	if err != nil {
		return nil, err
	}
	if nKV > 1<<20 || nTensors > 1<<24 {
		return nil, fmt.Errorf("implausible header: %d keys, %d tensors", nKV, nTensors)
	}
	md := &Metadata{KV: make(map[string]any, nKV), TensorCount: int(nTensors), Size: size}
	for range nKV {
		k, err := g.str()
		if err != nil {
			return nil, err
		}
		t, err := g.u32()
		if err != nil {
			return nil, err
		}
		v, err := g.value(t)
		if err != nil {
			return nil, fmt.Errorf("key %s: %w", k, err)
		}
		md.KV[k] = v
	}
	for range nTensors {
		if _, err := g.str(); err != nil {
			return nil, err
		}
		dims, err := g.u32()
		if err != nil {
			return nil, err
		}
		if _, err := g.read(int(dims)*8 + 4 + 8); err != nil { // shape, type, offset
			return nil, err
		}
	}
	md.fill()

	// Sample tensor data so that two fine-tunes with identical headers still
	// get different fingerprints.
	fmt.Fprintf(g.h, "size=%d", size)
	buf := make([]byte, 64<<10)
	for _, at := range []int64{g.n, g.n + (size-g.n)/2, size - int64(len(buf))} {
		if at < g.n {
			at = g.n
		}
		n, err := f.ReadAt(buf, at)
		if err != nil && !errors.Is(err, io.EOF) {
			return nil, err
		}
		g.h.Write(buf[:n])
	}
	md.Fingerprint = hex.EncodeToString(g.h.Sum(nil))
	return md, nil
}

// fill sets the typed fields from KV.
func (md *Metadata) fill() {
	md.Architecture = md.String("general.architecture")
	md.Name = md.String("general.name")
	md.BaseName = md.String("general.basename")
	a := md.Architecture
	md.EmbeddingLength = md.Int(a + ".embedding_length")
	md.ContextLength = md.Int(a + ".context_length")
	md.BlockCount = md.Int(a + ".block_count")
	md.HeadCount = md.Int(a + ".attention.head_count")
	md.Pooling = Pooling(md.Int(a + ".pooling_type"))
	md.Causal = !encoderArchs[a]
	if c, ok := md.KV[a+".attention.causal"].(bool); ok {
		md.Causal = c
	}
	md.ChatTemplate = md.String("tokenizer.chat_template")
	md.TokenizerModel = md.String("tokenizer.ggml.model")
	switch v := md.KV["tokenizer.ggml.tokens"].(type) {
	case ArrayInfo:
		md.VocabSize = int(v.Len)
	case []any:
		md.VocabSize = len(v)
	}
}

// String returns the string value of key, or "".
func (md *Metadata) String(key string) string {
	s, _ := md.KV[key].(string)
	return s
}

// Int returns the integer value of key (any integer type), or 0.
func (md *Metadata) Int(key string) int {
	switch v := md.KV[key].(type) {
	case uint8:
		return int(v)
	case int8:
		return int(v)
	case uint16:
		return int(v)
	case int16:
		return int(v)
	case uint32:
		return int(v)
	case int32:
		return int(v)
	case uint64:
		return int(v)
	case int64:
		return int(v)
	}
	return 0
}
