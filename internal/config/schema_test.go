package config_test

import (
	"encoding/json"
	"maps"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/agentls/agentls/internal/config"
)

// jsonKeys are the keys encoding/json reads into a struct type.
func jsonKeys(t reflect.Type) []string {
	var out []string
	for f := range t.Fields() {
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if name != "-" && f.IsExported() {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// TestProviderSchemaKeys: docs/config.schema.json lists exactly the keys
// a provider entry, a model entry and a price have.
func TestProviderSchemaKeys(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("..", "..", "docs", "config.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	type node struct {
		Properties           map[string]json.RawMessage `json:"properties"`
		AdditionalProperties json.RawMessage            `json:"additionalProperties"`
		Required             []string                   `json:"required"`
	}
	var schema struct {
		Defs       map[string]node `json:"$defs"`
		Properties struct {
			Providers struct {
				AdditionalProperties node `json:"additionalProperties"`
			} `json:"providers"`
		} `json:"properties"`
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	provider := schema.Properties.Providers.AdditionalProperties
	var models struct {
		AdditionalProperties node `json:"additionalProperties"`
	}
	if err := json.Unmarshal(provider.Properties["models"], &models); err != nil {
		t.Fatal(err)
	}
	price := schema.Defs["price"]
	for _, c := range []struct {
		where  string
		schema map[string]json.RawMessage
		typ    reflect.Type
	}{
		{"providers.<name>", provider.Properties, reflect.TypeFor[config.Provider]()},
		{"providers.<name>.models.<model>", models.AdditionalProperties.Properties, reflect.TypeFor[config.ModelLimits]()},
		{"$defs.price", price.Properties, reflect.TypeFor[config.Price]()},
	} {
		if got, want := slices.Sorted(maps.Keys(c.schema)), jsonKeys(c.typ); !slices.Equal(got, want) {
			t.Errorf("docs/config.schema.json %s has %v, %s reads %v", c.where, got, c.typ.Name(), want)
		}
	}
	// The schema requires what Validate requires.
	if !slices.Equal(price.Required, []string{"input", "output"}) {
		t.Errorf("$defs.price requires %v, Validate requires input and output", price.Required)
	}
}
