package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"cairn/core/fault"
)

func dirsIn(t *testing.T) Dirs {
	h := t.TempDir()
	return Dirs{Config: filepath.Join(h, "config"), Data: filepath.Join(h, "data"), State: filepath.Join(h, "state")}
}

func TestLoadDefaultsFileAndEnv(t *testing.T) {
	d := dirsIn(t)
	t.Setenv("CAIRN_PROFILE", "")
	os.MkdirAll(d.Config, 0o700)
	os.WriteFile(d.SettingsFile(), []byte(`{"profile":"server","retrieval":{"rrf_k":30}}`), 0o600)
	t.Setenv("CAIRN_RETRIEVAL_TOP_K", "7")
	t.Setenv("CAIRN_INDEX_IGNORE", "a, b")
	c, err := Load(d)
	if err != nil {
		t.Fatal(err)
	}
	if c.Profile != "server" || c.Retrieval.RRFK != 30 || c.Retrieval.TopK != 7 || c.Retrieval.BM25Pool != 120 {
		t.Errorf("%+v", c.Retrieval)
	}
	if strings.Join(c.Indexing.Ignore, "|") != "a|b" || c.Paths.ModelsDir != filepath.Join(d.Data, "models") || c.Paths.KB != "default" {
		t.Errorf("ignore %v models %s kb %s", c.Indexing.Ignore, c.Paths.ModelsDir, c.Paths.KB)
	}
}

func TestSaveKeepsEnvironmentOut(t *testing.T) {
	d := dirsIn(t)
	t.Setenv("CAIRN_RETRIEVAL_TOP_K", "3")
	c, err := Load(d)
	if err != nil {
		t.Fatal(err)
	}
	c.Retrieval.MinScore = 0.25 // a change the person made
	if err := Save(d, c); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(d.SettingsFile())
	if strings.Contains(string(raw), d.Data) {
		t.Error("derived folders were written to the settings file")
	}
	os.Unsetenv("CAIRN_RETRIEVAL_TOP_K")
	c2, err := Load(d)
	if err != nil {
		t.Fatal(err)
	}
	if c2.Retrieval.TopK == 3 || c2.Retrieval.MinScore != 0.25 {
		t.Errorf("top_k %d (env leaked into the file?), min_score %v", c2.Retrieval.TopK, c2.Retrieval.MinScore)
	}
	if fi, _ := os.Stat(d.SettingsFile()); fi.Mode().Perm() != 0o600 {
		t.Errorf("settings mode %v", fi.Mode().Perm())
	}
}

func TestValidateAndBadFile(t *testing.T) {
	d := dirsIn(t)
	os.MkdirAll(d.Config, 0o700)
	os.WriteFile(d.SettingsFile(), []byte(`{"retrieval":{"top_kk":3}}`), 0o600)
	if _, err := Load(d); err == nil || !strings.Contains(err.Error(), `unknown field "top_kk"`) {
		t.Errorf("typo accepted: %v", err)
	}
	os.WriteFile(d.SettingsFile(), []byte(`{"retrieval":{"min_score":2,"fusion":"magic"}}`), 0o600)
	_, err := Load(d)
	if err == nil || !strings.Contains(err.Error(), "retrieval.min_score must be between 0 and 1") || !strings.Contains(err.Error(), `retrieval.fusion "magic"`) {
		t.Errorf("invalid settings: %v", err)
	}
	os.Remove(d.SettingsFile())
	t.Setenv("CAIRN_RETRIEVAL_TOP_K", "many")
	if _, err := Load(d); err == nil || !strings.Contains(err.Error(), "CAIRN_RETRIEVAL_TOP_K") {
		t.Errorf("bad env: %v", err)
	}
}

