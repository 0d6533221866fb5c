package serve

import (
	"cairn/core/domain"
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/danielgtaylor/huma/v2"
)

// IndexState is the service's index run: running, or the last one.
type IndexState struct {
	Running    bool       `json:"running"`
	Folder     string     `json:"folder,omitempty"`
	Phase      string     `json:"phase,omitempty" doc:"scanning, indexing, embedding or done"`
	FilesSeen  int        `json:"files_seen"`
	FilesTotal int        `json:"files_total"`
	FilesDone  int        `json:"files_done"`
	Indexed    int        `json:"indexed"`
	Unchanged  int        `json:"unchanged"`
	Skipped    int        `json:"skipped"`
	Failed     int        `json:"failed"`
	Removed    int        `json:"removed"`
	Chunks     int        `json:"chunks"`
	Bytes      int64      `json:"bytes"`
	ElapsedMS  int64      `json:"elapsed_ms"`
	ETAMS      int64      `json:"eta_ms,omitempty"`
	StartedAt  *time.Time `json:"started_at,omitempty"`
	FinishedAt *time.Time `json:"finished_at,omitempty"`
	Cancelled  bool       `json:"cancelled,omitempty"`
	Error      string     `json:"error,omitempty"`
}

// indexJobs owns the service's one index run at a time.
type indexJobs struct {
	eng Engine
	log *slog.Logger

	mu     sync.Mutex
	st     IndexState
	cancel context.CancelFunc
	done   chan struct{} // closed when the run is over
}

type indexRequest struct {
	Body struct {
		Folder string `json:"folder" minLength:"1" doc:"absolute path of the folder to index"`
	}
}

func (s *Server) registerIndex(api huma.API, maxBody int64) {
	huma.Register(api, huma.Operation{OperationID: "index-start", Method: http.MethodPost, Path: "/api/index", MaxBodyBytes: maxBody, Errors: []int{http.StatusConflict},
		DefaultStatus: http.StatusAccepted, Summary: "Start indexing a folder (one run at a time)"},
		func(ctx context.Context, in *indexRequest) (*bodyOutput[IndexState], error) {
			if s.opt.IndexRefusal != "" {
				return nil, huma.Error409Conflict(s.opt.IndexRefusal)
			}
			st, err := s.jobs.start(in.Body.Folder)
			return &bodyOutput[IndexState]{st}, err
		})
	huma.Register(api, huma.Operation{OperationID: "index-progress", Method: http.MethodGet, Path: "/api/index",
		Summary: "Progress of the index run, or the last one's outcome"},
		func(ctx context.Context, _ *struct{}) (*bodyOutput[IndexState], error) {
			return &bodyOutput[IndexState]{s.jobs.state()}, nil
		})
	huma.Register(api, huma.Operation{OperationID: "index-cancel", Method: http.MethodDelete, Path: "/api/index", Errors: []int{http.StatusConflict},
		Summary: "Cancel the index run (what is indexed stays; the next run goes on from there)"},
		func(ctx context.Context, _ *struct{}) (*bodyOutput[IndexState], error) {
			if !s.jobs.cancelAndWait() {
				return nil, huma.Error409Conflict("no index run is going on")
			}
			return &bodyOutput[IndexState]{s.jobs.state()}, nil
		})
}

func (j *indexJobs) state() IndexState {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.st
}

func (j *indexJobs) start(folder string) (IndexState, error) {
	// A bad folder is a bad field, 422, as a relative folder of a search's
	// filter is.
	if !filepath.IsAbs(folder) {
		return IndexState{}, huma.Error422UnprocessableEntity(fmt.Sprintf("folder: %s: a relative path: give the folder's absolute path (the service does not share your shell's working folder)", folder))
	}
	if fi, err := os.Stat(folder); err != nil || !fi.IsDir() {
		return IndexState{}, huma.Error422UnprocessableEntity(fmt.Sprintf("folder: %s is not a folder this computer can read", folder))
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.st.Running {
		return j.st, huma.Error409Conflict("an index run of " + j.st.Folder + " is going on: wait for it (GET /api/index) or cancel it (DELETE /api/index)")
	}
	now := time.Now()
	ctx, cancel := context.WithCancel(context.Background())
	j.st = IndexState{Running: true, Folder: folder, Phase: "scanning", StartedAt: &now}
	j.cancel, j.done = cancel, make(chan struct{})
	progress := make(chan domain.Progress, 64)
	drained := make(chan struct{})
	go func() {
		defer close(drained)
		for p := range progress {
			j.mu.Lock()
			j.st.Phase, j.st.FilesSeen, j.st.FilesTotal, j.st.FilesDone = string(p.Phase), p.FilesSeen, p.FilesTotal, p.FilesDone
			j.st.Indexed, j.st.Unchanged, j.st.Skipped, j.st.Failed, j.st.Removed = p.Indexed, p.Unchanged, p.Skipped, p.Failed, p.Removed
			j.st.Chunks, j.st.Bytes, j.st.ElapsedMS, j.st.ETAMS = p.Chunks, p.Bytes, p.Elapsed.Milliseconds(), p.ETA.Milliseconds()
			j.mu.Unlock()
		}
	}()
	done := j.done
	go func() {
		defer close(done)
		_, err := j.eng.IndexFolder(ctx, folder, progress)
		<-drained // IndexFolder closes progress
		end := time.Now()
		j.mu.Lock()
		defer j.mu.Unlock()
		// The run's own time, also when it was cancelled before its
		// first progress report.
		j.st.Running, j.st.FinishedAt, j.st.ElapsedMS = false, &end, end.Sub(now).Milliseconds()
		j.st.ETAMS = 0
		j.st.Cancelled = ctx.Err() != nil
		if err != nil && !j.st.Cancelled {
			j.st.Error = apiError(err).Error()
		}
		j.log.Info("index run over", "cancelled", j.st.Cancelled, "failed", err != nil && !j.st.Cancelled)
		cancel()
	}()
	return j.st, nil
}

// cancelAndWait stops the index run, if any, and waits until it is over;
// false when none was running.
func (j *indexJobs) cancelAndWait() bool {
	j.mu.Lock()
	running, cancel, done := j.st.Running, j.cancel, j.done
	j.mu.Unlock()
	if !running {
		return false
	}
	cancel()
	<-done
	return true
}
