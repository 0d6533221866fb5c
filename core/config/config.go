// Package config holds Cairn's settings: defaults, hardware profiles, the
// settings file in the user's config folder, and CAIRN_<SECTION>_<KEY>
// environment overrides (CAIRN_RETRIEVAL_TOP_K=8).
package config

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strconv"
	"strings"
	"time"

	"cairn/core/fault"
)

// Config is every setting. JSON names are the settings file's keys and,
// upper-cased, the environment variables' (section "retrieval", key
// "top_k" -> CAIRN_RETRIEVAL_TOP_K).
type Config struct {
	Profile    string     `json:"profile"` // laptop, desktop or server
	Paths      Paths      `json:"paths"`
	Indexing   Indexing   `json:"index"`
	Chunking   Chunking   `json:"chunking"`
	Retrieval  Retrieval  `json:"retrieval"`
	Embedding  Embedding  `json:"embedding"`
	Generation Generation `json:"generation"`
	Rerank     Rerank     `json:"rerank"`
	LLM        LLM        `json:"llm"`
	Answer     Answer     `json:"answer"`
	Network    Network    `json:"network"`
	OCR        OCR        `json:"ocr"`
	Log        Log        `json:"log"`
	Serve      Serve      `json:"serve"`
	Store      Store      `json:"store"`

	// fallback marks the defaults Cairn runs on when the settings did not
	// load: Save refuses them, so the person's file is never replaced.
	fallback bool
}

// NoModel in a model setting means "no model of this kind", as opposed to
// "" which means "the first one found in the models folder".
const NoModel = "none"

// Paths are where Cairn keeps its files.
type Paths struct {
	DataDir   string `json:"data_dir"`   // knowledge bases; default $XDG_DATA_HOME/cairn
	ModelsDir string `json:"models_dir"` // GGUF models; default <data_dir>/models
	KB        string `json:"kb"`         // knowledge base opened by default
}

// Indexing tunes the indexer.
type Indexing struct {
	MaxFileMB     int  `json:"max_file_mb"`
	Workers       int  `json:"workers"` // 0: one per CPU
	IncludeHidden bool `json:"include_hidden"`
	// FollowLinksOut follows symbolic links to files and folders outside
	// the folder being indexed; off, they are skipped and listed with the
	// reason. Never into /proc, /sys, /dev or a folder of secrets.
	FollowLinksOut bool     `json:"follow_links_out"`
	Ignore         []string `json:"ignore"`
	TimeoutSec     int      `json:"timeout_sec"` // per file: the longest an extraction may go without progress
}

// Chunking sets the chunker's window.
type Chunking struct {
	Size          int `json:"size"`
	Overlap       int `json:"overlap"`
	MaxHeadingLen int `json:"max_heading_len"`
}

// Retrieval holds the search knobs; the engineering panel's sliders.
type Retrieval struct {
	Mode         string  `json:"mode"`   // hybrid, bm25 or vector; "" picks hybrid when a model is loaded
	Fusion       string  `json:"fusion"` // rrf or weighted
	TopK         int     `json:"top_k"`
	MinScore     float64 `json:"min_score"`
	RRFK         float64 `json:"rrf_k"`
	VectorWeight float64 `json:"vector_weight"`
	BM25Pool     int     `json:"bm25_pool"`
	VectorPool   int     `json:"vector_pool"`
	PerDocCap    int     `json:"per_doc_cap"`
	// IncludeGuide lets the bundled user guide answer: false leaves it
	// out of every question (a question can leave it out alone: the
	// filter no-guide). Its passages never outrank the person's own that
	// answer as well (core/search, guide.go).
	IncludeGuide bool `json:"include_guide"`
}

// Embedding selects the embedding model.
type Embedding struct {
	Model     string `json:"model"`      // GGUF path or file name in models_dir; "" = first embedding model found; "none" = keyword search only
	Dim       int    `json:"dim"`        // Matryoshka truncation; 0 = model's full dimension
	BatchSize int    `json:"batch_size"` // chunks per embedding call
	BatchMB   int    `json:"batch_mb"`   // estimated memory of one embedding call (text, tokens, vectors)
	Threads   int    `json:"threads"`    // 0: one per CPU
}