// llm.device is auto by default; "CPU" and " Auto " mean cpu and auto,
// a device's name keeps its case, and an empty one is refused.
func TestLLMDevice(t *testing.T) {
	d := dirsIn(t)
	if c, err := Load(d); err != nil || c.LLM.Device != "auto" {
		t.Fatalf("default llm.device %q, %v", c.LLM.Device, err)
	}
	for env, want := range map[string]string{"CPU": "cpu", " Auto ": "auto", "Vulkan1": "Vulkan1", "RTX 3060": "RTX 3060"} {
		t.Setenv("CAIRN_LLM_DEVICE", env)
		if c, err := Load(d); err != nil || c.LLM.Device != want {
			t.Errorf("CAIRN_LLM_DEVICE=%q: %q, %v; want %q", env, c.LLM.Device, err, want)
		}
	}
	t.Setenv("CAIRN_LLM_DEVICE", " ")
	if _, err := Load(d); err == nil || !strings.Contains(err.Error(), "CAIRN_LLM_DEVICE: llm.device is empty") {
		t.Errorf("empty llm.device: %v", err)
	}
}

func TestAPIKeyIsNeverASetting(t *testing.T) {
	d := dirsIn(t)
	t.Setenv("CAIRN_API_KEY", "sk-test-secret-1234")
	t.Setenv("CAIRN_NETWORK_API_KEY", "sk-test-secret-5678")
	c, err := Load(d)
	if err != nil {
		t.Fatal(err)
	}
	c.Network.Endpoint = "https://api.example.test/v1"
	if err := Save(d, c); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(d.SettingsFile())
	if strings.Contains(string(raw), "secret") || strings.Contains(string(raw), "api_key") {
		t.Errorf("the API key reached the settings file:\n%s", raw)
	}
	if !strings.Contains(string(raw), `"endpoint": "https://api.example.test/v1"`) {
		t.Errorf("the endpoint was not saved:\n%s", raw)
	}
	os.WriteFile(d.SettingsFile(), []byte(`{"network":{"api_key":"sk-in-file"}}`), 0o600)
	_, err = Load(d)
	if err == nil || !strings.Contains(err.Error()+fault.FixLine(err), `remove "api_key" and set CAIRN_API_KEY or store the key in the keyring`) ||
		strings.Contains(err.Error(), "sk-in-file") {
		t.Errorf("a key in the settings file: %v", err)
	}
}

func TestNetworkSettingsAreChecked(t *testing.T) {
	d := dirsIn(t)
	os.MkdirAll(d.Config, 0o700)
	os.WriteFile(d.SettingsFile(), []byte(`{"network":{"api":"grpc","endpoint":"api.example.test","catalog":"ftp://mirror.example.test"}}`), 0o600)
	_, err := Load(d)
	for _, want := range []string{`network.api "grpc": use openai or ollama`, `network.endpoint "api.example.test": use an http:// or https:// URL`,
		`network.catalog "ftp://mirror.example.test"`} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err %v lacks %q", err, want)
		}
	}
	os.WriteFile(d.SettingsFile(), []byte(`{"network":{"allow":["docs.example.test","https://","example.test/path"]}}`), 0o600)
	_, err = Load(d)
	for _, want := range []string{`network.allow entry "https://": the URL has no host (use host, host:port, *.domain or an IP address)`,
		`network.allow entry "example.test/path": not a host`} {
		if err == nil || !strings.Contains(err.Error(), want) || fault.CodeOf(err) != fault.ConfigInvalid {
			t.Errorf("err %v lacks %q", err, want)
		}
	}
	os.WriteFile(d.SettingsFile(), []byte(`{"network":{"endpoint":"https://ann:s3cret@api.example.test/v1","catalog":"https://tok3n@mirror.example.test"}}`), 0o600)
	_, err = Load(d)
	for _, want := range []string{
		"network.endpoint \"https://xxxxx@api.example.test/v1\": remove the user name and password from the URL; " +
			"an API key goes in CAIRN_API_KEY or the keyring (`cairn network key set`)",
		`network.catalog "https://xxxxx@mirror.example.test": remove the user name and password from the URL`,
	} {
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("err %v lacks %q", err, want)
		}
	}
	if err != nil && (strings.Contains(err.Error(), "s3cret") || strings.Contains(err.Error(), "tok3n")) {
		t.Errorf("the message shows the credentials: %v", err)
	}
	t.Setenv("CAIRN_NETWORK_CATALOG", "http://127.0.0.1:8080")
	os.Remove(d.SettingsFile())
	c, err := Load(d)
	if err != nil || c.Network.Catalog != "http://127.0.0.1:8080" {
		t.Errorf("catalog %q, %v", c.Network.Catalog, err)
	}
}

