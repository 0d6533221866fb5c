package cli

import (
	"context"
	"flag"
	"fmt"

	"cairn/core"
	"cairn/core/config"
	"cairn/core/llm"
)

func runModels(ctx context.Context, env *cliEnv, args []string) error {
	if len(args) == 0 {
		args = []string{"list"}
	}
	fs := flag.NewFlagSet("models", flag.ContinueOnError)
	var kb kbFlags
	kb.add(fs)
	sha := fs.String("sha256", "", "expected SHA-256 `digest` of the file (pull)")
	pos, err := parseFlags(fs, args[1:])
	if err != nil {
		return err
	}
	// The models commands need no knowledge base, and must not create one.
	eng, err := core.Open(ctx, env.cfg, env.dirs, core.Options{NoKB: true, Log: env.log, Dial: env.dial, Keyring: env.keyring})
	if err != nil {
		return err
	}
	defer eng.Close()
	w := env.stdout
	switch args[0] {
	case "list":
		ms, err := eng.Models(ctx)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "Models folder: %s\n", env.cfg.Paths.ModelsDir)
		if len(ms) == 0 {
			fmt.Fprintln(w, "  (no GGUF files: put one there, or run `cairn models use PATH` or `cairn models pull NAME`)")
		}
		emb, gen, rr := env.cfg.Embedding.Model, env.cfg.Generation.Model, env.cfg.Rerank.Model
		for _, m := range ms {
			mark := " "
			if m.Path == emb || m.Path == gen || m.Path == rr {
				mark = "*"
			}
			if m.Err != "" {
				fmt.Fprintf(w, "%s %s: unusable: %s\n", mark, m.Path, m.Err)
				continue
			}
			detail := string(m.Kind)
			if m.Kind == llm.KindEmbedding {
				detail = fmt.Sprintf("embedding, %s, %d dimensions", m.Family, m.Dim)
			}
			fmt.Fprintf(w, "%s %s (%s, %.0f MB) %s\n", mark, m.Name, detail, float64(m.Size)/(1<<20), m.Path)
		}
		fmt.Fprintln(w, "\nDownloadable with `cairn models pull NAME` (needs network mode online):")
		for _, c := range llm.Catalog() {
			fmt.Fprintf(w, "  %-24s %-10s %5.0f MB  %s\n", c.Name, c.Kind, float64(c.Size)/(1<<20), c.Notes)
		}
		return nil
	case "use":
		if len(pos) != 1 {
			return usageError{"models use needs one GGUF file: cairn models use PATH"}
		}
		before := eng.Config()
		m, err := eng.UseModel(ctx, pos[0])
		if err != nil {
			return err
		}
		// Only the model is saved: the window may have saved other
		// settings, or `cairn network` the mode, since this command read
		// them.
		if err := config.Update(env.dirs, before, eng.Config()); err != nil {
			return fmt.Errorf("%s is not saved as the %s model: %w", m.Path, m.Kind, err)
		}
		fmt.Fprintf(w, "Using %s as the %s model.\n", m.Path, m.Kind)
		switch m.Kind {
		case llm.KindEmbedding:
			fmt.Fprintln(w, "Run `cairn index FOLDER` (or Re-index in the window) to compute the vectors of what is already indexed.")
		case llm.KindRerank:
			fmt.Fprintf(w, "Reranking is on (rerank.enabled), within %g s a search (rerank.budget_sec).\n", eng.Config().Rerank.BudgetSec)
		}
		return nil
	case "pull":
		return pullModel(ctx, env, eng, pos, *sha)
	}
	return usageError{fmt.Sprintf("unknown models command %q (list, use, pull)", args[0])}
}
