package serve

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// TokenFile is the bearer token's file in the config folder.
const TokenFile = "serve-token"

// Token returns the service's bearer token from dir, creating it (256
// random bits, readable by its owner only) at the first start.
func Token(dir string) (string, error) {
	path := filepath.Join(dir, TokenFile)
	b, err := os.ReadFile(path)
	switch {
	case err == nil:
		if err := checkPrivate(path); err != nil {
			return "", err
		}
		tok := strings.TrimSpace(string(b))
		if len(tok) < 32 {
			return "", fmt.Errorf("the token in %s is too short to be Cairn's: delete the file and a new token is made at the next start", path)
		}
		return tok, nil
	case !errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("reading the service token: %w", err)
	}
	raw := make([]byte, 32)
	rand.Read(raw) // never fails (crypto/rand since Go 1.24)
	tok := hex.EncodeToString(raw)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("creating the config folder for the service token: %w", err)
	}
	// O_EXCL: two first starts at once agree on the file that won.
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return Token(dir)
	}
	if err != nil {
		return "", fmt.Errorf("creating the service token: %w", err)
	}
	_, werr := f.WriteString(tok + "\n")
	if err := errors.Join(werr, f.Close()); err != nil {
		os.Remove(path)
		return "", fmt.Errorf("writing the service token %s: %w", path, err)
	}
	return tok, nil
}

// checkPrivate refuses a token file others can read: anyone who can read
// it can use the service as its owner.
func checkPrivate(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("the service token: %w", err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		return fmt.Errorf("the service token %s can be read by other users (mode %v): run `chmod 600 %s`, or delete it for a new one",
			path, fi.Mode().Perm(), path)
	}
	return nil
}