func TestLoadErrorsAreFaults(t *testing.T) {
	d := dirsIn(t)
	os.MkdirAll(d.Config, 0o700)
	for _, tt := range []struct {
		file string
		env  string
		code fault.Code
		msg  string
	}{
		{`{"retrieval":`, "", fault.ConfigUnreadable, "unexpected EOF"},
		{`{"log":{"level":"loud"}}`, "", fault.ConfigInvalid, `log.level "loud"`},
		{`{"embedding":{"batch_mb":0}}`, "", fault.ConfigInvalid, "embedding.batch_mb must be at least 1"},
		{`{}`, "many", fault.ConfigEnv, `CAIRN_RETRIEVAL_TOP_K="many"`},
	} {
		os.WriteFile(d.SettingsFile(), []byte(tt.file), 0o600)
		if tt.env != "" {
			t.Setenv("CAIRN_RETRIEVAL_TOP_K", tt.env)
		}
		_, err := Load(d)
		if fault.CodeOf(err) != tt.code || !strings.Contains(err.Error(), tt.msg) || fault.FixLine(err) == "" {
			t.Errorf("%s: %v (code %q, fix %q)", tt.file, err, fault.CodeOf(err), fault.FixLine(err))
		}
	}
	// Fallback carries on with the defaults and the folders, and is never
	// saved over the file that failed to load.
	c := Fallback(d)
	if c.Paths.DataDir != d.Data || c.Paths.KB != "default" || c.Validate() != nil {
		t.Errorf("fallback %+v", c.Paths)
	}
	before, _ := os.ReadFile(d.SettingsFile())
	c.Retrieval.TopK = 3
	if err := Save(d, c); fault.CodeOf(err) != fault.ConfigUnreadable {
		t.Errorf("saving the fallback: %v", err)
	}
	if after, _ := os.ReadFile(d.SettingsFile()); string(after) != string(before) {
		t.Errorf("the settings file changed: %q", after)
	}
}