// Generation selects and tunes the chat model.
type Generation struct {
	Model       string  `json:"model"` // GGUF path or file name in models_dir; "" = first chat model found; "none" = extractive answers
	ContextSize int     `json:"context_size"`
	MaxTokens   int     `json:"max_tokens"`
	Temperature float64 `json:"temperature"`
	TopP        float64 `json:"top_p"`
	Seed        int     `json:"seed"`
	Threads     int     `json:"threads"`
}

// Rerank selects the cross-encoder that reorders the fused results of
// every search and answer, and its time budget.
type Rerank struct {
	Enabled bool   `json:"enabled"` // off on the laptop profile, on for desktop and server
	Model   string `json:"model"`   // GGUF reranker path or file name in models_dir; "" = first reranker found
	// BudgetSec is the most the rerank step may take per search: the number
	// of passages reranked follows from it and the measured cost of a pair.
	BudgetSec float64 `json:"budget_sec"`
	Threads   int     `json:"threads"` // 0: one per CPU
}

// LLM is where the local models run (embedding, chat, reranker alike).
type LLM struct {
	// Device is "auto" (the first GPU the Vulkan backend finds, leaving
	// out drivers that run on the CPU, such as lavapipe; else the CPU),
	// "cpu", or a GPU by its name ("Vulkan1") or a part of its
	// description ("RTX 3060"). `cairn doctor` lists the devices.
	Device string `json:"device"`
}

// Answer tunes grounded answering.
type Answer struct {
	TopK       int    `json:"top_k"`       // passages given to the model
	Verify     string `json:"verify"`      // off, warn or block
	Rewrite    bool   `json:"rewrite"`     // let the model rewrite the question into a retrieval query
	TimeoutSec int    `json:"timeout_sec"` // the most one answer may take; 0: no limit
	// WholeChunks sends the chat model each source's whole passage; false
	// (the default) sends the lines around its best lines, with the
	// heading, so the first word comes sooner.
	WholeChunks bool `json:"whole_chunks"`
	// The online model's prices per million prompt and answer tokens, in
	// the person's currency, for the estimated cost of an online answer;
	// 0: no estimate.
	PricePerMTokIn  float64 `json:"price_per_mtok_in"`
	PricePerMTokOut float64 `json:"price_per_mtok_out"`
}

// Network is the network gate's setting and the online answer endpoint.
// It has no API key on purpose: keys come from CAIRN_API_KEY or the
// system keyring and are never written to the settings file.
type Network struct {
	Mode      string   `json:"mode"`     // offline, team, online or admin
	Endpoint  string   `json:"endpoint"` // OpenAI-compatible or Ollama base URL for online answers
	API       string   `json:"api"`      // openai or ollama
	ChatModel string   `json:"chat_model"`
	Allow     []string `json:"allow"`   // extra hosts allowed online
	Catalog   string   `json:"catalog"` // base URL of a mirror of the model catalogue's host; "" = huggingface.co
}

// OCR configures Tesseract.
type OCR struct {
	Enabled   bool   `json:"enabled"`
	Languages string `json:"languages"` // Tesseract language codes joined by "+", e.g. "eng+deu"
}

// Log configures logging.
type Log struct {
	Level string `json:"level"` // debug, info, warn, error; debug may log document text
}

// Serve configures the local service (`cairn serve`, docs/service.md).
type Serve struct {
	Port int `json:"port"` // on 127.0.0.1; 0 picks a free port at each start
	// Enabled serves the same API from the window while it is open (the
	// Engineering tab's toggle); `cairn serve` ignores it.
	Enabled bool `json:"enabled"`
}

