package serve

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"
	"github.com/google/jsonschema-go/jsonschema"

	"cairn/core/config"
	"cairn/core/search"
)

// searchParam is one knob, setting or filter of a search as the API and MCP
// take it. searchParams is made from the lists `cairn search` makes its
// flags from: the knobs (config.RetrievalKnobs) and the filters
// (search.FilterFields). A knob or filter added there is a parameter of
// GET and POST /api/search (and a filter one of /api/ask), of MCP's search
// (and ask) tool, of the OpenAPI document and of the tools' schemas, with
// no other edit. A flag of `cairn search` that is in neither list is one
// entry in searchParams below (a boolean of search.Request: requestFlag).
type searchParam struct {
	Name string // the flag with _ for -: "path_contains"
	Kind paramKind
	Doc  string
	// Min and Max bound a number (Max +Inf: unbounded): the schemas show
	// them, the settings' own check applies them.
	Min, Max float64
	Ask      bool // `cairn ask` has it too: /api/ask and MCP's ask take it
	set      func(a *searchArgs, v any)
}

type paramKind int

const (
	kindInt    paramKind = iota // a whole number, read as a float64
	kindNumber                  // float64
	kindString                  // string
	kindList                    // []string: comma-separated in a query string, an array in JSON
	kindBool                    // bool
)

// searchArgs are a request's parameters read into what the command line
// builds from its flags: the settings, the filter spec, and changes to the
// request itself (exact), made once it is built.
type searchArgs struct {
	cfg  config.Config
	spec search.FilterSpec
	req  []func(*search.Request)
	page int // of the results (search) or of a list of files (ask); 0: the first
}

// maxPage bounds page: a page is made by searching page × top_k results.
const maxPage = 1000

// requestFlag is a parameter that sets a field of search.Request, as a
// boolean flag of `cairn search` (and `cairn ask`) does: one entry each.
func requestFlag(name, doc string, field func(*search.Request) *bool) searchParam {
	return searchParam{Name: name, Kind: kindBool, Ask: true, Doc: doc, set: func(a *searchArgs, v any) {
		a.req = append(a.req, func(r *search.Request) { *field(r) = v.(bool) })
	}}
}

var searchParams = func() []searchParam {
	var ps []searchParam
	for _, k := range config.RetrievalKnobs {
		if k.Flag == "" {
			continue
		}
		p := searchParam{Name: paramName(k.Flag), Kind: kindNumber, Doc: k.Help, Min: k.Min, Max: k.Max,
			set: func(a *searchArgs, v any) { k.Set(&a.cfg, v.(float64)) }}
		if k.Int {
			p.Kind = kindInt
		}
		if k.Zero != "" {
			p.Doc += " (0: " + k.Zero + ")"
		}
		p.Doc += "; default: the setting " + k.Key
		ps = append(ps, p)
	}
	ps = append(ps,
		searchParam{Name: "mode", Kind: kindString, Doc: "hybrid, bm25 or vector; default: the setting retrieval.mode (hybrid when an embedding model is loaded)",
			set: func(a *searchArgs, v any) { a.cfg.Retrieval.Mode = v.(string) }},
		searchParam{Name: "fusion", Kind: kindString, Doc: "rrf or weighted; default: the setting retrieval.fusion",
			set: func(a *searchArgs, v any) { a.cfg.Retrieval.Fusion = v.(string) }},
		requestFlag("exact", "search the words as typed: a word no passage holds is not corrected to the nearest word one does",
			func(r *search.Request) *bool { return &r.Exact }),
		searchParam{Name: "page", Kind: kindInt, Min: 1, Max: maxPage, Ask: true,
			Doc: "the page: of the results, top_k a page (2: results top_k+1 to 2×top_k); of an answer that lists files, 50 files a page; default 1",
			set: func(a *searchArgs, v any) { a.page = int(v.(float64)) }},
	)
	for _, f := range search.FilterFields {
		p := searchParam{Name: paramName(f.Flag), Kind: kindString, Doc: strings.ReplaceAll(f.Help, "`", ""), Ask: true,
			set: func(a *searchArgs, v any) { *f.Of(&a.spec) = v.(string) }}
		switch {
		case f.Switch != nil:
			p.Kind = kindBool
			p.set = func(a *searchArgs, v any) { *f.Switch(&a.spec) = v.(bool) }
		case f.List:
			p.Kind = kindList
			p.set = func(a *searchArgs, v any) { *f.Of(&a.spec) = strings.Join(v.([]string), ",") }
		}
		if f.Flag == "folder" {
			p.Doc += "; absolute paths (or ~/...): a relative one is refused"
		}
		ps = append(ps, p)
	}
	return ps
}()

// askParams are the parameters of a question: those `cairn ask` has, its
// search's and its own (--word-forms).
var askParams = append(slices.DeleteFunc(slices.Clone(searchParams), func(p searchParam) bool { return !p.Ask }),
	requestFlag("word_forms", "for a question about the collection (how many files mention X): count any form of the words, not whole words only",
		func(r *search.Request) *bool { return &r.WordForms }))

