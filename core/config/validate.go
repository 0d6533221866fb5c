package config

import (
	"errors"
	"fmt"
	"math"
	"net/url"
	"path/filepath"
	"reflect"
	"slices"
	"strings"

	"cairn/core/netgate"
)

// Problem is one setting whose value cannot work.
type Problem struct {
	Key string // the settings file's key: "retrieval.top_k"
	Msg string // what is wrong, naming the key and the value
	// From is where the value came from when it was not the settings
	// file: a CAIRN_* variable, or a command-line flag ("--top-k").
	From string
}

func (p Problem) String() string {
	if p.From != "" {
		return p.From + ": " + p.Msg
	}
	return p.Msg
}

// InvalidError lists every setting Validate rejects.
type InvalidError struct{ Problems []Problem }

func (e *InvalidError) Error() string {
	parts := make([]string, len(e.Problems))
	for i, p := range e.Problems {
		parts[i] = p.String()
	}
	return "invalid settings: " + strings.Join(parts, "; ")
}

// Normalize puts the names a setting chooses from (modes, levels) in the
// form Validate and the rest of Cairn compare with: "ONLINE" and " online"
// mean online wherever they come from.
func (c *Config) Normalize() {
	for _, s := range []*string{&c.Retrieval.Mode, &c.Retrieval.Fusion, &c.Network.Mode, &c.Network.API,
		&c.Answer.Verify, &c.Log.Level, &c.Store.Backend} {
		*s = strings.ToLower(strings.TrimSpace(*s))
	}
	// A device's name keeps its case ("Vulkan0"); "AUTO" and "CPU" are
	// the two names that mean no device.
	c.LLM.Device = strings.TrimSpace(c.LLM.Device)
	if d := strings.ToLower(c.LLM.Device); d == "auto" || d == "cpu" {
		c.LLM.Device = d
	}
}

// Validate rejects settings that cannot work with an *InvalidError naming
// each one and its value. It is the one check of the settings file, the
// CAIRN_* variables and the command-line flags; call Normalize first.
func (c Config) Validate() error {
	var ps []Problem
	bad := func(key, format string, args ...any) {
		ps = append(ps, Problem{Key: key, Msg: key + " " + fmt.Sprintf(format, args...)})
	}
	// NaN passes every comparison below and infinity most; CAIRN_* variables
	// can spell both.
	nonFinite := map[string]bool{}
	eachFloat(c, func(key string, x float64) {
		if math.IsNaN(x) || math.IsInf(x, 0) {
			bad(key, "must be a finite number, not %v", x)
			nonFinite[key] = true
		}
	})
	check := func(key string, ok bool, format string, args ...any) {
		if !ok && !nonFinite[key] {
			bad(key, format, args...)
		}
	}
	for _, k := range append(Knobs(), NumberSettings...) {
		msg := k.problem(c)
		check(k.Key, msg == "", "%s", msg)
	}
	if c.Profile != "" && !slices.Contains(Profiles(), c.Profile) {
		bad("profile", "%q: use %s", c.Profile, strings.Join(Profiles(), ", "))
	}
	r := c.Retrieval
	oneOf := func(key, val string, allowed ...string) {
		for _, a := range allowed {
			if val == a {
				return
			}
		}
		bad(key, "%q: use %s or %s", val, strings.Join(allowed[:len(allowed)-1], ", "), allowed[len(allowed)-1])
	}
	if r.Mode != "" {
		oneOf("retrieval.mode", r.Mode, "hybrid", "bm25", "vector")
	}
	oneOf("retrieval.fusion", r.Fusion, "rrf", "weighted")
	check("chunking.overlap", c.Chunking.Overlap >= 0 && c.Chunking.Overlap < c.Chunking.Size/2,
		"must be between 0 and half of chunking.size, not %d", c.Chunking.Overlap)
	var modes []string
	for _, m := range netgate.Modes() {
		modes = append(modes, string(m))
	}
	oneOf("network.mode", c.Network.Mode, modes...)
	oneOf("store.backend", c.Store.Backend, BackendSQLite, BackendWeaviate)
	if c.Store.Backend == BackendWeaviate && c.Store.URL == "" {
		bad("store.url", "is empty: store.backend weaviate needs the cluster's URL, such as http://weaviate.example.org:8080")
	}
	for name, dir := range c.Store.Folders {
		check("store.folders", name != "" && filepath.IsAbs(dir),
			"%q: %q must be the folder's absolute path on this computer", name, dir)
	}
	oneOf("network.api", c.Network.API, "openai", "ollama")
	for _, u := range []struct{ key, val, secret string }{
		{"network.endpoint", c.Network.Endpoint, "; an API key goes in CAIRN_API_KEY or the keyring (`cairn network key set`)"},
		{"network.catalog", c.Network.Catalog, ""},
		{"store.url", c.Store.URL, "; the cluster's API key goes in CAIRN_WEAVIATE_KEY or the keyring"},
	} {
		if u.val == "" {
			continue
		}
		p, err := url.Parse(u.val)
		switch {
		case err != nil || (p.Scheme != "http" && p.Scheme != "https") || p.Host == "":
			bad(u.key, "%q: use an http:// or https:// URL", netgate.RedactURL(u.val))
		case p.User != nil:
			// The settings file is no place for a secret, and the URL
			// is shown in messages and logs.
			bad(u.key, "%q: remove the user name and password from the URL%s", netgate.RedactURL(u.val), u.secret)
		}
	}
	for _, a := range c.Network.Allow {
		if err := netgate.CheckAllow(a); err != nil {
			ps = append(ps, Problem{Key: "network.allow", Msg: err.Error()})
		}
	}
	check("llm.device", c.LLM.Device != "",
		"is empty: use auto, cpu or a GPU's name from `cairn doctor`")
	oneOf("answer.verify", c.Answer.Verify, "off", "warn", "block")
	if c.Log.Level != "" {
		oneOf("log.level", c.Log.Level, "debug", "info", "warn", "warning", "error")
	}
	if len(ps) > 0 {
		return &InvalidError{Problems: ps}
	}
	return nil
}

// eachFloat calls fn with the key and value of every number setting.
func eachFloat(c Config, fn func(key string, x float64)) {
	v := reflect.ValueOf(c)
	for i := 0; i < v.NumField(); i++ {
		sv := v.Field(i)
		if sv.Kind() != reflect.Struct || !v.Type().Field(i).IsExported() {
			continue
		}
		for j := 0; j < sv.NumField(); j++ {
			if sv.Field(j).Kind() == reflect.Float64 {
				fn(jsonName(v.Type().Field(i))+"."+jsonName(sv.Type().Field(j)), sv.Field(j).Float())
			}
		}
	}
}

// fromEnv marks each problem whose value came from a CAIRN_* variable with
// that variable, so the message says what to correct.
func fromEnv(err error, environ []string) error {
	var inv *InvalidError
	if !errors.As(err, &inv) {
		return err
	}
	set := map[string]bool{}
	for _, kv := range environ {
		name, _, _ := strings.Cut(kv, "=")
		set[name] = true
	}
	for i, p := range inv.Problems {
		if name := "CAIRN_" + strings.ToUpper(strings.ReplaceAll(p.Key, ".", "_")); set[name] {
			inv.Problems[i].From = name
		}
	}
	return err
}
