package llm

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
)

// ErrChecksum is returned (wrapped) when a download's SHA-256 does not
// match the expected one. The partial file has been deleted.
var ErrChecksum = errors.New("checksum mismatch")

// downloadAttempts is how many times one Download call resumes after the
// connection drops mid-transfer (each attempt must make progress).
const downloadAttempts = 5

// Download fetches url to dest through client. Bytes go to dest+".part",
// which a later call resumes with an HTTP Range request, so neither a cut
// connection nor a restart loses what arrived. When wantSHA256 is not empty
// the whole file must hash to it (hex, any case), else the part file is
// deleted and ErrChecksum returned. dest appears only complete, by rename.
// progress, if not nil, is called as bytes arrive with the bytes done and
// the total (-1 when the server does not say).
//
// The caller decides what the network may be: a client whose transport
// refuses to dial makes Download fail with the transport's own message.
func Download(ctx context.Context, client *http.Client, url, dest, wantSHA256 string, progress func(done, total int64)) error {
	if client == nil {
		return fmt.Errorf("downloading %s: no HTTP client given", url)
	}
	part := dest + ".part"
	var lastErr error
	for attempt := 0; attempt < downloadAttempts; attempt++ {
		before := partSize(part)
		err := downloadOnce(ctx, client, url, part, progress)
		if err == nil {
			lastErr = nil
			break
		}
		lastErr = err
		var hs httpStatusError
		if ctx.Err() != nil || errors.As(err, &hs) || partSize(part) <= before {
			return err // cancelled, refused, or no progress: retrying will not help
		}
	}
	if lastErr != nil {
		return lastErr
	}
	if err := verify(part, wantSHA256); err != nil {
		if errors.Is(err, ErrChecksum) {
			os.Remove(part)
			os.Remove(part + validatorSuffix)
		}
		return fmt.Errorf("downloading %s: %w", url, err)
	}
	if err := os.Rename(part, dest); err != nil {
		return fmt.Errorf("downloading %s: %w", url, err)
	}
	os.Remove(part + validatorSuffix)
	return nil
}

// validatorSuffix names the file beside a part file that keeps what the
// server said identifies the version being fetched (a strong ETag, else
// Last-Modified). A resumed request sends it as If-Range: a server whose
// file changed since answers with the whole new file, which replaces the
// part, instead of the rest of the new one appended to the start of the
// old ("resolve/main" URLs follow a repository's latest commit).
const validatorSuffix = ".validator"

// validatorOf is resp's validator for If-Range, or "".
func validatorOf(resp *http.Response) string {
	if et := resp.Header.Get("ETag"); et != "" && !strings.HasPrefix(et, "W/") {
		return et
	}
	return resp.Header.Get("Last-Modified")
}

func partSize(path string) int64 {
	st, err := os.Stat(path)
	if err != nil {
		return 0
	}
	return st.Size()
}

type httpStatusError struct {
	url    string
	status string
}

func (e httpStatusError) Error() string {
	return fmt.Sprintf("downloading %s: server answered %s", e.url, e.status)
}

// downloadOnce makes one request, appending to part from its current size.
func downloadOnce(ctx context.Context, client *http.Client, url, part string, progress func(done, total int64)) error {
	offset := partSize(part)
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return fmt.Errorf("downloading %s: %w", url, err)
	}
	if offset > 0 {
		req.Header.Set("Range", fmt.Sprintf("bytes=%d-", offset))
		if v, err := os.ReadFile(part + validatorSuffix); err == nil && len(v) > 0 {
			req.Header.Set("If-Range", string(v))
		}
	}
	resp, err := client.Do(req)
	if err != nil {
		return fmt.Errorf("downloading %s: %w", url, err)
	}
	defer resp.Body.Close()

	total := int64(-1)
	flags := os.O_CREATE | os.O_WRONLY | os.O_APPEND
	switch {
	case resp.StatusCode == http.StatusPartialContent && offset > 0:
		start, size, ok := parseContentRange(resp.Header.Get("Content-Range"))
		if !ok || start != offset {
			return fmt.Errorf("downloading %s: server resumed at an unexpected place (%q)", url, resp.Header.Get("Content-Range"))
		}
		total = size
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && offset > 0:
		// The part file is already whole (or longer than the file): let
		// the checksum decide.
		return nil
	case resp.StatusCode == http.StatusOK:
		// A first request, or the server ignored the Range header, or the
		// file changed since the part began (If-Range): start over.
		offset = 0
		flags = os.O_CREATE | os.O_WRONLY | os.O_TRUNC
		if resp.ContentLength >= 0 {
			total = resp.ContentLength
		}
		if v := validatorOf(resp); v != "" {
			if err := os.WriteFile(part+validatorSuffix, []byte(v), 0o600); err != nil {
				return fmt.Errorf("downloading %s: %w", url, err)
			}
		} else {
			os.Remove(part + validatorSuffix)
		}
	default:
		return httpStatusError{url: url, status: resp.Status}
	}

	f, err := os.OpenFile(part, flags, 0o600)
	if err != nil {
		return fmt.Errorf("downloading %s: %w", url, err)
	}
	f.Chmod(0o600) // a part file an older version left readable

	done := offset
	if progress != nil {
		progress(done, total)
	}
	buf := make([]byte, 256<<10)
	for {
		n, rerr := resp.Body.Read(buf)
		if n > 0 {
			if _, err := f.Write(buf[:n]); err != nil {
				f.Close()
				return fmt.Errorf("downloading %s: writing %s: %w", url, part, err)
			}
			done += int64(n)
			if progress != nil {
				progress(done, total)
			}
		}
		if rerr == io.EOF {
			break
		}
		if rerr != nil {
			f.Close()
			return fmt.Errorf("downloading %s: connection lost after %d bytes: %w", url, done, rerr)
		}
	}
	if err := f.Sync(); err != nil {
		f.Close()
		return fmt.Errorf("downloading %s: %w", url, err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("downloading %s: %w", url, err)
	}
	if total >= 0 && done != total {
		return fmt.Errorf("downloading %s: got %d of %d bytes", url, done, total)
	}
	return nil
}

// parseContentRange reads "bytes START-END/SIZE" (SIZE may be "*").
func parseContentRange(s string) (start, size int64, ok bool) {
	s, found := strings.CutPrefix(s, "bytes ")
	if !found {
		return 0, 0, false
	}
	rng, sz, found := strings.Cut(s, "/")
	if !found {
		return 0, 0, false
	}
	a, _, found := strings.Cut(rng, "-")
	if !found {
		return 0, 0, false
	}
	start, err := strconv.ParseInt(a, 10, 64)
	if err != nil {
		return 0, 0, false
	}
	size = -1
	if sz != "*" {
		if size, err = strconv.ParseInt(sz, 10, 64); err != nil {
			return 0, 0, false
		}
	}
	return start, size, true
}

// verify checks the SHA-256 of path when want is not empty.
func verify(path, want string) error {
	if want == "" {
		return nil
	}
	f, err := os.Open(path)
	if err != nil {
		return err
	}
	defer f.Close()
	var h hash.Hash = sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return err
	}
	got := hex.EncodeToString(h.Sum(nil))
	if !strings.EqualFold(got, want) {
		return fmt.Errorf("%w: file hashes to sha256 %s, expected %s; the partial download was deleted, try again",
			ErrChecksum, got, strings.ToLower(want))
	}
	return nil
}