// Store chooses where the knowledge base lives (docs/team.md). It has no
// API key on purpose: the cluster's key comes from CAIRN_WEAVIATE_KEY or
// the system keyring, never from the settings file.
type Store struct {
	Backend string `json:"backend"` // sqlite (the embedded file, the default) or weaviate (a team's cluster)
	URL     string `json:"url"`     // the Weaviate cluster's base URL, for backend weaviate
	// Folders say where the cluster's folders are on this computer, by
	// their names in the cluster ({"share": "/mnt/share"}), so that a cited
	// file opens here and a folder filter finds it; a folder named by its
	// absolute path needs none. CAIRN_STORE_FOLDERS="share=/mnt/share,...".
	Folders map[string]string `json:"folders,omitempty"`
}

// The store backends.
const (
	BackendSQLite   = "sqlite"
	BackendWeaviate = "weaviate"
)

// Profiles are hardware presets (HybridRAG3's laptop_safe, desktop_power,
// server_max), applied before the settings file.
var profiles = map[string]func(*Config){
	"laptop": func(c *Config) {
		c.Retrieval.TopK, c.Answer.TopK, c.Embedding.BatchSize = 8, 5, 16
		c.Retrieval.BM25Pool, c.Retrieval.VectorPool = 40, 40
		c.Generation.ContextSize = 4096
		c.Rerank.Enabled = false // a cross-encoder costs a laptop seconds per question
	},
	"desktop": func(c *Config) {
		c.Retrieval.TopK, c.Answer.TopK, c.Embedding.BatchSize = 12, 10, 64
		c.Retrieval.BM25Pool, c.Retrieval.VectorPool = 60, 60
		c.Generation.ContextSize = 8192
	},
	"server": func(c *Config) {
		c.Retrieval.TopK, c.Answer.TopK, c.Embedding.BatchSize = 15, 15, 128
		c.Retrieval.BM25Pool, c.Retrieval.VectorPool = 120, 120
		c.Generation.ContextSize = 16384
	},
}

// Profiles lists the profile names.
func Profiles() []string { return []string{"laptop", "desktop", "server"} }

// WithProfile returns c switched to hardware profile name: the retrieval
// knobs but the retrieval mode and retrieval.include_guide (choices, not
// matters of hardware),
// answer.top_k, embedding.batch_size, generation.context_size and
// rerank.enabled take the profile's values; everything else stays. An unknown name leaves c as it
// is, with an error.
func (c Config) WithProfile(name string) (Config, error) {
	if _, ok := profiles[name]; !ok {
		return c, fmt.Errorf("profile %q: use %s", name, strings.Join(Profiles(), ", "))
	}
	d := Default(name)
	c.Profile = name
	mode, guide := c.Retrieval.Mode, c.Retrieval.IncludeGuide
	c.Retrieval = d.Retrieval
	c.Retrieval.Mode, c.Retrieval.IncludeGuide = mode, guide
	c.Answer.TopK = d.Answer.TopK
	c.Embedding.BatchSize = d.Embedding.BatchSize
	c.Generation.ContextSize = d.Generation.ContextSize
	c.Rerank.Enabled = d.Rerank.Enabled
	return c, nil
}

// Default returns the defaults for a profile ("" picks one from the
// machine: laptop under 16 GB of RAM, else desktop).
func Default(profile string) Config {
	c := Config{
		Indexing: Indexing{MaxFileMB: 64, TimeoutSec: 120,
			Ignore: []string{"node_modules", "__pycache__", "*.pyc", "*~", "*.swp", "Thumbs.db", "desktop.ini"}},
		Chunking:   Chunking{Size: 1200, Overlap: 200, MaxHeadingLen: 160},
		Retrieval:  Retrieval{Fusion: "rrf", TopK: 12, MinScore: 0.10, RRFK: 60, VectorWeight: 0.6, BM25Pool: 60, VectorPool: 60, PerDocCap: 3, IncludeGuide: true},
		Embedding:  Embedding{BatchSize: 32, BatchMB: 16},
		Generation: Generation{ContextSize: 4096, MaxTokens: 512, Temperature: 0.1, TopP: 0.9, Seed: 42},
		Rerank:     Rerank{Enabled: true, BudgetSec: 1.5},
		LLM:        LLM{Device: "auto"},
		Answer:     Answer{TopK: 8, Verify: "warn"},
		Network:    Network{Mode: "offline", API: "openai"},
		OCR:        OCR{Enabled: true, Languages: "eng"},
		Log:        Log{Level: "info"},
		Serve:      Serve{Port: 8765},
		Store:      Store{Backend: BackendSQLite},
	}
	if profile == "" {
		profile = guessProfile()
	}
	if apply, ok := profiles[profile]; ok {
		apply(&c)
		c.Profile = profile
	}
	return c
}

