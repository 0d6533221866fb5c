package config

import (
	"encoding/json"
	"errors"
	"math"
	"os"
	"reflect"
	"strings"
	"testing"

	"cairn/core/fault"
)

// Every knob names a number setting, its slider lies within what is valid,
// and Validate rejects a value outside its bounds under its key.
func TestEveryKnobIsASettingValidatedByItsBounds(t *testing.T) {
	for _, k := range Knobs() {
		t.Run(k.Key, func(t *testing.T) {
			c := Default("laptop")
			if v := k.Get(c); v < k.Min || v > k.Max {
				t.Errorf("default %v outside %v..%v", v, k.Min, k.Max)
			}
			if !(k.Min <= k.Lo && k.Lo < k.Hi && k.Hi <= k.Max && k.Step > 0) {
				t.Errorf("slider %v..%v step %v not within %v..%v", k.Lo, k.Hi, k.Step, k.Min, k.Max)
			}
			if k.Label == "" || k.Help == "" {
				t.Error("no label or help")
			}
			k.Set(&c, k.Hi)
			if got := k.Get(c); got != k.Hi {
				t.Errorf("set %v, got %v", k.Hi, got)
			}
			if err := c.Validate(); err != nil {
				t.Errorf("the slider's top %v is refused: %v", k.Hi, err)
			}
			for _, bad := range []float64{k.Min - 1, k.Max + 1} {
				if math.IsInf(bad, 1) {
					continue
				}
				k.Set(&c, bad)
				var inv *InvalidError
				if err := c.Validate(); !errors.As(err, &inv) || len(inv.Problems) != 1 || inv.Problems[0].Key != k.Key {
					t.Errorf("%v: %v, want one problem with %s", bad, err, k.Key)
				}
			}
		})
	}
}

func TestKnobMessagesNameTheBoundsAndWhatZeroMeans(t *testing.T) {
	c := Default("laptop")
	c.Retrieval.TopK, c.Retrieval.MinScore, c.Retrieval.PerDocCap, c.Retrieval.BM25Pool = 0, 1.5, -1, -10
	want := "invalid settings: retrieval.top_k must be at least 1, not 0; " +
		"retrieval.min_score must be between 0 and 1, not 1.5; " +
		"retrieval.per_doc_cap must not be negative (0: no cap), not -1; " +
		"retrieval.bm25_pool must not be negative (0: 60 candidates), not -10"
	if err := c.Validate(); err == nil || err.Error() != want {
		t.Errorf("got  %v\nwant %s", err, want)
	}
}

// TestEveryNumberSettingHasBounds: each whole number and number of the
// settings is a knob or a NumberSetting, so Validate checks it against a
// range (issue 33, item 3); chunking.overlap is checked against
// chunking.size by Validate itself.
func TestEveryNumberSettingHasBounds(t *testing.T) {
	bounded := map[string]bool{"chunking.overlap": true}
	for _, k := range append(Knobs(), NumberSettings...) {
		if bounded[k.Key] {
			t.Errorf("%s listed twice", k.Key)
		}
		bounded[k.Key] = true
		if math.IsInf(k.Max, 0) || math.IsInf(k.Min, 0) || k.Min > k.Max {
			t.Errorf("%s: bounds %v..%v", k.Key, k.Min, k.Max)
		}
		if k.Get(Default("laptop")) < k.Min || k.Get(Default("server")) > k.Max {
			t.Errorf("%s: a default is out of bounds", k.Key)
		}
	}
	v := reflect.ValueOf(Default("laptop"))
	for i := 0; i < v.NumField(); i++ {
		sv := v.Field(i)
		if sv.Kind() != reflect.Struct || !v.Type().Field(i).IsExported() {
			continue
		}
		for j := 0; j < sv.NumField(); j++ {
			key := jsonName(v.Type().Field(i)) + "." + jsonName(sv.Type().Field(j))
			if kind := sv.Field(j).Kind(); (kind == reflect.Int || kind == reflect.Float64) && !bounded[key] {
				t.Errorf("%s has no bounds", key)
			}
		}
	}
}

