package core

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/user"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"

	"cairn/core/config"
	"cairn/core/domain"
	"cairn/core/ingest"
	"cairn/core/migrate"
	"cairn/core/teamstore"
)

// IndexTeam indexes folder into the team cluster that store.url names
// (store.backend weaviate), under the name as (the folder's name in the
// cluster, the same on every machine; "" for its absolute path); see
// ingest.Indexer.RunTeam. The run and the files not indexed are recorded
// in the engine's knowledge base, which holds none of the folder's
// documents; an Engine opened with Options.NoKB records them nowhere.
func (e *Engine) IndexTeam(ctx context.Context, folder, as string, progress chan<- domain.Progress) (domain.Run, error) {
	fail := func(err error) (domain.Run, error) {
		if progress != nil {
			close(progress)
		}
		return domain.Run{}, err
	}
	ts, err := e.clusterToFeed(ctx)
	if err != nil {
		return fail(err)
	}
	ix, err := e.indexer(ctx)
	if err != nil {
		return fail(err)
	}
	if as == "" {
		as = e.TeamFolderName(folder)
	}
	return ix.RunTeam(ctx, ingest.Team{Store: ts, Folder: as, Holder: indexerName(), Local: e.db, Dead: stoppedHere}, folder, progress)
}

// TeamFolderName is the team cluster's name for folder, a folder of this
// computer: the name store.folders gives where it is, else its absolute
// path. The window's Index and Remove, and `cairn index` and `cairn
// remove` without --as, name a folder so.
func (e *Engine) TeamFolderName(folder string) string {
	abs, err := filepath.Abs(folder)
	if err != nil {
		abs = filepath.Clean(folder)
	}
	var names []string
	for name, dir := range e.Config().Store.Folders {
		if filepath.Clean(dir) == abs {
			names = append(names, name)
		}
	}
	if len(names) == 0 {
		return filepath.ToSlash(abs)
	}
	slices.Sort(names) // two names for one folder: the same one every time
	return names[0]
}

// TeamFolders lists the folders the team cluster holds, with their files
// and chunks.
func (e *Engine) TeamFolders(ctx context.Context) ([]domain.FolderSize, error) {
	ts, err := e.clusterToFeed(ctx)
	if err != nil {
		return nil, err
	}
	return ts.Folders(ctx)
}

// RemoveTeamFolder removes the folder the team cluster names name, for
// everyone who searches the cluster (see ingest.RemoveTeam): refused while
// another indexer holds it, with its name. This computer's record of the
// folder (its runs and files not indexed), when it has one, is forgotten
// too. The files themselves are not touched.
func (e *Engine) RemoveTeamFolder(ctx context.Context, name string, progress func(domain.Removal)) (domain.Removal, error) {
	ts, err := e.clusterToFeed(ctx)
	if err != nil {
		return domain.Removal{}, err
	}
	r, err := ingest.RemoveTeam(ctx, ingest.Team{Store: ts, Folder: name, Holder: removerName(), Dead: stoppedHere}, progress)
	if err != nil {
		return r, err
	}
	if dir := e.localFolder(ctx, name); dir != "" {
		if err := e.db.RemoveFolder(ctx, dir); err != nil {
			return r, fmt.Errorf("%s is removed from the team cluster, but this computer's record of its runs is not: %w", name, err)
		}
	}
	return r, nil
}

// localFolder is where the cluster's folder name is on this computer, if
// the local knowledge base records runs of it there; "" otherwise.
func (e *Engine) localFolder(ctx context.Context, name string) string {
	if e.db == nil {
		return ""
	}
	dir := name
	if d, ok := e.Config().Store.Folders[name]; ok {
		dir = filepath.Clean(d)
	}
	folders, err := e.db.Folders(ctx)
	if err != nil {
		return ""
	}
	for _, f := range folders {
		if f.Path == dir {
			return f.Path
		}
	}
	return ""
}

// clusterToFeed opens the team cluster of the settings through the
// network gate, with the key from CAIRN_WEAVIATE_KEY or the keyring.
func (e *Engine) clusterToFeed(ctx context.Context) (*teamstore.Store, error) {
	c := e.Config()
	if c.Store.Backend != config.BackendWeaviate {
		return nil, errors.New("store.backend is not weaviate: set it and store.url to the team cluster's (docs/team.md)")
	}
	return teamstore.Open(ctx, teamstore.Options{URL: c.Store.URL, Key: e.net.WeaviateKey().Value, HTTP: e.net.HTTPClient("team store")})
}

// indexerName is how a second indexer's refusal names this one; see
// stoppedHere.
func indexerName() string {
	host, _ := os.Hostname()
	who := "?"
	if u, err := user.Current(); err == nil {
		who = u.Username
	}
	return fmt.Sprintf("cairn index on %s by %s (pid %d)", host, who, os.Getpid())
}

var holderName = regexp.MustCompile(`^cairn (?:index|migrate|remove) on (.*) by .* \(pid (\d+)\)$`)

// stoppedHere reports whether a folder's holder, as indexerName,
// migratorName and removerName name it, was a process of this computer
// that no longer runs: killed or crashed, it left its lease behind. A
// process id reused since counts as running, so that lease is left to
// expire.
func stoppedHere(holder string) bool {
	m := holderName.FindStringSubmatch(holder)
	host, _ := os.Hostname()
	if m == nil || host == "" || m[1] != host {
		return false
	}
	pid, err := strconv.Atoi(m[2])
	if err != nil || pid <= 0 || pid == os.Getpid() {
		return false
	}
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// MigrateToTeam copies the knowledge base's documents, chunks and vectors
// into the team cluster of the settings; see migrate.ToTeam.
func (e *Engine) MigrateToTeam(ctx context.Context, as string, progress func(migrate.Progress)) (migrate.Summary, error) {
	ts, err := e.clusterToFeed(ctx)
	if err != nil {
		return migrate.Summary{}, err
	}
	return migrate.ToTeam(ctx, e.db, ts, migrate.Options{As: as, Holder: migratorName(), Dead: stoppedHere, Progress: progress})
}

// MigrateFromTeam copies the team cluster's documents, chunks and vectors
// into the knowledge base (opened for writing); see migrate.FromTeam.
func (e *Engine) MigrateFromTeam(ctx context.Context, as string, progress func(migrate.Progress)) (migrate.Summary, error) {
	ts, err := e.clusterToFeed(ctx)
	if err != nil {
		return migrate.Summary{}, err
	}
	return migrate.FromTeam(ctx, ts, e.db, migrate.Options{As: as, Holder: migratorName(), Dead: stoppedHere, Progress: progress})
}

func migratorName() string { return strings.Replace(indexerName(), "cairn index", "cairn migrate", 1) }

func removerName() string { return strings.Replace(indexerName(), "cairn index", "cairn remove", 1) }
