package ui

import (
	"cairn/core/config"
	"cairn/core/search"
	"cairn/panels"
)

// tuningFromConfig reads the engineering panel's knobs from the settings.
func tuningFromConfig(r config.Retrieval) panels.Tuning {
	return panels.Tuning{
		Params: search.Params{TopK: r.TopK, MinScore: r.MinScore, Fusion: search.Fusion(r.Fusion), RRFK: r.RRFK,
			VectorWeight: r.VectorWeight, PerDocCap: r.PerDocCap},
		Mode:     search.Mode(r.Mode),
		BM25Pool: r.BM25Pool, VectorPool: r.VectorPool,
	}
}

// storeTuning writes the knobs into the settings.
func storeTuning(r *config.Retrieval, t panels.Tuning) {
	r.TopK, r.MinScore, r.Fusion, r.RRFK = t.Params.TopK, t.Params.MinScore, string(t.Params.Fusion), t.Params.RRFK
	r.VectorWeight, r.PerDocCap = t.Params.VectorWeight, t.Params.PerDocCap
	r.Mode = string(t.Mode)
	r.BM25Pool, r.VectorPool = t.BM25Pool, t.VectorPool
}
