package testmodel

import (
	"encoding/binary"
	"hash/fnv"
	"io"
	"math"

	"github.com/ollama/ollama/fs/ggml"
)

// fill says what values a tensor holds.
type fill int

const (
	fillRandom fill = iota // uniform in [-scale, scale]
	fillOnes               // norm weights
	fillZeros              // norm biases
)

// randomTensor produces a tensor's bytes on demand. WriteGGUF writes tensors
// concurrently, so every tensor draws from its own generator seeded by the
// model seed and the tensor name: the file is identical whatever the order.
type randomTensor struct {
	name  string
	kind  WeightType
	n     int // number of values
	fill  fill
	scale float32
	seed  uint64
}

// newTensor describes one tensor; shape is innermost dimension first, as
// GGUF stores it.
func newTensor(s Spec, name string, kind WeightType, f fill, scale float32, shape ...int) *ggml.Tensor {
	n := 1
	dims := make([]uint64, len(shape))
	for i, d := range shape {
		n *= d
		dims[i] = uint64(d)
	}
	h := fnv.New64a()
	h.Write([]byte(name))
	return &ggml.Tensor{
		Name:  name,
		Kind:  uint32(kind),
		Shape: dims,
		WriterTo: &randomTensor{
			name: name, kind: kind, n: n, fill: f, scale: scale, seed: s.Seed ^ h.Sum64(),
		},
	}
}

// WriteTo streams the tensor in blocks so memory stays small however large
// the tensor is.
func (t *randomTensor) WriteTo(w io.Writer) (int64, error) {
	rng := splitmix{state: t.seed}
	const block = 32 // Q8_0 block length; also a fine chunk for F32/F16
	var (
		written int64
		buf     []byte
		vals    [block]float32
	)
	for done := 0; done < t.n; done += block {
		k := min(block, t.n-done)
		for i := range k {
			switch t.fill {
			case fillOnes:
				vals[i] = 1
			case fillZeros:
				vals[i] = 0
			default:
				vals[i] = (rng.float()*2 - 1) * t.scale
			}
		}
		buf = t.encode(buf, vals[:k])
		if len(buf) >= 64<<10 || done+block >= t.n {
			n, err := w.Write(buf)
			written += int64(n)
			if err != nil {
				return written, err
			}
			buf = buf[:0]
		}
	}
	return written, nil
}

// encode appends vals in the tensor's storage type.
func (t *randomTensor) encode(buf []byte, vals []float32) []byte {
	switch t.kind {
	case F16:
		for _, v := range vals {
			buf = binary.LittleEndian.AppendUint16(buf, toHalf(v))
		}
	case Q8_0:
		// ggml's block_q8_0: one f16 scale, then 32 signed bytes.
		var amax float32
		for _, v := range vals {
			amax = max(amax, float32(math.Abs(float64(v))))
		}
		d := amax / 127
		buf = binary.LittleEndian.AppendUint16(buf, toHalf(d))
		for _, v := range vals {
			q := int8(0)
			if d != 0 {
				q = int8(math.Round(float64(v / d)))
			}
			buf = append(buf, byte(q))
		}
	default:
		for _, v := range vals {
			buf = binary.LittleEndian.AppendUint32(buf, math.Float32bits(v))
		}
	}
	return buf
}

// toHalf converts to IEEE 754 binary16, truncating the mantissa: exact
// rounding does not matter for random weights, speed does.
func toHalf(f float32) uint16 {
	b := math.Float32bits(f)
	sign := uint16(b>>16) & 0x8000
	exp := int((b>>23)&0xff) - 127 + 15
	mant := b & 0x7fffff
	switch {
	case exp <= 0:
		if exp < -10 {
			return sign
		}
		mant |= 0x800000
		return sign | uint16(mant>>uint(14-exp))
	case exp >= 31:
		return sign | 0x7c00
	}
	return sign | uint16(exp)<<10 | uint16(mant>>13)
}

// splitmix is SplitMix64: tiny, fast and good enough for random weights.
type splitmix struct{ state uint64 }

func (r *splitmix) next() uint64 {
	r.state += 0x9e3779b97f4a7c15
	z := r.state
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// float returns a value in [0, 1).
func (r *splitmix) float() float32 {
	return float32(r.next()>>40) / (1 << 24)
}
