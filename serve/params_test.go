package serve

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"reflect"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"cairn/core/config"
	"cairn/core/search"
)

// filterSamples is a value for each filter of search.FilterFields; a
// filter added there without one here fails the test below, which then
// checks it on every surface.
var filterSamples = map[string]string{"folder": "", "type": "md", "since": "2019", "until": "2030", "path-contains": "router"}

// Every knob of config.RetrievalKnobs that `cairn search` has a flag for,
// and every filter of search.FilterFields, is a parameter of GET and POST
// /api/search and of MCP's search tool (the filters, of /api/ask and MCP's
// ask too), listed in the OpenAPI document and the tools' schemas, and
// reaches the engine's request as the command line's flag does: the
// request is the one built from the settings with the knob set, or from
// the filter spec with the filter set.
func TestEveryKnobAndFilterIsAParameter(t *testing.T) {
	eng := testEngine(t)
	filterSamples["folder"] = corpus(t)
	var mu sync.Mutex
	var got search.Request
	stub := stubEngine{Engine: eng, search: func(ctx context.Context, req search.Request) (*search.Response, error) {
		mu.Lock()
		got = req
		mu.Unlock()
		return eng.Search(ctx, req)
	}}
	base, _ := startServer(t, stub, Options{})
	const q = "reset the device"

	// The OpenAPI document and the tools' schemas list every one.
	_, body := call(t, "GET", base+"/api/openapi.json", testToken, "")
	var doc struct {
		Paths map[string]map[string]struct {
			Parameters  []struct{ Name string } `json:"parameters"`
			RequestBody struct {
				Content map[string]struct {
					Schema struct {
						Properties map[string]any `json:"properties"`
					} `json:"schema"`
				} `json:"content"`
			} `json:"requestBody"`
		} `json:"paths"`
	}
	if err := json.Unmarshal([]byte(body), &doc); err != nil {
		t.Fatal(err)
	}
	getParams := map[string]bool{}
	for _, p := range doc.Paths["/api/search"]["get"].Parameters {
		getParams[p.Name] = true
	}
	s, err := connectHTTP(t, base, testToken)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	tools, err := s.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	toolProps := map[string]map[string]any{}
	for _, tool := range tools.Tools {
		var sch struct{ Properties map[string]any }
		b, _ := json.Marshal(tool.InputSchema)
		json.Unmarshal(b, &sch)
		toolProps[tool.Name] = sch.Properties
	}
	listed := func(name string, ask bool) {
		t.Helper()
		body := func(path string) map[string]any {
			return doc.Paths[path]["post"].RequestBody.Content["application/json"].Schema.Properties
		}
		where := map[string]bool{"GET /api/search": getParams[name], "POST /api/search": body("/api/search")[name] != nil,
			"MCP search": toolProps["search"][name] != nil}
		if ask {
			where["POST /api/ask"] = body("/api/ask")[name] != nil
			where["MCP ask"] = toolProps["ask"][name] != nil
		}
		for w, ok := range where {
			if !ok {
				t.Errorf("%s is not a parameter of %s", name, w)
			}
		}
	}

	// Each reaches the request on every surface as its flag does.
	check := func(name string, text string, jsonValue any, want search.Request) {
		t.Helper()
		b, _ := json.Marshal(jsonValue)
		for surface, do := range map[string]func() error{
			"GET": func() error {
				status, body := call(t, "GET", base+"/api/search?q="+url.QueryEscape(q)+"&"+name+"="+url.QueryEscape(text), testToken, "")
				if status != 200 {
					return fmt.Errorf("%d %s", status, body)
				}
				return nil
			},
			"POST": func() error {
				status, body := call(t, "POST", base+"/api/search", testToken, fmt.Sprintf(`{"q":%q,%q:%s}`, q, name, b))
				if status != 200 {
					return fmt.Errorf("%d %s", status, body)
				}
				return nil
			},
			"MCP": func() error {
				res, err := s.CallTool(context.Background(), &mcp.CallToolParams{Name: "search", Arguments: map[string]any{"query": q, name: jsonValue}})
				if err == nil && res.IsError {
					err = fmt.Errorf("%v", res.Content[0].(*mcp.TextContent).Text)
				}
				return err
			},
		} {
			mu.Lock()
			got = search.Request{}
			mu.Unlock()
			if err := do(); err != nil {
				t.Errorf("%s %s=%s: %v", surface, name, text, err)
				continue
			}
			mu.Lock()
			if !reflect.DeepEqual(got, want) {
				t.Errorf("%s %s=%s: request\n%+v\nwant\n%+v", surface, name, text, got, want)
			}
			mu.Unlock()
		}
	}
	n := 0
	for _, k := range config.RetrievalKnobs {
		if k.Flag == "" {
			continue
		}
		n++
		name := strings.ReplaceAll(k.Flag, "-", "_")
		listed(name, false)
		cfg := eng.Config()
		v := k.Lo + k.Step // a valid value that is not the setting's
		if v == k.Get(cfg) {
			v = k.Hi
		}
		k.Set(&cfg, v)
		cfg.Normalize()
		text := strconv.FormatFloat(v, 'f', -1, 64)
		var jsonValue any = v
		if k.Int {
			jsonValue = int(math.Round(v))
		}
		check(name, text, jsonValue, eng.SearchRequestWith(q, cfg.Retrieval))
	}
	for _, f := range search.FilterFields {
		n++
		name := strings.ReplaceAll(f.Flag, "-", "_")
		listed(name, true)
		var spec search.FilterSpec
		var jsonValue any
		sample, ok := filterSamples[f.Flag]
		switch {
		case f.Switch != nil: // a switch is checked turned on
			*f.Switch(&spec) = true
			sample, jsonValue = "true", true
		case !ok:
			t.Errorf("no sample value for the filter %s in filterSamples", f.Flag)
			continue
		case f.List:
			*f.Of(&spec) = sample
			jsonValue = []string{sample}
		default:
			*f.Of(&spec) = sample
			jsonValue = sample
		}
		filter, err := spec.Filter(time.Local)
		if err != nil {
			t.Fatal(err)
		}
		want := eng.SearchRequestWith(q, eng.Config().Retrieval)
		want.Filter = filter
		check(name, sample, jsonValue, want)
	}
	// The settings that are no knob, and the request's own.
	for _, name := range []string{"mode", "fusion", "exact", "page"} {
		n++
		listed(name, name == "exact" || name == "page")
	}
	want := eng.SearchRequestWith(q, eng.Config().Retrieval)
	want.Exact = true
	check("exact", "true", true, want)
	// Page 2 searches two pages' worth and keeps the second.
	want = eng.SearchRequestWith(q, eng.Config().Retrieval)
	want.TopK *= 2
	check("page", "2", 2, want)
	if len(getParams) != n+1 { // and q
		t.Errorf("%d knobs, filters and settings, %d parameters of GET /api/search: %v", n, len(getParams)-1, getParams)
	}
}
