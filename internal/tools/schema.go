package tools

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
)

// A tool's input schema is generated from the struct the tool decodes its
// input into (jsonschema.For): the json tags give the property names, a
// field without omitempty is required, the jsonschema tag is the
// description the model reads, and a schema tag adds what a Go type cannot
// say, as comma-separated keyword=value pairs:
//
//	minimum=1               the least number allowed
//	minItems=1              the fewest array items allowed
//	enum=incoming|outgoing  the only strings allowed
//	type=boolean|integer    the JSON types allowed (for a json.RawMessage)
//
// The same schema goes to the model and checks every call's input, with
// the library's validator, before the tool decodes it.

// inputSchema is a tool's generated input schema, in the JSON form sent to
// the model and resolved for validation.
type inputSchema struct {
	// JSON is the schema as the model sees it (Spec.Schema).
	JSON     json.RawMessage
	schema   *jsonschema.Schema
	resolved *jsonschema.Resolved
}

// schemaFor returns a function that generates T's input schema on its
// first call and then returns the same one. T's tags are fixed when the
// program is built, so a tag the generator cannot use is a programming
// error: it panics, and the tests, which build every tool's schema, catch
// it.
func schemaFor[T any]() func() *inputSchema {
	return sync.OnceValue(func() *inputSchema {
		s, err := generateSchema(reflect.TypeFor[T]())
		if err != nil {
			panic(fmt.Sprintf("tools: input schema of %v: %v", reflect.TypeFor[T](), err))
		}
		return s
	})
}

func generateSchema(t reflect.Type) (*inputSchema, error) {
	s, err := jsonschema.ForType(t, &jsonschema.ForOptions{
		// Raw JSON takes any value; the field's schema tag says which.
		TypeSchemas: map[reflect.Type]*jsonschema.Schema{reflect.TypeFor[json.RawMessage](): {}},
	})
	if err != nil {
		return nil, err
	}
	dropNullTypes(s)
	if err := applyTags(t, s); err != nil {
		return nil, err
	}
	return compiled(s)
}

// compiled marshals s for the model and resolves it for validation.
func compiled(s *jsonschema.Schema) (*inputSchema, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	r, err := s.Resolve(nil)
	if err != nil {
		return nil, err
	}
	return &inputSchema{JSON: raw, schema: s, resolved: r}, nil
}

// dropNullTypes turns the ["null", T] that jsonschema.For gives pointers
// and slices into plain T: the model is told the type it should send, and
// validation treats a null property as one left out (stripNulls).
func dropNullTypes(s *jsonschema.Schema) {
	if s == nil {
		return
	}
	if len(s.Types) == 2 && s.Types[0] == "null" {
		s.Type, s.Types = s.Types[1], nil
	}
	dropNullTypes(s.Items)
	for _, p := range s.Properties {
		dropNullTypes(p)
	}
}

// applyTags adds the schema tags of t's fields (and of the structs they
// hold) to s, the schema generated for t.
func applyTags(t reflect.Type, s *jsonschema.Schema) error {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if s.Items != nil {
			return applyTags(t.Elem(), s.Items)
		}
	case reflect.Struct:
		for _, f := range reflect.VisibleFields(t) {
			if f.Anonymous || !f.IsExported() {
				continue
			}
			name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
			if name == "" {
				name = f.Name
			}
			prop := s.Properties[name]
			tag, tagged := f.Tag.Lookup("schema")
			if prop == nil {
				if tagged {
					return fmt.Errorf("field %s has a schema tag but no property", f.Name)
				}
				continue
			}
			if tagged {
				if err := applyTag(prop, tag); err != nil {
					return fmt.Errorf("field %s: %w", f.Name, err)
				}
			}
			if err := applyTags(f.Type, prop); err != nil {
				return err
			}
		}
	}
	return nil
}

// applyTag applies one field's schema tag to its property.
func applyTag(s *jsonschema.Schema, tag string) error {
	for kv := range strings.SplitSeq(tag, ",") {
		k, v, ok := strings.Cut(kv, "=")
		if !ok || v == "" {
			return fmt.Errorf("schema tag %q: want keyword=value", kv)
		}
		switch k {
		case "minimum":
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				return fmt.Errorf("schema tag minimum=%s: %w", v, err)
			}
			s.Minimum = &f
		case "minItems":
			n, err := strconv.Atoi(v)
			if err != nil {
				return fmt.Errorf("schema tag minItems=%s: %w", v, err)
			}
			s.MinItems = &n
		case "enum":
			s.Enum = nil
			for e := range strings.SplitSeq(v, "|") {
				s.Enum = append(s.Enum, e)
			}
		case "type":
			s.Type, s.Types = "", strings.Split(v, "|")
			if len(s.Types) == 1 {
				s.Type, s.Types = s.Types[0], nil
			}
		default:
			return fmt.Errorf("schema tag %q: unknown keyword %s", kv, k)
		}
	}
	return nil
}