func guessProfile() string {
	if totalRAM() >= 16<<30 && runtime.NumCPU() >= 8 {
		return "desktop"
	}
	return "laptop"
}

// totalRAM reads MemTotal from /proc/meminfo; 0 when unknown.
func totalRAM() int64 {
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// Dirs are the per-user folders Cairn uses.
type Dirs struct {
	Config string // settings.json
	Data   string // knowledge bases and models
	State  string // logs, audit log
	Cache  string // compiled SQLite engine; safe to delete
}

// UserDirs follows the XDG base directory spec, with CAIRN_HOME overriding
// all three (tests and portable installs).
func UserDirs() (Dirs, error) {
	if h := os.Getenv("CAIRN_HOME"); h != "" {
		return Dirs{Config: filepath.Join(h, "config"), Data: filepath.Join(h, "data"), State: filepath.Join(h, "state"),
			Cache: filepath.Join(h, "cache")}, nil
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return Dirs{}, fmt.Errorf("no home folder: %w", err)
	}
	env := func(k, def string) string {
		if v := os.Getenv(k); v != "" {
			return v
		}
		return filepath.Join(home, def)
	}
	return Dirs{
		Config: filepath.Join(env("XDG_CONFIG_HOME", ".config"), "cairn"),
		Data:   filepath.Join(env("XDG_DATA_HOME", ".local/share"), "cairn"),
		State:  filepath.Join(env("XDG_STATE_HOME", ".local/state"), "cairn"),
		Cache:  filepath.Join(env("XDG_CACHE_HOME", ".cache"), "cairn"),
	}, nil
}

// SettingsFile is the settings file's path.
func (d Dirs) SettingsFile() string { return filepath.Join(d.Config, "settings.json") }

// Load builds the configuration: profile defaults, then the settings file
// (if any), then CAIRN_* environment variables. Unknown keys in the file are
// an error naming them, so a typo is not silently ignored.
func Load(d Dirs) (Config, error) {
	c, err := loadFile(d)
	if err != nil {
		return Config{}, err
	}
	if err := applyEnv(&c, os.Environ()); err != nil {
		return Config{}, fault.Wrap(fault.ConfigEnv, "correct or unset that environment variable", err)
	}
	c.fillPaths(d)
	c.Normalize()
	if err := fromEnv(c.Validate(), os.Environ()); err != nil {
		return Config{}, fault.Wrap(fault.ConfigInvalid,
			"change these settings in "+d.SettingsFile()+" (or the CAIRN_* variables that set them)", err)
	}
	return c, nil
}

// Fallback is the configuration to carry on with when the settings cannot
// be loaded (`cairn doctor` reports on the rest): the defaults for this
// machine, with the folders derived from d.
func Fallback(d Dirs) Config {
	c := Default(os.Getenv("CAIRN_PROFILE"))
	c.fillPaths(d)
	c.fallback = true
	return c
}

// fillPaths derives the folders that are not set.
func (c *Config) fillPaths(d Dirs) {
	if c.Paths.DataDir == "" {
		c.Paths.DataDir = d.Data
	}
	if c.Paths.ModelsDir == "" {
		c.Paths.ModelsDir = filepath.Join(c.Paths.DataDir, "models")
	}
	if c.Paths.KB == "" {
		c.Paths.KB = "default"
	}
}

// loadFile returns the profile defaults overlaid with the settings file.
func loadFile(d Dirs) (Config, error) {
	profile := os.Getenv("CAIRN_PROFILE")
	if _, ok := profiles[profile]; profile != "" && !ok {
		// Default would quietly apply none.
		return Config{}, fault.New(fault.ConfigEnv, fmt.Sprintf("CAIRN_PROFILE=%q: use %s", profile, strings.Join(Profiles(), ", ")),
			"correct or unset that environment variable", nil)
	}
	raw, err := os.ReadFile(d.SettingsFile())
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		return Config{}, fault.New(fault.ConfigUnreadable, "read settings "+d.SettingsFile(),
			"make the file readable by your user, or delete it to start from the defaults", err)
	}
	raw = bytes.TrimPrefix(raw, []byte("\ufeff")) // Windows editors save UTF-8 with a byte order mark
	if profile == "" && len(raw) > 0 {
		var p struct {
			Profile string `json:"profile"`
		}
		json.Unmarshal(raw, &p)
		profile = p.Profile
	}
	c := Default(profile)
	if len(raw) > 0 {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&c); err != nil {
			if storeSecret(raw) {
				return Config{}, fault.New(fault.ConfigInvalid, "settings "+d.SettingsFile()+": the team cluster's API key is not read from the settings file, where any program could copy them",
					"remove it from the \"store\" section and set CAIRN_WEAVIATE_KEY or store the key in the keyring", nil)
			}
			if strings.Contains(err.Error(), `unknown field "api_key"`) {
				return Config{}, fault.New(fault.ConfigInvalid, "settings "+d.SettingsFile()+": API keys are not read from the settings file, where any program could copy them",
					"remove \"api_key\" and set CAIRN_API_KEY or store the key in the keyring (`cairn network key set`)", nil)
			}
			return Config{}, fault.New(fault.ConfigUnreadable, "settings "+d.SettingsFile(),
				"fix the file (the message says what is wrong) or delete it to start from the defaults", err)
		}
		// Anything after the settings object would be dropped by the next
		// save without a word: a second object pasted in, a stray brace.
		if rest := bytes.TrimSpace(raw[dec.InputOffset():]); len(rest) > 0 {
			return Config{}, fault.New(fault.ConfigUnreadable,
				fmt.Sprintf("settings %s: %q after the settings' closing brace (at byte %d)", d.SettingsFile(), firstBytes(rest, 20), dec.InputOffset()),
				"remove it, or merge it into the settings object, or delete the file to start from the defaults", nil)
		}
	}
	return c, nil
}