// TestOneValidation: the environment, the settings file and their
// spellings go through one check that names each bad value and where it
// came from (issue 14, item 5).
func TestOneValidation(t *testing.T) {
	d := dirsIn(t)
	for _, tt := range []struct{ env, val, want string }{
		{"CAIRN_RETRIEVAL_RRF_K", "NaN", "CAIRN_RETRIEVAL_RRF_K: retrieval.rrf_k must be a finite number, not NaN"},
		{"CAIRN_RETRIEVAL_RRF_K", "Inf", "CAIRN_RETRIEVAL_RRF_K: retrieval.rrf_k must be a finite number, not +Inf"},
		{"CAIRN_RETRIEVAL_MIN_SCORE", "NaN", "CAIRN_RETRIEVAL_MIN_SCORE: retrieval.min_score must be a finite number, not NaN"},
		{"CAIRN_GENERATION_TEMPERATURE", "-Inf", "generation.temperature must be a finite number, not -Inf"},
		{"CAIRN_RETRIEVAL_TOP_K", "-1", "CAIRN_RETRIEVAL_TOP_K: retrieval.top_k must be at least 1, not -1"},
		{"CAIRN_INDEX_TIMEOUT_SEC", "-5", "index.timeout_sec must not be negative (0: the default), not -5"},
	} {
		t.Setenv(tt.env, tt.val)
		_, err := Load(d)
		if fault.CodeOf(err) != fault.ConfigInvalid || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s=%s: %v, want %q", tt.env, tt.val, err, tt.want)
		}
		os.Unsetenv(tt.env)
	}

	t.Setenv("CAIRN_NETWORK_MODE", "ONLINE")
	t.Setenv("CAIRN_LOG_LEVEL", " Debug")
	c, err := Load(d)
	if err != nil || c.Network.Mode != "online" || c.Log.Level != "debug" {
		t.Errorf("capitals: %v, mode %q, level %q", err, c.Network.Mode, c.Log.Level)
	}
	os.Unsetenv("CAIRN_NETWORK_MODE")
	os.Unsetenv("CAIRN_LOG_LEVEL")

	// Windows editors write a byte order mark first.
	os.MkdirAll(d.Config, 0o700)
	os.WriteFile(d.SettingsFile(), []byte("\xef\xbb\xbf"+`{"retrieval":{"top_k":5,"fusion":"Weighted"}}`), 0o600)
	c, err = Load(d)
	if err != nil || c.Retrieval.TopK != 5 || c.Retrieval.Fusion != "weighted" {
		t.Errorf("settings with a BOM: %v, %+v", err, c.Retrieval)
	}
}

// TestStoreBackendIsOneSettingAndItsKeyNeverOne: store.backend is sqlite by
// default or weaviate with the cluster's URL; a bad backend, a missing or
// credentialed URL are refused naming the key, and a key in the "store"
// section is refused with where it belongs instead (CAIRN_WEAVIATE_KEY).
func TestStoreBackendIsOneSettingAndItsKeyNeverOne(t *testing.T) {
	d := dirsIn(t)
	t.Setenv("CAIRN_PROFILE", "")
	c, err := Load(d)
	if err != nil || c.Store.Backend != BackendSQLite || c.Store.URL != "" {
		t.Fatalf("default store %+v, %v", c.Store, err)
	}
	os.MkdirAll(d.Config, 0o700)
	os.WriteFile(d.SettingsFile(), []byte(`{"store":{"backend":" Weaviate","url":"https://weaviate.example.test"},"network":{"mode":"team"}}`), 0o600)
	c, err = Load(d)
	if err != nil || c.Store.Backend != BackendWeaviate || c.Store.URL != "https://weaviate.example.test" || c.Network.Mode != "team" {
		t.Fatalf("store %+v, mode %q, %v", c.Store, c.Network.Mode, err)
	}
	for file, want := range map[string]string{
		`{"store":{"backend":"elastic"}}`:                                                  `store.backend "elastic": use sqlite or weaviate`,
		`{"store":{"backend":"weaviate"}}`:                                                 `store.url is empty: store.backend weaviate needs the cluster's URL`,
		`{"store":{"backend":"weaviate","url":"weaviate:8080"}}`:                           `store.url "weaviate:8080": use an http:// or https:// URL`,
		`{"store":{"backend":"weaviate","url":"http://ann:s3cret@weaviate.example.test"}}`: `store.url "http://xxxxx@weaviate.example.test": remove the user name and password from the URL; the cluster's API key goes in CAIRN_WEAVIATE_KEY`,
		`{"network":{"mode":"cluster"}}`:                                                   `network.mode "cluster": use offline, team, online or admin`,
	} {
		os.WriteFile(d.SettingsFile(), []byte(file), 0o600)
		_, err := Load(d)
		if err == nil || !strings.Contains(err.Error(), want) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%s: err %v, want %q", file, err, want)
		}
	}
	os.WriteFile(d.SettingsFile(), []byte(`{"store":{"backend":"weaviate","url":"http://127.0.0.1:8080","api_key":"wv-in-file"}}`), 0o600)
	_, err = Load(d)
	if err == nil || !strings.Contains(err.Error()+fault.FixLine(err), "set CAIRN_WEAVIATE_KEY or store the key in the keyring") ||
		strings.Contains(err.Error(), "wv-in-file") {
		t.Errorf("a key in the store section: %v", err)
	}
	t.Setenv("CAIRN_WEAVIATE_KEY", "wv-secret-key")
	t.Setenv("CAIRN_STORE_BACKEND", "weaviate")
	t.Setenv("CAIRN_STORE_URL", "http://127.0.0.1:8080")
	os.Remove(d.SettingsFile())
	c, err = Load(d)
	if err != nil || c.Store.Backend != BackendWeaviate || c.Store.URL != "http://127.0.0.1:8080" {
		t.Fatalf("from the environment: %+v, %v", c.Store, err)
	}
	c.Store.URL = "http://weaviate.example.test:8080"
	if err := Save(d, c); err != nil {
		t.Fatal(err)
	}
	raw, _ := os.ReadFile(d.SettingsFile())
	if strings.Contains(string(raw), "wv-secret") || !strings.Contains(string(raw), `"backend": "sqlite"`) {
		t.Errorf("saved settings:\n%s", raw)
	}
}

