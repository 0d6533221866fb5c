// Command testgguf writes a GGUF model with random weights and a real
// architecture and tokenizer (core/llm/testmodel), for checks that need a
// model where none can be downloaded: `make test-clients` gives `cairn
// serve` an embedding model this way.
//
//	go run ./tools/testgguf -spec tiny -o MODELS/tiny-minilm-test.gguf
package main

import (
	"flag"
	"fmt"
	"os"
	"slices"
	"strings"

	"cairn/core/llm/testmodel"
)

var specs = map[string]func() testmodel.Spec{
	"tiny":      testmodel.Tiny,     // a 32-wide BERT embedder, milliseconds a passage
	"minilm":    testmodel.MiniLML6, // all-MiniLM-L6-v2's shape
	"tiny-chat": testmodel.TinyChat, // a 64-wide LLaMA chat model
	"reranker":  testmodel.TinyReranker,
}

func main() {
	spec := flag.String("spec", "tiny", "the model: "+strings.Join(names(), ", "))
	out := flag.String("o", "", "the GGUF file to write")
	flag.Parse()
	mk, ok := specs[*spec]
	if !ok || *out == "" {
		fmt.Fprintf(os.Stderr, "usage: testgguf -spec %s -o FILE.gguf\n", strings.Join(names(), "|"))
		os.Exit(2)
	}
	if err := testmodel.Write(*out, mk()); err != nil {
		fmt.Fprintln(os.Stderr, "testgguf:", err)
		os.Exit(1)
	}
}

func names() []string {
	var out []string
	for n := range specs {
		out = append(out, n)
	}
	slices.Sort(out)
	return out
}
