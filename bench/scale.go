package bench

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
)

// ScaleBase is a knowledge base of unrelated documents (the first man
// pages of the file set) that each set's questions are asked again over,
// with the set's own documents added: refusals must hold when a few
// common words find thousands of passages. It is indexed once a run and
// copied for each set.
type ScaleBase struct {
	DB     string // the knowledge base file, closed
	Files  int
	Chunks int
}

// BuildScaleBase indexes folder into a new knowledge base under work.
func BuildScaleBase(ctx context.Context, folder, work string, log io.Writer) (ScaleBase, error) {
	db := filepath.Join(work, "scale-base", "base.db")
	fmt.Fprintf(log, "scale: indexing %s\n", folder)
	ix, err := IndexFresh(ctx, QualityStore{}, db, folder, filepath.Join(work, "scale-base", "home"))
	if err != nil {
		return ScaleBase{}, err
	}
	sb := ScaleBase{DB: db, Files: ix.Files, Chunks: ix.Chunks}
	if err := ix.Close(); err != nil {
		return sb, err
	}
	fmt.Fprintf(log, "scale: %d files, %d chunks in %.0f s\n", sb.Files, sb.Chunks, ix.Took.Seconds())
	return sb, nil
}

// ScaleScore is a set's questions asked over the set's documents and the
// scale base together.
type ScaleScore struct {
	Chunks int         `json:"chunks"`
	Added  int         `json:"files_added"`
	Cairn  AnswerScore `json:"answers"`
}

// askAtScale copies the scale base, adds docs to it and asks every
// question there as askQuestions does.
func askAtScale(ctx context.Context, sb ScaleBase, docs string, qs []Question, work string) (ScaleScore, error) {
	db := filepath.Join(work, "scale.db")
	removeDB(db)
	defer removeDB(db)
	if err := os.MkdirAll(work, 0o755); err != nil {
		return ScaleScore{}, err
	}
	if err := copyFile(sb.DB, db); err != nil {
		return ScaleScore{}, err
	}
	e, err := QualityEngine(ctx, db, filepath.Join(work, "scale-home"), nil)
	if err != nil {
		return ScaleScore{}, err
	}
	defer e.Close()
	run, err := e.IndexFolder(ctx, docs, nil)
	if err == nil {
		err = e.SyncKeywordIndex(ctx)
	}
	if err != nil {
		return ScaleScore{}, fmt.Errorf("index %s over the scale base: %w", docs, err)
	}
	out := map[string]Outcome{}
	for _, q := range qs {
		ans, err := e.Ask(ctx, e.SearchRequest(q.Text), nil)
		if err != nil {
			return ScaleScore{}, fmt.Errorf("question %s at scale: %w", q.ID, err)
		}
		o := Outcome{Answer: ans.Text, Refused: ans.Refused || ans.NoSources}
		for _, s := range ans.Sources {
			o.Sources = append(o.Sources, s.Text)
		}
		out[q.ID] = o
	}
	return ScaleScore{Chunks: sb.Chunks + run.Chunks, Added: sb.Files, Cairn: ScoreAnswers(qs, out)}, nil
}
