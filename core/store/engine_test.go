package store

import (
	"testing"

	"github.com/tetratelabs/wazero"
	"github.com/tetratelabs/wazero/api"
	"github.com/tetratelabs/wazero/experimental"
)

// copyKeeps is a WebAssembly module, written out by hand, with one function
//
//	f(dst, src, n i32) i32
//
// that loads the eight i32 words at address 0, copies n bytes from src to
// dst with memory.copy (what clang emits for SQLite's memcpy) and returns
// the sum of the eight words. They are loaded before the copy, so they stay
// live in registers across it.
var copyKeeps = []byte{
	0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00, // "\0asm", version 1
	0x01, 0x08, 0x01, 0x60, 0x03, 0x7f, 0x7f, 0x7f, 0x01, 0x7f, // type: (i32 i32 i32) -> i32
	0x03, 0x02, 0x01, 0x00, // function 0 has type 0
	0x05, 0x03, 0x01, 0x00, 0x01, // one memory of one page
	0x07, 0x05, 0x01, 0x01, 'f', 0x00, 0x00, // export "f"
	0x0a, 0x5f, 0x01, 0x5d, // code section: one body of 0x5d bytes
	0x01, 0x08, 0x7f, // locals 3..10: i32
	// local[3+i] = i32.load offset=4i (0)
	0x41, 0x00, 0x28, 0x02, 0x00, 0x21, 0x03,
	0x41, 0x00, 0x28, 0x02, 0x04, 0x21, 0x04,
	0x41, 0x00, 0x28, 0x02, 0x08, 0x21, 0x05,
	0x41, 0x00, 0x28, 0x02, 0x0c, 0x21, 0x06,
	0x41, 0x00, 0x28, 0x02, 0x10, 0x21, 0x07,
	0x41, 0x00, 0x28, 0x02, 0x14, 0x21, 0x08,
	0x41, 0x00, 0x28, 0x02, 0x18, 0x21, 0x09,
	0x41, 0x00, 0x28, 0x02, 0x1c, 0x21, 0x0a,
	// memory.copy(dst, src, n)
	0x20, 0x00, 0x20, 0x01, 0x20, 0x02, 0xfc, 0x0a, 0x00, 0x00,
	// local 3 + local 4 + ... + local 10
	0x20, 0x03,
	0x20, 0x04, 0x6a, 0x20, 0x05, 0x6a, 0x20, 0x06, 0x6a, 0x20, 0x07, 0x6a,
	0x20, 0x08, 0x6a, 0x20, 0x09, 0x6a, 0x20, 0x0a, 0x6a,
	0x0b, // end
}

// The engine SQLite runs on keeps the values a function holds in registers
// across a bulk memory copy. wazero before v1.9.0 compiles memory.copy to a
// call of Go's runtime.memmove and assumed it leaves DX alone; since Go 1.24
// memmove overwrites DX on forward copies of 2 KB or more to a 16-byte
// aligned destination on CPUs with fast REP MOVSB (ERMS and FSRM: recent
// Intel), so the SQLite code that kept a value in DX across a page-sized
// memcpy failed with "out of bounds memory access" at the first commit.
// On other CPUs memmove takes another path and this passes either way.
func TestEngineKeepsValuesAcrossMemoryCopy(t *testing.T) {
	// The configuration go-sqlite3 compiles SQLite with (see precompile).
	r := wazero.NewRuntimeWithConfig(ctx, runtimeConfig().WithCoreFeatures(api.CoreFeaturesV2|experimental.CoreFeaturesThreads))
	defer r.Close(ctx)
	mod, err := r.Instantiate(ctx, copyKeeps)
	if err != nil {
		t.Fatal(err)
	}
	mem := mod.Memory()
	var want uint32
	for i := range uint32(8) {
		v := 1000003 * (i + 1)
		mem.WriteUint32Le(4*i, v)
		want += v
	}
	for _, n := range []uint64{64, 2048, 4096, 8192} { // a SQLite page is 4096 bytes
		got, err := mod.ExportedFunction("f").Call(ctx, 16384, 32768, n)
		if err != nil {
			t.Fatalf("copy of %d bytes: %v", n, err)
		}
		if uint32(got[0]) != want {
			t.Errorf("copy of %d bytes: sum %d, want %d: a register was overwritten", n, uint32(got[0]), want)
		}
	}
}