// firstBytes is s cut to n bytes, with "…" when cut.
func firstBytes(s []byte, n int) string {
	if len(s) <= n {
		return string(s)
	}
	return string(s[:n]) + "…"
}

// storeSecret reports whether the settings' "store" section holds a key
// or password, which would otherwise be refused as an unknown field
// without saying where the key belongs.
func storeSecret(raw []byte) bool {
	var f struct {
		Store map[string]json.RawMessage `json:"store"`
	}
	if json.Unmarshal(raw, &f) != nil {
		return false
	}
	for k := range f.Store {
		if k := strings.ToLower(k); strings.Contains(k, "key") || strings.Contains(k, "password") || strings.Contains(k, "token") {
			return true
		}
	}
	return false
}

// Save writes c to the settings file, readable by the user only. Values
// that came from CAIRN_* environment variables, and folder defaults derived
// from d, are not written: the file keeps what the person chose. A Fallback
// configuration is refused.
func Save(d Dirs, c Config) error {
	if c.fallback {
		return fault.New(fault.ConfigUnreadable, "the settings did not load, so changes are not saved",
			"fix "+d.SettingsFile()+" (`cairn doctor` says what is wrong) and start Cairn again", nil)
	}
	if err := unEnv(d, &c, os.Environ()); err != nil {
		return err
	}
	if c.Paths.DataDir == d.Data {
		if c.Paths.ModelsDir == filepath.Join(c.Paths.DataDir, "models") {
			c.Paths.ModelsDir = ""
		}
		c.Paths.DataDir = ""
	}
	if err := os.MkdirAll(d.Config, 0o700); err != nil {
		return fmt.Errorf("save settings: %w", err)
	}
	b, err := json.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	// A settings.json that is a link (to a dotfiles repository, say) stays
	// one: the file it names is replaced, not the link.
	file := d.SettingsFile()
	if real, err := filepath.EvalSymlinks(file); err == nil {
		file = real
	}
	tmp := file + ".tmp"
	if err := os.WriteFile(tmp, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("save settings: %w", err)
	}
	return os.Rename(tmp, file)
}

