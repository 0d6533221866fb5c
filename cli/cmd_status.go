package cli

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"time"

	"cairn/core/domain"
	"cairn/core/fault"
	"cairn/core/search"
)

func runStatus(ctx context.Context, env *cliEnv, args []string) error {
	fs := flag.NewFlagSet("status", flag.ContinueOnError)
	var kb kbFlags
	kb.add(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	issues := fs.Bool("issues", false, "list every file that is not indexed, with the reason")
	if _, err := parseFlags(fs, args); err != nil {
		return err
	}
	eng, err := kb.open(ctx, env)
	if err != nil {
		return err
	}
	defer eng.Close()
	st, err := eng.Status(ctx)
	if err != nil {
		return err
	}
	folders, err := eng.Folders(ctx)
	if err != nil {
		return err
	}
	if *asJSON {
		type jsonFolder struct {
			Path      string `json:"path"`
			Documents int    `json:"documents"`
			Chunks    int    `json:"chunks"`
			Issues    int    `json:"issues"`
			Watched   bool   `json:"watched"`
		}
		out := struct {
			Path           string       `json:"path"`
			Store          string       `json:"store"`
			Documents      int          `json:"documents"`
			Chunks         int          `json:"chunks"`
			Vectors        int          `json:"vectors"`
			Issues         int          `json:"issues"`
			SizeBytes      int64        `json:"size_bytes"`
			EmbeddingModel string       `json:"embedding_model"`
			VectorDim      int          `json:"vector_dim"`
			ChatModel      string       `json:"chat_model"`
			NetworkMode    string       `json:"network_mode"`
			Folders        []jsonFolder `json:"folders"`
			LastRun        any          `json:"last_run"`

			// Present while embeddings are still being computed.
			MeaningCoverage *search.MeaningCoverage `json:"meaning_coverage,omitempty"`
		}{Path: st.Path, Store: st.Store, Documents: st.Documents, Chunks: st.Chunks, Vectors: st.Vectors, Issues: st.Issues,
			SizeBytes: st.Bytes, EmbeddingModel: st.VectorModel, VectorDim: st.VectorDim, ChatModel: st.ChatModel,
			NetworkMode: st.NetworkMode, Folders: []jsonFolder{}, MeaningCoverage: st.MeaningCoverage()}
		for _, f := range folders {
			out.Folders = append(out.Folders, jsonFolder{f.Path, f.Documents, f.Chunks, f.Issues, f.Watched})
		}
		if r := st.LastRun; r != nil {
			out.LastRun = map[string]any{"folder": r.Folder, "status": r.Status, "started_at": r.StartedAt.Format(time.RFC3339),
				"files_indexed": r.FilesIndexed, "files_unchanged": r.FilesUnchanged, "files_skipped": r.FilesSkipped,
				"files_failed": r.FilesFailed, "files_removed": r.FilesRemoved, "chunks": r.Chunks}
		}
		enc := json.NewEncoder(env.stdout)
		enc.SetIndent("", "  ")
		return enc.Encode(out)
	}
	w := env.stdout
	fmt.Fprintf(w, "Knowledge base: %s (%.1f MB)\n", fault.Printable(st.Path), float64(st.Bytes)/(1<<20))
	fmt.Fprintf(w, "Store:          %s\n", st.Store)
	fmt.Fprintf(w, "Documents:      %d\nChunks:         %d\n", st.Documents, st.Chunks)
	if st.VectorModel != "" && st.Team {
		fmt.Fprintf(w, "Embeddings:     %s (%d dimensions), %d of %d chunks embedded (in folders the cluster records as embedded)\n",
			st.VectorModel, st.VectorDim, st.Vectors, st.Chunks)
	} else if st.VectorModel != "" {
		fmt.Fprintf(w, "Embeddings:     %s (%d dimensions), %d of %d chunks embedded\n", st.VectorModel, st.VectorDim, st.Vectors, st.Chunks)
	} else {
		fmt.Fprintln(w, "Embeddings:     none (keyword search only)")
	}
	if c := st.MeaningCoverage(); c != nil {
		fmt.Fprintf(w, "Meaning search: covers %d %% of the chunks; the rest are found by keywords until `cairn index` (or the window) has embedded them\n", c.Percent())
	}
	fmt.Fprintf(w, "Network:        %s\n", st.NetworkMode)
	fmt.Fprintf(w, "Models folder:  %s\n", fault.Printable(env.cfg.Paths.ModelsDir))
	for _, f := range folders {
		watched := ""
		if f.Watched {
			watched = "; watched by the window (re-indexed when its files change)"
		}
		fmt.Fprintf(w, "Folder:         %s: %d documents, %d chunks, %d not indexed%s\n", fault.Printable(f.Path), f.Documents, f.Chunks, f.Issues, watched)
	}
	if r := st.LastRun; r != nil {
		fmt.Fprintf(w, "Last run:       %s %s: %d indexed, %d unchanged, %d skipped, %d failed, %d removed\n",
			r.StartedAt.Format("2006-01-02 15:04"), r.Status, r.FilesIndexed, r.FilesUnchanged, r.FilesSkipped, r.FilesFailed, r.FilesRemoved)
	}
	if *issues {
		list, err := eng.Issues(ctx)
		if err != nil {
			return err
		}
		waiting := 0
		for _, is := range list {
			// A reason may quote the file's own text (a mail header).
			fmt.Fprintf(w, "%s: %s: %s\n", is.Kind, fault.Printable(is.Path), fault.Printable(is.Reason))
			if is.Kind == string(domain.StatusFailed) && !is.Retry {
				waiting++
			}
		}
		if waiting > 0 {
			fmt.Fprintf(w, "%d of the failed files wait, as skipped ones do, until they change or `cairn index --retry-failed FOLDER`; other failed files are read again by the next run.\n", waiting)
		}
	} else if st.Issues > 0 {
		fmt.Fprintf(w, "%d files are not indexed; `cairn status --issues` lists them with the reason.\n", st.Issues)
	}
	return nil
}