// store.folders says where the cluster's folders are here: from the file,
// or CAIRN_STORE_FOLDERS as NAME=PATH pairs; a path that is not absolute
// is refused.
func TestStoreFoldersMapTheClustersNames(t *testing.T) {
	d := dirsIn(t)
	os.MkdirAll(d.Config, 0o700)
	if err := os.WriteFile(d.SettingsFile(), []byte(`{"store":{"backend":"weaviate","url":"http://127.0.0.1:8080","folders":{"share":"/mnt/share"}}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := Load(d)
	if err != nil || !reflect.DeepEqual(c.Store.Folders, map[string]string{"share": "/mnt/share"}) {
		t.Fatalf("from the file: %+v, %v", c.Store, err)
	}
	t.Setenv("CAIRN_STORE_FOLDERS", "share=/srv/share, nas/docs=/home/ann/docs")
	c, err = Load(d)
	if err != nil || !reflect.DeepEqual(c.Store.Folders, map[string]string{"share": "/srv/share", "nas/docs": "/home/ann/docs"}) {
		t.Fatalf("from the environment: %+v, %v", c.Store, err)
	}
	t.Setenv("CAIRN_STORE_FOLDERS", "share=mnt/share")
	if _, err := Load(d); err == nil || !strings.Contains(err.Error(), `store.folders "share": "mnt/share" must be the folder's absolute path on this computer`) {
		t.Errorf("a relative path: %v", err)
	}
	t.Setenv("CAIRN_STORE_FOLDERS", "share")
	if _, err := Load(d); err == nil || !strings.Contains(err.Error(), "not a list of NAME=VALUE") {
		t.Errorf("no path: %v", err)
	}
}

// The reranker is off on the laptop profile and on for the others, with a
// budget of 1.5 s; switching profile switches it.
func TestRerankFollowsTheProfile(t *testing.T) {
	for profile, on := range map[string]bool{"laptop": false, "desktop": true, "server": true} {
		c := Default(profile)
		if c.Rerank.Enabled != on || c.Rerank.BudgetSec != 1.5 {
			t.Errorf("%s: rerank %+v, want enabled %v and a 1.5 s budget", profile, c.Rerank, on)
		}
	}
	c, err := Default("laptop").WithProfile("desktop")
	if err != nil || !c.Rerank.Enabled {
		t.Errorf("laptop -> desktop: rerank %+v, %v", c.Rerank, err)
	}
	c, _ = c.WithProfile("laptop")
	if c.Rerank.Enabled {
		t.Error("desktop -> laptop left the reranker on")
	}
}

// TestJunkAfterTheSettingsIsRefused: text after the settings object is
// refused, not dropped by the next save (issue 33, item 8).
func TestJunkAfterTheSettingsIsRefused(t *testing.T) {
	d := dirsIn(t)
	os.MkdirAll(d.Config, 0o700)
	os.WriteFile(d.SettingsFile(), []byte(`{"retrieval": {"top_k": 5}} {"retrieval": {"top_k": 9}}`), 0o600)
	_, err := Load(d)
	if fault.CodeOf(err) != fault.ConfigUnreadable || !strings.Contains(err.Error(), `"{\"retrieval\": {\"top_…" after the settings' closing brace (at byte 27)`) {
		t.Errorf("junk after the object: %v", err)
	}
	os.WriteFile(d.SettingsFile(), []byte("{\"retrieval\": {\"top_k\": 5}}\n\n"), 0o600)
	if c, err := Load(d); err != nil || c.Retrieval.TopK != 5 {
		t.Errorf("trailing blank lines: %v", err)
	}
}

// TestSaveKeepsALinkedSettingsFileALink: saving through a settings.json
// that is a symbolic link writes the file it names (issue 33, item 8).
func TestSaveKeepsALinkedSettingsFileALink(t *testing.T) {
	d := dirsIn(t)
	os.MkdirAll(d.Config, 0o700)
	real := filepath.Join(t.TempDir(), "dotfiles-settings.json")
	os.WriteFile(real, []byte(`{"retrieval": {"top_k": 5}}`), 0o600)
	os.Symlink(real, d.SettingsFile())
	c, err := Load(d)
	if err != nil {
		t.Fatal(err)
	}
	c.Retrieval.TopK = 7
	if err := Save(d, c); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(d.SettingsFile()); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("settings.json is no longer a link: %v", err)
	}
	if back, err := Load(d); err != nil || back.Retrieval.TopK != 7 {
		t.Errorf("the linked file: %v, top_k %d", err, back.Retrieval.TopK)
	}
}

