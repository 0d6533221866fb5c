package cli

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"cairn/bench"
)

// benchFollowUps asks the follow-up set in d (`cairn bench quality --set
// testdata/quality/followups`), prints its table and writes its per-pair
// detail next to the other sets' (DIR/sets/NAME-detail.json).
func benchFollowUps(ctx context.Context, env *cliEnv, st bench.QualityStore, dir, work, d string) (bench.FollowUpReport, error) {
	fs, err := bench.ReadFollowUpSet(d)
	if err != nil {
		return bench.FollowUpReport{}, err
	}
	fmt.Fprintf(env.stderr, "follow-up set %s: %d documents, %d pairs\n", fs.Name, len(fs.Docs), len(fs.Pairs))
	r, err := bench.FollowUpBench(ctx, st, fs, dir, work, env.stderr)
	if err != nil {
		return r, err
	}
	b, _ := json.MarshalIndent(r.Results, "", "  ")
	detail := filepath.Join(dir, "sets", fs.Name+"-detail.json")
	if err := os.WriteFile(detail, b, 0o644); err != nil {
		return r, err
	}
	bench.PrintFollowUps(env.stdout, r)
	fmt.Fprintf(env.stdout, "Per-pair detail: %s\n", detail)
	return r, nil
}
