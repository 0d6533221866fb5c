package teamstore

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// cond is one condition of a filter; a filter is conditions joined by AND.
type cond struct {
	Path string
	Op   string // Equal, GreaterThanEqual, ...
	Text *string
	Int  *int
}

func eqText(path, v string) cond { return cond{Path: path, Op: "Equal", Text: &v} }
func gteInt(path string, v int) cond {
	return cond{Path: path, Op: "GreaterThanEqual", Int: &v}
}

// rest is the filter as the REST API's JSON takes it.
func restWhere(cs []cond) map[string]any {
	one := func(c cond) map[string]any {
		m := map[string]any{"path": []string{c.Path}, "operator": c.Op}
		if c.Text != nil {
			m["valueText"] = *c.Text
		} else if c.Int != nil {
			m["valueInt"] = *c.Int
		}
		return m
	}
	if len(cs) == 1 {
		return one(cs[0])
	}
	var ops []map[string]any
	for _, c := range cs {
		ops = append(ops, one(c))
	}
	return map[string]any{"operator": "And", "operands": ops}
}

// gqlWhere is the filter as a GraphQL argument.
func gqlWhere(cs []cond) string {
	one := func(c cond) string {
		v := ""
		if c.Text != nil {
			v = "valueText: " + gqlString(*c.Text)
		} else if c.Int != nil {
			v = "valueInt: " + strconv.Itoa(*c.Int)
		}
		return fmt.Sprintf("{path: [%s], operator: %s, %s}", gqlString(c.Path), c.Op, v)
	}
	if len(cs) == 1 {
		return one(cs[0])
	}
	parts := make([]string, len(cs))
	for i, c := range cs {
		parts[i] = one(c)
	}
	return "{operator: And, operands: [" + strings.Join(parts, ", ") + "]}"
}

// gqlString is s as a GraphQL string literal. JSON's escapes are a subset
// of GraphQL's, so a JSON-encoded string is one.
func gqlString(s string) string {
	b, _ := json.Marshal(s)
	return string(b)
}

// gqlStrings is a list of string literals.
func gqlStrings(ss []string) string {
	parts := make([]string, len(ss))
	for i, s := range ss {
		parts[i] = gqlString(s)
	}
	return "[" + strings.Join(parts, ", ") + "]"
}

// gqlVector is a vector literal; NaN and infinities have none and are
// refused.
func gqlVector(v []float32) (string, error) {
	var b strings.Builder
	b.WriteByte('[')
	for i, x := range v {
		if math.IsNaN(float64(x)) || math.IsInf(float64(x), 0) {
			return "", fmt.Errorf("the query vector holds %v at %d", x, i)
		}
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.FormatFloat(float64(x), 'g', -1, 32))
	}
	b.WriteByte(']')
	return b.String(), nil
}

// graphql runs query and decodes data.<section>.<class> into out.
func (s *Store) graphql(ctx context.Context, section, class, query string, out any) error {
	var resp struct {
		Data   map[string]map[string]json.RawMessage `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := s.do(ctx, "POST", "/v1/graphql", map[string]string{"query": query}, &resp); err != nil {
		return err
	}
	if len(resp.Errors) > 0 {
		msgs := make([]string, len(resp.Errors))
		for i, e := range resp.Errors {
			msgs[i] = e.Message
		}
		return fmt.Errorf("the cluster refused the query: %s", strings.Join(msgs, "; "))
	}
	raw := resp.Data[section][class]
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("the cluster's answer to a %s query is not what Cairn expects: %w", section, err)
	}
	return nil
}

// consistencyArg is the GraphQL argument that sets the read's
// consistency level, with its leading comma; "" when the cluster decides.
func (s *Store) consistencyArg() string {
	if s.consistency == "" {
		return ""
	}
	return ", consistencyLevel: " + s.consistency
}