// decode checks a call's input against the schema and then unmarshals it
// into v; a refusal says what is wrong and where, for the model to fix.
func (s *inputSchema) decode(call Call, tool string, v any) error {
	if err := s.validate(call.Input); err != nil {
		return fmt.Errorf("%s: input: %w; fix the arguments and call again", tool, err)
	}
	return DecodeInput(call, tool, v)
}

// validate checks input against the schema. A missing or null input is
// the empty object, and a property whose value is null counts as left
// out, as the tools' decoding has always taken it.
func (s *inputSchema) validate(input json.RawMessage) error {
	in := bytes.TrimSpace(input)
	if len(in) == 0 || string(in) == "null" {
		in = []byte("{}")
	}
	var v any
	if err := json.Unmarshal(in, &v); err != nil {
		return fmt.Errorf("not JSON (%v): send one JSON object", err)
	}
	// A provider keeps arguments that are not JSON as a JSON string of
	// their text (agent/openai): say that, not that a string is no object.
	if text, ok := v.(string); ok {
		if err := json.Unmarshal([]byte(text), new(any)); err != nil {
			return fmt.Errorf("the arguments are not valid JSON (%v; they were %s): send one complete JSON object", err, strconv.Quote(truncate(text, 200)))
		}
	}
	if err := s.resolved.Validate(stripNulls(v)); err != nil {
		return s.explain(err)
	}
	return nil
}

// stripNulls removes the null-valued properties of every object in v.
func stripNulls(v any) any {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			if e == nil {
				delete(x, k)
			} else {
				x[k] = stripNulls(e)
			}
		}
	case []any:
		for i, e := range x {
			x[i] = stripNulls(e)
		}
	}
	return v
}

// intRat matches an integer as a big.Rat prints it ("-1/1"), and
// wholeFloat a whole number as %f prints it ("1.000000"): the library's
// messages print numbers so.
var (
	intRat     = regexp.MustCompile(`\b(-?\d+)/1\b`)
	wholeFloat = regexp.MustCompile(`\b(-?\d+)\.000000\b`)
)

// explain turns the validator's error, a chain of "validating
// /properties/x: " wrappers around the failed keyword, into the property's
// path and that keyword's message: `edits[].old_string: type: 1 has type
// "integer", want "string"`. An unknown property's message lists the
// known ones.
func (s *inputSchema) explain(err error) error {
	pointer := ""
	for inner := errors.Unwrap(err); inner != nil; inner = errors.Unwrap(err) {
		if p, ok := strings.CutPrefix(strings.TrimSuffix(err.Error(), ": "+inner.Error()), "validating "); ok {
			pointer = p
		}
		err = inner
	}
	msg := wholeFloat.ReplaceAllString(intRat.ReplaceAllString(err.Error(), "$1"), "$1")
	node, path := s.schema, ""
	segs := strings.Split(strings.TrimPrefix(pointer, "/"), "/")
	for i := 0; i < len(segs) && node != nil; i++ {
		switch segs[i] {
		case "items":
			node, path = node.Items, path+"[]"
		case "properties":
			if i++; i < len(segs) {
				node, path = node.Properties[segs[i]], strings.TrimPrefix(path+"."+segs[i], ".")
			}
		}
	}
	if strings.HasPrefix(msg, "unexpected additional properties") && node != nil {
		msg += "; the known properties are " + strings.Join(slices.Sorted(maps.Keys(node.Properties)), ", ")
	}
	if path != "" {
		msg = path + ": " + msg
	}
	return errors.New(msg)
}

// ValidateInput checks input against a tool's input schema (Spec.Schema)
// with the same validator and messages as the tools' own check. It guards
// inputs that did not come from the model, such as a hook's rewrite.
func ValidateInput(schema, input json.RawMessage) error {
	s, err := compileSchema(schema)
	if err != nil {
		return err
	}
	return s.validate(input)
}

// compileSchema reads a tool's input schema from its JSON form.
func compileSchema(raw json.RawMessage) (*inputSchema, error) {
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("the tool's schema is not a JSON schema: %w", err)
	}
	c, err := compiled(&s)
	if err != nil {
		return nil, fmt.Errorf("the tool's schema does not resolve: %w", err)
	}
	return c, nil
}
