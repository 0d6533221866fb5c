package remote

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/zalando/go-keyring"
)

// KeyEnv is the environment variable that holds the endpoint's API key.
// It is not a CAIRN_<SECTION>_<KEY> setting, so the settings file can
// never receive it.
const KeyEnv = "CAIRN_API_KEY"

// WeaviateKeyEnv holds the team cluster's API key (store.backend
// weaviate); like KeyEnv, never a setting.
const WeaviateKeyEnv = "CAIRN_WEAVIATE_KEY"

// The keyring entries: service "cairn", account "api_key" (what
// `secret-tool store --label=Cairn service cairn username api_key` writes),
// and account "weaviate_key" for the team cluster.
const (
	keyringService      = "cairn"
	keyringUser         = "api_key"
	keyringWeaviateUser = "weaviate_key"
)

// Key is an API key and where it came from.
type Key struct {
	Value  string
	Source string // KeyEnv, "the keyring", or "" when there is none
	Note   string // why the keyring could not be asked, when it could not
}

// Masked is the key for display: its first three and last four
// characters ("sk-…abcd"), less of a short key, "(none)" without one.
func (k Key) Masked() string { return Mask(k.Value) }

// Mask shows enough of a secret to recognise it and not enough to use it.
func Mask(s string) string {
	switch {
	case s == "":
		return "(none)"
	case len(s) < 8:
		return "…"
	case len(s) < 16:
		return "…" + s[len(s)-2:]
	}
	return s[:3] + "…" + s[len(s)-4:]
}

// Keyring stores the key; the system's (Secret Service over D-Bus) or a
// test's.
type Keyring interface {
	Get(service, user string) (string, error)
	Set(service, user, secret string) error
	Delete(service, user string) error
}

// ErrNoKeyring means the system keyring cannot be reached from here.
var ErrNoKeyring = errors.New("no system keyring")

// SystemKeyring is the desktop's Secret Service (GNOME Keyring, KWallet)
// over the D-Bus session bus. Without a session bus (a server, a plain
// terminal over SSH) every call fails with ErrNoKeyring at once: the D-Bus
// library would otherwise try to start a bus of its own.
type SystemKeyring struct {
	Getenv  func(string) string // nil: os.Getenv
	Timeout time.Duration       // per call; a locked keyring may ask the person first. 0: 30 s
}

func (s SystemKeyring) reachable() error {
	getenv := s.Getenv
	if getenv == nil {
		getenv = os.Getenv
	}
	if getenv("DBUS_SESSION_BUS_ADDRESS") != "" {
		return nil
	}
	if rt := getenv("XDG_RUNTIME_DIR"); rt != "" {
		if _, err := os.Stat(filepath.Join(rt, "bus")); err == nil {
			return nil
		}
	}
	return fmt.Errorf("%w: there is no D-Bus session bus (no desktop session), so the keyring cannot be asked; set %s instead",
		ErrNoKeyring, KeyEnv)
}

// call runs fn with a time limit. A Secret Service call cannot be
// cancelled; on time-out it is left to finish on its own, and its result,
// which comes through the channel only, is dropped.
func (s SystemKeyring) call(fn func() (string, error)) (string, error) {
	if err := s.reachable(); err != nil {
		return "", err
	}
	d := s.Timeout
	if d <= 0 {
		d = 30 * time.Second
	}
	type result struct {
		v   string
		err error
	}
	done := make(chan result, 1) // buffered: an abandoned call does not block
	go func() {
		v, err := fn()
		done <- result{v, err}
	}()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case r := <-done:
		return r.v, r.err
	case <-t.C:
		return "", fmt.Errorf("%w: the keyring did not answer within %s (is it locked?)", ErrNoKeyring, d)
	}
}

// Get reads the secret.
func (s SystemKeyring) Get(service, user string) (string, error) {
	v, err := s.call(func() (string, error) { return keyring.Get(service, user) })
	return v, keyringError(err)
}

// Set stores the secret.
func (s SystemKeyring) Set(service, user, secret string) error {
	_, err := s.call(func() (string, error) { return "", keyring.Set(service, user, secret) })
	return keyringError(err)
}

// Delete removes the secret.
func (s SystemKeyring) Delete(service, user string) error {
	_, err := s.call(func() (string, error) { return "", keyring.Delete(service, user) })
	return keyringError(err)
}

// ErrNoKey means the keyring has no Cairn key.
var ErrNoKey = errors.New("no API key stored")

func keyringError(err error) error {
	switch {
	case err == nil:
		return nil
	case errors.Is(err, keyring.ErrNotFound):
		return ErrNoKey
	case errors.Is(err, ErrNoKeyring):
		return err
	}
	return fmt.Errorf("%w: %v", ErrNoKeyring, err)
}

// LookupKey finds the API key: the environment first (it is explicit for
// this run), then the keyring. Neither is an error: the key is then empty
// and Note says why the keyring did not help, if it did not.
func LookupKey(getenv func(string) string, kr Keyring) Key {
	return lookup(getenv, kr, KeyEnv, keyringUser)
}

// LookupWeaviateKey finds the team cluster's API key as LookupKey does:
// CAIRN_WEAVIATE_KEY, then the keyring's "weaviate_key" entry
// (`secret-tool store --label='Cairn cluster' service cairn username weaviate_key`).
func LookupWeaviateKey(getenv func(string) string, kr Keyring) Key {
	return lookup(getenv, kr, WeaviateKeyEnv, keyringWeaviateUser)
}

func lookup(getenv func(string) string, kr Keyring, env, user string) Key {
	if getenv == nil {
		getenv = os.Getenv
	}
	if v := strings.TrimSpace(getenv(env)); v != "" {
		return Key{Value: v, Source: env}
	}
	if kr == nil {
		return Key{}
	}
	v, err := kr.Get(keyringService, user)
	switch {
	case err == nil && v != "":
		return Key{Value: v, Source: "the keyring"}
	case err == nil || errors.Is(err, ErrNoKey):
		return Key{}
	}
	// The keyring's message names the variable to set instead: this
	// key's, not the answer endpoint's.
	return Key{Note: strings.ReplaceAll(err.Error(), KeyEnv, env)}
}

// StoreKey saves key in the keyring.
func StoreKey(kr Keyring, key string) error {
	key = strings.TrimSpace(key)
	if key == "" {
		return errors.New("empty API key: nothing stored")
	}
	if err := kr.Set(keyringService, keyringUser, key); err != nil {
		return fmt.Errorf("could not store the API key in the keyring: %w", err)
	}
	return nil
}

// DeleteKey removes the key from the keyring.
func DeleteKey(kr Keyring) error {
	if err := kr.Delete(keyringService, keyringUser); err != nil && !errors.Is(err, ErrNoKey) {
		return fmt.Errorf("could not remove the API key from the keyring: %w", err)
	}
	return nil
}