// TestHostileNumbersAreRefusedWhereTheyCameFrom: the values of the
// reliability test that were accepted are refused, naming the variable and
// the value as typed (issue 33, items 3 and 8).
func TestHostileNumbersAreRefusedWhereTheyCameFrom(t *testing.T) {
	d := dirsIn(t)
	t.Setenv("CAIRN_PROFILE", "")
	for _, tt := range []struct{ env, val, want string }{
		{"CAIRN_INDEX_WORKERS", "1000000000", "CAIRN_INDEX_WORKERS: index.workers must be between 0 and 256 (0: one per CPU), not 1000000000"},
		{"CAIRN_INDEX_WORKERS", "9223372036854775807", "index.workers must be between 0 and 256 (0: one per CPU), not 9223372036854775807"},
		{"CAIRN_GENERATION_TOP_P", "7", "CAIRN_GENERATION_TOP_P: generation.top_p must be between 0 and 1 (0: 1), not 7"},
		{"CAIRN_GENERATION_CONTEXT_SIZE", "-1", "generation.context_size must not be negative (0: the model's, up to 4096), not -1"},
		{"CAIRN_EMBEDDING_BATCH_SIZE", "-1", "embedding.batch_size must not be negative (0: the default, 32), not -1"},
		{"CAIRN_EMBEDDING_DIM", "-7", "embedding.dim must not be negative (0: the model's full dimension), not -7"},
		{"CAIRN_ANSWER_TOP_K", "-1", "answer.top_k must not be negative (0: the default, 8), not -1"},
		{"CAIRN_INDEX_MAX_FILE_MB", "9223372036854775807", "index.max_file_mb must be between 1 and 65536, not 9223372036854775807"},
		{"CAIRN_RETRIEVAL_TOP_K", "9223372036854775807", "CAIRN_RETRIEVAL_TOP_K: retrieval.top_k must be between 1 and 1000, not 9223372036854775807"},
		{"CAIRN_SERVE_PORT", "70000", "serve.port must be between 0 and 65535 (0: a free one), not 70000"},
	} {
		t.Setenv(tt.env, tt.val)
		_, err := Load(d)
		if fault.CodeOf(err) != fault.ConfigInvalid || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%s=%s: %v\nwant %q", tt.env, tt.val, err, tt.want)
		}
		os.Unsetenv(tt.env)
	}

	t.Setenv("CAIRN_PROFILE", "toaster")
	if _, err := Load(d); fault.CodeOf(err) != fault.ConfigEnv || !strings.Contains(err.Error(), `CAIRN_PROFILE="toaster": use laptop, desktop, server`) {
		t.Errorf("CAIRN_PROFILE=toaster: %v", err)
	}
	os.Unsetenv("CAIRN_PROFILE")
	os.MkdirAll(d.Config, 0o700)
	os.WriteFile(d.SettingsFile(), []byte(`{"profile":"toaster"}`), 0o600)
	if _, err := Load(d); fault.CodeOf(err) != fault.ConfigInvalid || !strings.Contains(err.Error(), `profile "toaster": use laptop, desktop, server`) {
		t.Errorf(`"profile":"toaster": %v`, err)
	}
}

// TestSetHoldsAWholeNumberWithinInt64: a value past int64 is held at its
// end, not wrapped round to the most negative number.
func TestSetHoldsAWholeNumberWithinInt64(t *testing.T) {
	c := Default("laptop")
	k, _ := KnobByKey("retrieval.top_k")
	k.Set(&c, math.MaxInt64)
	if c.Retrieval.TopK != math.MaxInt64 {
		t.Errorf("top_k %d", c.Retrieval.TopK)
	}
	if err := c.Validate(); err == nil || !strings.Contains(err.Error(), "not 9223372036854775807") {
		t.Errorf("%v", err)
	}
}

// TestKnobKeysNameTheirFields: each knob's Field points at the setting
// its Key names in settings.json, the one Validate reports and the file
// holds: a value set through Field comes out of the JSON under Key, and
// no other number changes.
func TestKnobKeysNameTheirFields(t *testing.T) {
	for _, k := range append(Knobs(), NumberSettings...) {
		c := Default("laptop")
		before := settingsNumbers(t, c)
		switch p := k.Field(&c).(type) {
		case *int:
			*p += 7
		case *float64:
			*p += 0.25
		default:
			t.Fatalf("%s points at %T, not an int or a float64", k.Key, p)
		}
		after := settingsNumbers(t, c)
		for key, v := range after {
			if changed := v != before[key]; changed != (key == k.Key) {
				t.Errorf("knob %s: setting its field changed %s (%v -> %v)", k.Key, key, before[key], v)
			}
		}
		if _, ok := after[k.Key]; !ok {
			t.Errorf("knob %s: settings.json has no such key", k.Key)
		}
	}
}

// settingsNumbers is every number of c as settings.json holds it, by
// section.key.
func settingsNumbers(t *testing.T, c Config) map[string]float64 {
	t.Helper()
	b, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var sections map[string]any
	if err := json.Unmarshal(b, &sections); err != nil {
		t.Fatal(err)
	}
	out := map[string]float64{}
	for s, section := range sections {
		fields, _ := section.(map[string]any) // not a section: "profile"
		for name, v := range fields {
			if f, ok := v.(float64); ok {
				out[s+"."+name] = f
			}
		}
	}
	return out
}
