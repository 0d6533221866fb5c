package core

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"

	"cairn/core/domain"
	"cairn/core/humanize"
	"cairn/core/llm"
	"cairn/core/netgate"
	"cairn/core/remote"
)

// Remote returns a chat client for the configured online endpoint, its
// requests going through the network gate; nil without error when the gate
// is offline or no endpoint is configured (answers stay local).
func (e *Engine) Remote() (*remote.Client, error) {
	n := e.net.NetworkConfig()
	if e.net.Mode() == netgate.Offline || n.Endpoint == "" {
		return nil, nil
	}
	c, err := remote.New(remote.Options{API: n.API, Endpoint: n.Endpoint, Model: n.ChatModel, Key: e.net.APIKey(),
		HTTP: e.net.HTTPClient("answer")})
	if err != nil {
		return nil, fmt.Errorf("online answers: %w", err)
	}
	return c, nil
}

// PullResult is what PullModel did.
type PullResult = domain.ModelPull

// ModelOffers lists the catalogue's models with what the models folder
// holds of each: the window's Models dialog.
func (e *Engine) ModelOffers() []domain.ModelOffer {
	dir := e.Config().Paths.ModelsDir
	kinds := map[llm.Kind]string{llm.KindEmbedding: domain.ModelEmbedding, llm.KindRerank: domain.ModelReranker, llm.KindGeneration: domain.ModelChat}
	var out []domain.ModelOffer
	for _, m := range llm.Catalog() {
		o := domain.ModelOffer{Name: m.Name, Kind: kinds[m.Kind], Size: m.Size, Needs: modelNeeds(m), License: m.License,
			Notes: m.Notes, SHA256: m.SHA256}
		if u, err := url.Parse(m.URL); err == nil {
			o.File = path.Base(u.Path)
			if _, err := os.Stat(filepath.Join(dir, o.File)); err == nil {
				o.Have = true
			} else if st, err := os.Stat(filepath.Join(dir, o.File) + ".part"); err == nil {
				o.Partial = st.Size()
			}
		}
		out = append(out, o)
	}
	return out
}

// modelNeeds says what a catalogue model needs to run: its weights in
// memory and, for a chat model, the context's cache beside them (about a
// quarter more at the profiles' 4,096 tokens).
func modelNeeds(m llm.CatalogEntry) string {
	mem := m.Size + m.Size/10
	if m.Kind == llm.KindGeneration {
		mem = m.Size + m.Size/4
	}
	return "about " + humanize.Bytes(mem) + " of memory; runs on the CPU, faster on a GPU"
}

// PullModel downloads the catalogue model name into the models folder
// through the network gate. An interrupted download resumes from its
// .part file (here or in a later call); the file must hash to wantSHA256
// when given, else to the catalogue's digest when it has one. progress, if
// not nil, gets the bytes done and the total (-1 when unknown).
func (e *Engine) PullModel(ctx context.Context, name, wantSHA256 string, progress func(done, total int64)) (PullResult, error) {
	entry, ok := llm.LookupCatalog(name)
	if !ok {
		return PullResult{}, fmt.Errorf("no model %q in the catalogue; `cairn models list` shows the names", name)
	}
	want := strings.ToLower(strings.TrimSpace(wantSHA256))
	if want != "" {
		if b, err := hex.DecodeString(want); err != nil || len(b) != sha256.Size {
			return PullResult{}, fmt.Errorf("--sha256 %q is not a SHA-256 digest (64 hex digits)", wantSHA256)
		}
		if entry.SHA256 != "" && !strings.EqualFold(entry.SHA256, want) {
			return PullResult{}, fmt.Errorf("the SHA-256 given for %s differs from the catalogue's (%s)", entry.Name, entry.SHA256)
		}
	} else {
		want = strings.ToLower(entry.SHA256)
	}
	src := entry.URL
	if base := e.net.NetworkConfig().Catalog; base != "" {
		var err error
		if src, err = entry.MirrorURL(base); err != nil {
			return PullResult{}, err
		}
	}
	u, err := url.Parse(src)
	if err != nil {
		return PullResult{}, err
	}
	dir := e.Config().Paths.ModelsDir
	res := PullResult{Name: entry.Name, URL: src, Path: filepath.Join(dir, path.Base(u.Path)), Checked: want != ""}
	if st, err := os.Stat(res.Path); err == nil {
		res.Existed, res.Bytes = true, st.Size()
		if want == "" {
			return res, nil
		}
		if res.SHA256, err = fileSHA256(res.Path); err != nil {
			return res, err
		}
		if res.SHA256 != want {
			return res, fmt.Errorf("%s is already in the models folder but hashes to %s, not %s; delete it to download it again",
				res.Path, res.SHA256, want)
		}
		return res, nil
	}
	// Private like everything Cairn creates: the models folder says which
	// models someone uses.
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return res, fmt.Errorf("models folder %s: %w", dir, err)
	}
	err = llm.Download(ctx, e.net.HTTPClient("models pull"), src, res.Path, want, progress)
	var blocked *netgate.BlockedError
	switch {
	case errors.As(err, &blocked):
		return res, fmt.Errorf("cannot download %s: %w", entry.Name, blocked)
	case err != nil:
		return res, fmt.Errorf("models pull %s: %w", entry.Name, err)
	}
	res.SHA256 = want // Download checked it
	if want == "" {
		if res.SHA256, err = fileSHA256(res.Path); err != nil {
			return res, err
		}
	}
	st, err := os.Stat(res.Path)
	if err != nil {
		return res, err
	}
	res.Bytes = st.Size()
	return res, nil
}

func fileSHA256(p string) (string, error) {
	f, err := os.Open(p)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", fmt.Errorf("hashing %s: %w", p, err)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}
