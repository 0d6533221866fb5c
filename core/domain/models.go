package domain

// ModelOffer is a model of the download catalogue as the window offers
// it: what it is for, how large it is and what it needs, and whether the
// models folder holds it (whole, or a download stopped part way).
type ModelOffer struct {
	Name    string // the catalogue's name, as `cairn models pull NAME` takes it
	Kind    string // ModelEmbedding, ModelReranker or ModelChat
	File    string // its file name in the models folder
	Size    int64  // about, in bytes
	Needs   string // what it needs to run ("about 1.3 GB of memory")
	License string
	Notes   string
	SHA256  string // the catalogue's digest; "" when it has none
	Have    bool   // the file is in the models folder
	Partial int64  // bytes of a download stopped part way (its .part file); 0 for none
}

// The kinds of model a ModelOffer can be.
const (
	ModelEmbedding = "embedding"
	ModelReranker  = "reranker"
	ModelChat      = "chat"
)

// ModelPull is what downloading a catalogue model did.
type ModelPull struct {
	Name    string
	URL     string // where it came from
	Path    string // the GGUF file in the models folder
	Bytes   int64
	SHA256  string // the file's digest
	Checked bool   // the digest matched an expected one (the catalogue's or the caller's)
	Existed bool   // the file was already there: nothing was downloaded
}
