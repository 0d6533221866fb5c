package teamstore

import (
	"cairn/core/domain"
	"context"
	"errors"
	"fmt"
	"sort"
)

// Folders lists every folder the cluster holds files or chunks of, by
// name, with their counts: two aggregations grouped by folder.
func (s *Store) Folders(ctx context.Context) ([]domain.FolderSize, error) {
	files, err := s.countBy(ctx, s.docClass, "folder", nil)
	if err != nil {
		return nil, fmt.Errorf("count the files of each folder in the team cluster at %s: %w", s.where(), err)
	}
	chunks, err := s.countBy(ctx, s.chunkClass, "folder", nil)
	if err != nil {
		return nil, fmt.Errorf("count the chunks of each folder in the team cluster at %s: %w", s.where(), err)
	}
	names := map[string]bool{}
	for f := range files {
		names[f] = true
	}
	for f := range chunks {
		names[f] = true
	}
	out := make([]domain.FolderSize, 0, len(names))
	for f := range names {
		out = append(out, domain.FolderSize{Folder: f, Files: files[f], Chunks: chunks[f]})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Folder < out[j].Folder })
	return out, nil
}

// Folder counts what the cluster holds of folder; zero counts when it
// holds nothing of it.
func (s *Store) Folder(ctx context.Context, folder string) (domain.FolderSize, error) {
	out := domain.FolderSize{Folder: folder}
	files, err := s.countBy(ctx, s.docClass, "", []cond{eqText("folder", folder)})
	if err != nil {
		return out, fmt.Errorf("count the files of %s in the team cluster at %s: %w", folder, s.where(), err)
	}
	out.Files = files[""]
	if out.Chunks, err = s.CountChunks(ctx, folder, ""); err != nil {
		return out, err
	}
	return out, nil
}

// countBy counts class's objects that match where (all of them when where
// is empty), per value of the property by, or under "" when by is "".
func (s *Store) countBy(ctx context.Context, class, by string, where []cond) (map[string]int, error) {
	args := ""
	if by != "" {
		args = fmt.Sprintf(`groupBy: [%s], limit: %d`, gqlString(by), maxGroups)
	}
	if len(where) > 0 {
		if args != "" {
			args += ", "
		}
		args += "where: " + gqlWhere(where)
	}
	if args != "" {
		args = "(" + args + ")"
	}
	var groups []struct {
		GroupedBy *struct {
			Value string `json:"value"`
		} `json:"groupedBy"`
		Meta struct {
			Count int `json:"count"`
		} `json:"meta"`
	}
	group := ""
	if by != "" {
		group = "groupedBy { value } "
	}
	q := fmt.Sprintf(`{ Aggregate { %s%s { %smeta { count } } } }`, class, args, group)
	if err := s.graphql(ctx, "Aggregate", class, q, &groups); err != nil {
		return nil, err
	}
	out := map[string]int{}
	for _, g := range groups {
		key := ""
		if g.GroupedBy != nil {
			key = g.GroupedBy.Value
		}
		out[key] += g.Meta.Count
	}
	return out, nil
}

// RemoveFolder removes everything the cluster holds of the folder that l
// holds: the files' fingerprints first, so that a removal stopped half-way
// leaves no file that counts as indexed without its chunks, then the
// chunks (a file's whose write had stopped before its fingerprint too),
// then the folder's records (its vector model and extractor versions), so
// that indexing it again starts afresh. progress, when not nil, is called
// after each round of the cluster's batch deletion (at most 10,000 objects
// by default). Running it again after a failure removes what is left.
func (s *Store) RemoveFolder(ctx context.Context, l *Lease, progress func(domain.Removal)) (domain.Removal, error) {
	if l == nil || l.s != s {
		return domain.Removal{}, errors.New("team store: removing a folder needs its lease, taken on the same store")
	}
	size, err := s.Folder(ctx, l.folder)
	if err != nil {
		return domain.Removal{FolderSize: size}, err
	}
	r := domain.Removal{FolderSize: size}
	report := func() {
		if progress != nil {
			progress(r)
		}
	}
	report()
	where := []cond{eqText("folder", l.folder)}
	if _, err := s.deleteRounds(ctx, s.docClass, where, func(n int) { r.FilesRemoved = n; report() }); err != nil {
		return r, fmt.Errorf("remove the files of %s from the team cluster at %s: %w", l.folder, s.where(), err)
	}
	if _, err := s.deleteRounds(ctx, s.chunkClass, where, func(n int) { r.ChunksRemoved = n; report() }); err != nil {
		return r, fmt.Errorf("remove the chunks of %s from the team cluster at %s: %w", l.folder, s.where(), err)
	}
	for _, key := range []string{metaFolderVectors + l.folder, metaFolderExtractors + l.folder} {
		err := s.do(ctx, "DELETE", s.query("/v1/objects/"+s.metaClass()+"/"+metaID(key)), nil, nil)
		if err != nil && !errors.Is(err, ErrNotFound) {
			return r, fmt.Errorf("remove the records of %s from the team cluster at %s: %w", l.folder, s.where(), err)
		}
	}
	return r, nil
}

// EmbeddedChunks counts the chunks with a vector of model, the cluster's
// vector model as the caller read it (VectorModel; "" counts none), as the
// cluster records them: the chunks of every folder whose record says each
// of its files was written with that model's vectors (SetFolderVectorModel,
// which an index run or a migration sets once it has written them all).
// Weaviate counts no vectors apart from objects, and filters on none, so a
// folder a run is giving vectors counts once the run has given them all.
func (s *Store) EmbeddedChunks(ctx context.Context, model string) (int, error) {
	if model == "" {
		return 0, nil
	}
	folders, err := s.Folders(ctx)
	if err != nil {
		return 0, err
	}
	n := 0
	for _, f := range folders {
		m, err := s.FolderVectorModel(ctx, f.Folder)
		if err != nil {
			return 0, err
		}
		if m == model {
			n += f.Chunks
		}
	}
	return n, nil
}