// paramName is a flag's name as a parameter: path-contains, path_contains.
func paramName(flag string) string { return strings.ReplaceAll(flag, "-", "_") }

func findParam(ps []searchParam, name string) (searchParam, bool) {
	i := slices.IndexFunc(ps, func(p searchParam) bool { return p.Name == name })
	if i < 0 {
		return searchParam{}, false
	}
	return ps[i], true
}

// fromText reads a query string's value.
func (p searchParam) fromText(s string) (any, error) {
	t := strings.TrimSpace(s)
	switch p.Kind {
	case kindInt:
		n, err := strconv.Atoi(t)
		if err != nil {
			return nil, fmt.Errorf("%s=%s is not a whole number", p.Name, s)
		}
		return float64(n), nil
	case kindNumber:
		x, err := strconv.ParseFloat(t, 64)
		if err != nil || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil, fmt.Errorf("%s=%s is not a number", p.Name, s)
		}
		return x, nil
	case kindList:
		return search.SplitList(s), nil
	case kindBool:
		b, err := strconv.ParseBool(t)
		if err != nil {
			return nil, fmt.Errorf("%s=%s is not true or false", p.Name, s)
		}
		return b, nil
	}
	return s, nil
}

// fromJSON reads a JSON value: a body's field or a tool's argument.
func (p searchParam) fromJSON(raw json.RawMessage) (any, error) {
	var v any
	var err error
	switch p.Kind {
	case kindInt, kindNumber:
		var x float64
		if err = json.Unmarshal(raw, &x); err == nil && p.Kind == kindInt && x != math.Trunc(x) {
			err = errors.New("not whole")
		}
		v = x
	case kindList:
		var l []string
		err = json.Unmarshal(raw, &l)
		for _, e := range l {
			if strings.Contains(e, ",") {
				// Values are read as the command line reads them, where a comma separates two.
				return nil, fmt.Errorf("%s: %q holds a comma, which separates values: give each as its own", p.Name, e)
			}
		}
		v = l
	case kindBool:
		var b bool
		err = json.Unmarshal(raw, &b)
		v = b
	default:
		var s string
		err = json.Unmarshal(raw, &s)
		v = s
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %s is not %s", p.Name, raw, [...]string{"a whole number", "a number", "a string", "an array of strings", "true or false"}[p.Kind])
	}
	return v, nil
}

// schema is the parameter's schema in the OpenAPI document: in a JSON body
// (a list is an array) or in a query string (a list is comma-separated).
func (p searchParam) schema(inQuery bool) *huma.Schema {
	s := &huma.Schema{Description: p.Doc}
	switch p.Kind {
	case kindInt:
		s.Type = huma.TypeInteger
	case kindNumber:
		s.Type = huma.TypeNumber
	case kindBool:
		s.Type = huma.TypeBoolean
	case kindList:
		if inQuery {
			s.Type, s.Description = huma.TypeString, p.Doc+", comma-separated"
		} else {
			s.Type, s.Items = huma.TypeArray, &huma.Schema{Type: huma.TypeString}
		}
	default:
		s.Type = huma.TypeString
	}
	if p.Kind == kindInt || p.Kind == kindNumber {
		s.Minimum = &p.Min
		if !math.IsInf(p.Max, 1) {
			s.Maximum = &p.Max
		}
	}
	s.PrecomputeMessages()
	return s
}

// toolSchema is the parameter's schema in an MCP tool's input.
func (p searchParam) toolSchema() *jsonschema.Schema {
	s := &jsonschema.Schema{Description: p.Doc}
	switch p.Kind {
	case kindInt:
		s.Type = "integer"
	case kindNumber:
		s.Type = "number"
	case kindBool:
		s.Type = "boolean"
	case kindList:
		s.Type, s.Items = "array", &jsonschema.Schema{Type: "string"}
	default:
		s.Type = "string"
	}
	if p.Kind == kindInt || p.Kind == kindNumber {
		s.Minimum = &p.Min
		if !math.IsInf(p.Max, 1) {
			s.Maximum = &p.Max
		}
	}
	return s
}

// textField is the field that holds what is searched or asked.
type textField struct{ name, doc string }

var (
	queryText    = textField{"q", "what to look for"}
	questionText = textField{"question", "the question, as a person would ask it"}
	toolQuery    = textField{"query", "what to look for, in the words of the documents"}
)

// bodySchema is a JSON body's schema: the text, the parameters, and the
// body's own fields; no other field is accepted, as no other flag is.
func bodySchema(text textField, ps []searchParam, own map[string]*huma.Schema) *huma.Schema {
	one := 1
	s := &huma.Schema{Type: huma.TypeObject, Required: []string{text.name}, AdditionalProperties: false,
		Properties: map[string]*huma.Schema{text.name: {Type: huma.TypeString, MinLength: &one, Description: text.doc}}}
	for _, p := range ps {
		s.Properties[p.Name] = p.schema(false)
	}
	for name, o := range own {
		s.Properties[name] = o
	}
	s.PrecomputeMessages()
	return s
}

