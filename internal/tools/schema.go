package tools

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"sort"
)

// schemaNode is the subset of JSON Schema the tools' input schemas use.
type schemaNode struct {
	Type                 json.RawMessage        `json:"type"`
	Properties           map[string]*schemaNode `json:"properties"`
	Required             []string               `json:"required"`
	AdditionalProperties *bool                  `json:"additionalProperties"`
	Items                *schemaNode            `json:"items"`
}

// ValidateInput checks input against a tool's input schema: required
// properties, no unknown ones where the schema forbids them, and the JSON
// type of every value. It guards inputs that did not come from the model
// (a hook's rewrite), which the tool's own decoding would take too kindly.
func ValidateInput(schema, input json.RawMessage) error {
	var root schemaNode
	if err := json.Unmarshal(schema, &root); err != nil {
		return fmt.Errorf("the tool's schema is not valid JSON: %w", err)
	}
	var v any
	if err := json.Unmarshal(input, &v); err != nil {
		return fmt.Errorf("input is not JSON: %w", err)
	}
	return root.check("input", v)
}

func (n *schemaNode) types() []string {
	if len(n.Type) == 0 {
		return nil
	}
	var one string
	if json.Unmarshal(n.Type, &one) == nil {
		return []string{one}
	}
	var many []string
	_ = json.Unmarshal(n.Type, &many)
	return many
}

func (n *schemaNode) check(path string, v any) error {
	if ts := n.types(); len(ts) > 0 && !slices.ContainsFunc(ts, func(t string) bool { return hasType(v, t) }) {
		return fmt.Errorf("%s must be of type %v", path, ts)
	}
	switch val := v.(type) {
	case map[string]any:
		for _, r := range n.Required {
			if _, ok := val[r]; !ok {
				return fmt.Errorf("%s lacks the required property %q", path, r)
			}
		}
		keys := make([]string, 0, len(val))
		for k := range val {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p, ok := n.Properties[k]
			if !ok {
				if n.AdditionalProperties != nil && !*n.AdditionalProperties {
					return fmt.Errorf("%s has an unknown property %q", path, k)
				}
				continue
			}
			if err := p.check(path+"."+k, val[k]); err != nil {
				return err
			}
		}
	case []any:
		if n.Items != nil {
			for i, item := range val {
				if err := n.Items.check(fmt.Sprintf("%s[%d]", path, i), item); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

func hasType(v any, t string) bool {
	switch t {
	case "object":
		_, ok := v.(map[string]any)
		return ok
	case "array":
		_, ok := v.([]any)
		return ok
	case "string":
		_, ok := v.(string)
		return ok
	case "boolean":
		_, ok := v.(bool)
		return ok
	case "number":
		_, ok := v.(float64)
		return ok
	case "integer":
		f, ok := v.(float64)
		return ok && f == math.Trunc(f)
	case "null":
		return v == nil
	}
	return false
}
