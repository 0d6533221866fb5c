package teamstore

import (
	"context"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// cond is one condition of a filter, or an Or of conditions (Operands);
// a filter is conditions joined by AND.
type cond struct {
	Path     string
	Op       string // Equal, GreaterThanEqual, Like, Or...
	Text     *string
	Int      *int
	Operands []cond // of an Or
}

func eqText(path, v string) cond { return cond{Path: path, Op: "Equal", Text: &v} }
func gteInt(path string, v int) cond {
	return cond{Path: path, Op: "GreaterThanEqual", Int: &v}
}
func ltInt(path string, v int) cond { return cond{Path: path, Op: "LessThan", Int: &v} }

// like matches a field-tokenized property against pattern, whose * and ?
// are Weaviate's wildcards (any run of characters, one character).
func like(path, pattern string) cond { return cond{Path: path, Op: "Like", Text: &pattern} }
func anyOf(cs ...cond) cond          { return cond{Op: "Or", Operands: cs} }

// literal is s inside a Like pattern. Weaviate's Like has no escape, so a
// * or ? of s becomes ?, which matches any one character, itself too: the
// filter may let through a little more than asked, never less.
func literal(s string) string { return strings.NewReplacer("*", "?").Replace(s) }

// rest is the filter as the REST API's JSON takes it.
func restWhere(cs []cond) map[string]any {
	var one func(c cond) map[string]any
	one = func(c cond) map[string]any {
		if c.Operands != nil {
			var ops []map[string]any
			for _, o := range c.Operands {
				ops = append(ops, one(o))
			}
			return map[string]any{"operator": c.Op, "operands": ops}
		}
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
	return one(cond{Op: "And", Operands: cs})
}

// gqlWhere is the filter as a GraphQL argument.
func gqlWhere(cs []cond) string {
	var one func(c cond) string
	one = func(c cond) string {
		if c.Operands != nil {
			parts := make([]string, len(c.Operands))
			for i, o := range c.Operands {
				parts[i] = one(o)
			}
			return "{operator: " + c.Op + ", operands: [" + strings.Join(parts, ", ") + "]}"
		}
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
	return one(cond{Op: "And", Operands: cs})
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
	data, err := s.graphqlSection(ctx, section, query)
	if err != nil {
		return err
	}
	raw := data[class]
	if len(raw) == 0 || string(raw) == "null" {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("the cluster's answer to a %s query is not what Cairn expects: %w", section, err)
	}
	return nil
}

// graphqlSection runs query and returns data.<section>, by class or
// alias.
func (s *Store) graphqlSection(ctx context.Context, section, query string) (map[string]json.RawMessage, error) {
	var resp struct {
		Data   map[string]map[string]json.RawMessage `json:"data"`
		Errors []struct {
			Message string `json:"message"`
		} `json:"errors"`
	}
	if err := s.do(ctx, "POST", "/v1/graphql", map[string]string{"query": query}, &resp); err != nil {
		return nil, err
	}
	if len(resp.Errors) > 0 {
		msgs := make([]string, len(resp.Errors))
		for i, e := range resp.Errors {
			msgs[i] = e.Message
		}
		return nil, fmt.Errorf("the cluster refused the query: %s", strings.Join(msgs, "; "))
	}
	return resp.Data[section], nil
}

// consistencyArg is the GraphQL argument that sets the read's
// consistency level, with its leading comma; "" when the cluster decides.
func (s *Store) consistencyArg() string {
	if s.consistency == "" {
		return ""
	}
	return ", consistencyLevel: " + s.consistency
}