// toolInput is an MCP tool's input schema: the text and the parameters.
func toolInput(text textField, ps []searchParam) *jsonschema.Schema {
	one := 1
	s := &jsonschema.Schema{Type: "object", Required: []string{text.name}, AdditionalProperties: &jsonschema.Schema{Not: &jsonschema.Schema{}},
		Properties: map[string]*jsonschema.Schema{text.name: {Type: "string", MinLength: &one, Description: text.doc}}}
	for _, p := range ps {
		s.Properties[p.Name] = p.toolSchema()
	}
	return s
}

// queryParams are the OpenAPI parameters of a GET: the text and the params.
func queryParams(text textField, ps []searchParam) []*huma.Param {
	out := []*huma.Param{{Name: text.name, In: "query", Required: true, Description: text.doc,
		Schema: &huma.Schema{Type: huma.TypeString, Description: text.doc}}}
	for _, p := range ps {
		sch := p.schema(true)
		out = append(out, &huma.Param{Name: p.Name, In: "query", Description: sch.Description, Schema: sch})
	}
	return out
}

// readQuery reads a query string into the text and the parameters' values.
func readQuery(q url.Values, text textField, ps []searchParam) (string, map[string]any, error) {
	values := map[string]any{}
	for name, vs := range q {
		if name == text.name {
			continue
		}
		p, ok := findParam(ps, name)
		if !ok {
			return "", nil, fmt.Errorf("unknown query parameter %s", name)
		}
		v, err := p.fromText(vs[len(vs)-1])
		if err != nil {
			return "", nil, err
		}
		values[name] = v
	}
	return q.Get(text.name), values, nil
}

// readJSON reads a body's or a tool's fields into the text and the
// parameters' values; skip are the fields of its own (stream).
func readJSON(fields map[string]json.RawMessage, text textField, ps []searchParam, skip ...string) (string, map[string]any, error) {
	values := map[string]any{}
	var q string
	for name, raw := range fields {
		switch {
		case name == text.name:
			if err := json.Unmarshal(raw, &q); err != nil {
				return "", nil, fmt.Errorf("%s: %s is not a string", name, raw)
			}
			continue
		case slices.Contains(skip, name):
			continue
		}
		p, ok := findParam(ps, name)
		if !ok {
			return "", nil, fmt.Errorf("unknown field %s", name)
		}
		v, err := p.fromJSON(raw)
		if err != nil {
			return "", nil, err
		}
		values[name] = v
	}
	return q, values, nil
}

// query is a search or a question as a client sent it: the engine's
// request, and the page of what it gives that the client wants.
type query struct {
	req  search.Request
	page int // 1 for the first
}

// request builds the engine's request for text with the values of ps, as
// `cairn search` builds it from its flags: the knobs go through the
// settings' own check, the filters through search.FilterSpec, never from a
// working directory (the client's is not the service's).
func (s *Server) request(text string, ps []searchParam, values map[string]any) (query, error) {
	if strings.TrimSpace(text) == "" {
		return query{}, huma.Error400BadRequest("the query is empty: say what you are looking for")
	}
	if len(text) > s.opt.Limits.MaxQuery {
		return query{}, huma.NewError(http.StatusRequestEntityTooLarge, tooLarge("the query", int64(s.opt.Limits.MaxQuery)))
	}
	a := searchArgs{cfg: s.eng.Config(), spec: search.FilterSpec{AbsoluteOnly: true}}
	for name, v := range values {
		p, ok := findParam(ps, name)
		if !ok {
			return query{}, huma.Error422UnprocessableEntity("unknown parameter " + name)
		}
		p.set(&a, v)
	}
	if a.page < 0 || a.page > maxPage || values["page"] != nil && a.page < 1 {
		return query{}, huma.Error422UnprocessableEntity(fmt.Sprintf("page: %v is not a page: give a whole number from 1 to %d", values["page"], maxPage))
	}
	a.cfg.Normalize()
	if err := a.cfg.Validate(); err != nil {
		return query{}, huma.Error422UnprocessableEntity(err.Error())
	}
	f, err := a.spec.Filter(time.Local)
	var fe *search.FilterError
	if errors.As(err, &fe) {
		return query{}, huma.Error422UnprocessableEntity(paramName(fe.Field) + ": " + fe.Err.Error())
	}
	if err != nil {
		return query{}, huma.Error422UnprocessableEntity(err.Error())
	}
	req := s.eng.SearchRequestWith(text, a.cfg.Retrieval)
	req.Filter = f
	for _, set := range a.req {
		set(&req)
	}
	return query{req: req, page: max(a.page, 1)}, nil
}