// IndexTimeout is the per-file extraction time limit.
func (c Config) IndexTimeout() time.Duration {
	return time.Duration(c.Indexing.TimeoutSec) * time.Second
}

// applyEnv sets fields from CAIRN_<SECTION>_<KEY> variables.
func applyEnv(c *Config, environ []string) error {
	v := reflect.ValueOf(c).Elem()
	t := v.Type()
	for _, kv := range environ {
		name, val, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, "CAIRN_") {
			continue
		}
		key := strings.ToLower(strings.TrimPrefix(name, "CAIRN_"))
		for i := 0; i < t.NumField(); i++ {
			sf := t.Field(i)
			if sf.Type.Kind() != reflect.Struct {
				continue
			}
			section := jsonName(sf)
			field, ok := strings.CutPrefix(key, section+"_")
			if !ok {
				continue
			}
			sv := v.Field(i)
			for j := 0; j < sv.NumField(); j++ {
				if jsonName(sv.Type().Field(j)) != field {
					continue
				}
				if err := setFromString(sv.Field(j), val); err != nil {
					return fmt.Errorf("%s=%q: %w", name, val, err)
				}
			}
		}
	}
	return nil
}

// unEnv puts back, for every field a CAIRN_ variable overrides, the value
// the settings file (or the defaults) has.
func unEnv(d Dirs, c *Config, environ []string) error {
	base, err := loadFile(d)
	if err != nil {
		return err
	}
	cv, bv := reflect.ValueOf(c).Elem(), reflect.ValueOf(&base).Elem()
	t := cv.Type()
	for _, kv := range environ {
		name, _, ok := strings.Cut(kv, "=")
		if !ok || !strings.HasPrefix(name, "CAIRN_") {
			continue
		}
		key := strings.ToLower(strings.TrimPrefix(name, "CAIRN_"))
		for i := 0; i < t.NumField(); i++ {
			if t.Field(i).Type.Kind() != reflect.Struct {
				continue
			}
			field, ok := strings.CutPrefix(key, jsonName(t.Field(i))+"_")
			if !ok {
				continue
			}
			st := t.Field(i).Type
			for j := 0; j < st.NumField(); j++ {
				if jsonName(st.Field(j)) == field {
					cv.Field(i).Field(j).Set(bv.Field(i).Field(j))
				}
			}
		}
	}
	return nil
}

func jsonName(f reflect.StructField) string {
	n, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	return n
}

func setFromString(f reflect.Value, s string) error {
	switch f.Kind() {
	case reflect.String:
		f.SetString(s)
	case reflect.Int:
		n, err := strconv.Atoi(s)
		if err != nil {
			return fmt.Errorf("not a whole number")
		}
		f.SetInt(int64(n))
	case reflect.Float64:
		x, err := strconv.ParseFloat(s, 64)
		if err != nil {
			return fmt.Errorf("not a number")
		}
		f.SetFloat(x)
	case reflect.Bool:
		b, err := strconv.ParseBool(s)
		if err != nil {
			return fmt.Errorf("not true or false")
		}
		f.SetBool(b)
	case reflect.Map: // map[string]string: "a=b,c=d"
		m := map[string]string{}
		for _, p := range strings.Split(s, ",") {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if !ok || k == "" {
				return fmt.Errorf("not a list of NAME=VALUE separated by commas")
			}
			m[k] = v
		}
		f.Set(reflect.ValueOf(m))
	case reflect.Slice:
		var parts []string
		for _, p := range strings.Split(s, ",") {
			if p = strings.TrimSpace(p); p != "" {
				parts = append(parts, p)
			}
		}
		f.Set(reflect.ValueOf(parts))
	default:
		return fmt.Errorf("unsupported setting type %s", f.Kind())
	}
	return nil
}