// retrieval.include_guide is on unless a person turns it off, in the file
// or with CAIRN_RETRIEVAL_INCLUDE_GUIDE; a value that is not true or false
// is refused naming the variable; a profile switch keeps it (issue 39,
// item 7).
func TestIncludeGuideIsAChoiceNotAProfile(t *testing.T) {
	t.Setenv("CAIRN_PROFILE", "")
	d := dirsIn(t)
	c, err := Load(d)
	if err != nil || !c.Retrieval.IncludeGuide {
		t.Fatalf("default include_guide %v (%v), want true", c.Retrieval.IncludeGuide, err)
	}
	os.MkdirAll(d.Config, 0o700)
	os.WriteFile(d.SettingsFile(), []byte(`{"retrieval":{"include_guide":false}}`), 0o600)
	if c, err = Load(d); err != nil || c.Retrieval.IncludeGuide {
		t.Fatalf("the file's false read as %v (%v)", c.Retrieval.IncludeGuide, err)
	}
	for _, p := range Profiles() {
		if w, _ := c.WithProfile(p); w.Retrieval.IncludeGuide {
			t.Errorf("switching to %s turned the guide back on", p)
		}
	}
	t.Setenv("CAIRN_RETRIEVAL_INCLUDE_GUIDE", "true")
	if c, err = Load(d); err != nil || !c.Retrieval.IncludeGuide {
		t.Errorf("CAIRN_RETRIEVAL_INCLUDE_GUIDE=true read as %v (%v)", c.Retrieval.IncludeGuide, err)
	}
	t.Setenv("CAIRN_RETRIEVAL_INCLUDE_GUIDE", "sometimes")
	if _, err = Load(d); err == nil || !strings.Contains(err.Error(), "CAIRN_RETRIEVAL_INCLUDE_GUIDE") || !strings.Contains(err.Error(), "not true or false") {
		t.Errorf("CAIRN_RETRIEVAL_INCLUDE_GUIDE=sometimes: %v", err)
	}
}
