package domain

// Stats summarises a knowledge base.
type Stats struct {
	Path          string
	Documents     int
	Chunks        int
	Vectors       int // chunks with an embedding
	Issues        int
	Folders       int
	Bytes         int64 // database file plus its WAL
	VectorModel   string
	VectorDim     int
	SchemaVersion int
	LastRun       *Run
}
