package domain

import (
	"errors"
	"time"
)

// Document is an indexed file as a list of the knowledge base shows it.
type Document struct {
	Path     string
	Title    string
	Format   string
	Size     int64
	Modified time.Time
	Chunks   int
}

// Embeddings are texts' vectors from the loaded embedding model, in the
// order of the texts, and the tokens they took.
type Embeddings struct {
	Model   string // the model's name (its file's, without .gguf)
	Vectors [][]float32
	Tokens  int
}

// ErrNoEmbedder is returned for texts to embed while no embedding model is
// configured or found.
var ErrNoEmbedder = errors.New("no embedding model is loaded: put one in the models folder or choose one with `cairn models use PATH` (keyword search needs none, embeddings do)")
