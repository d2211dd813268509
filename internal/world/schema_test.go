package world

import (
	"encoding/json"
	"fmt"
	"math/big"
	"os"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/slashd/slashd/internal/form"
)

// docs/world.schema.json is kept true by these tests: every field the
// decoder reads is in it (and nothing else), the permission names are
// the decoder's, and the specs the decoder accepts validate against it.
// The validator below implements the subset of JSON Schema 2020-12 the
// file uses.

func loadSchema(t *testing.T) map[string]any {
	t.Helper()
	raw, err := os.ReadFile("../../docs/world.schema.json")
	if err != nil {
		t.Fatal(err)
	}
	v, err := form.DecodeJSON(raw)
	if err != nil {
		t.Fatal(err)
	}
	return v.(map[string]any)
}

type validator struct {
	root map[string]any
}

func (v validator) check(schema any, value any, path string) []string {
	s, ok := schema.(map[string]any)
	if !ok {
		if b, isBool := schema.(bool); isBool && !b {
			return []string{path + ": not allowed"}
		}
		return nil
	}
	var errs []string
	fail := func(format string, args ...any) { errs = append(errs, path+": "+fmt.Sprintf(format, args...)) }
	for k, rule := range s {
		switch k {
		case "$ref":
			name := strings.TrimPrefix(rule.(string), "#/$defs/")
			errs = append(errs, v.check(v.root["$defs"].(map[string]any)[name], value, path)...)
		case "type":
			types := []any{rule}
			if l, isList := rule.([]any); isList {
				types = l
			}
			if !slices.ContainsFunc(types, func(t any) bool { return hasType(value, t.(string)) }) {
				fail("type %v, want %v", jsonType(value), rule)
			}
		case "enum":
			if !slices.ContainsFunc(rule.([]any), func(e any) bool { return equal(e, value) }) {
				fail("%v not in the enum", value)
			}
		case "const":
			if !equal(rule, value) {
				fail("%v is not %v", value, rule)
			}
		case "pattern":
			if str, isStr := value.(string); isStr && !regexp.MustCompile(rule.(string)).MatchString(str) {
				fail("%q does not match %s", str, rule)
			}
		case "minLength", "maxLength":
			if str, isStr := value.(string); isStr {
				n, lim := utf8.RuneCountInString(str), toInt(rule)
				if (k == "minLength" && n < lim) || (k == "maxLength" && n > lim) {
					fail("length %d, %s %d", n, k, lim)
				}
			}
		case "minimum", "maximum":
			if num, isNum := value.(json.Number); isNum {
				f, _ := new(big.Float).SetString(string(num))
				lim, _ := new(big.Float).SetString(string(rule.(json.Number)))
				if c := f.Cmp(lim); (k == "minimum" && c < 0) || (k == "maximum" && c > 0) {
					fail("%s beyond %s %s", num, k, lim)
				}
			}
		case "minItems", "maxItems":
			if l, isList := value.([]any); isList {
				if n, lim := len(l), toInt(rule); (k == "minItems" && n < lim) || (k == "maxItems" && n > lim) {
					fail("%d items, %s %d", n, k, lim)
				}
			}
		case "items":
			if l, isList := value.([]any); isList {
				for i, item := range l {
					errs = append(errs, v.check(rule, item, fmt.Sprintf("%s.%d", path, i))...)
				}
			}
		case "required":
			if m, isObj := value.(map[string]any); isObj {
				for _, r := range rule.([]any) {
					if _, has := m[r.(string)]; !has {
						fail("%s is required", r)
					}
				}
			}
		case "properties", "additionalProperties", "propertyNames":
			m, isObj := value.(map[string]any)
			if !isObj {
				continue
			}
			props, _ := s["properties"].(map[string]any)
			for key, item := range m {
				switch k {
				case "properties":
					if p, has := props[key]; has {
						errs = append(errs, v.check(p, item, path+"."+key)...)
					}
				case "additionalProperties":
					if _, has := props[key]; !has {
						errs = append(errs, v.check(rule, item, path+"."+key)...)
					}
				case "propertyNames":
					errs = append(errs, v.check(rule, key, path+"."+key+" (name)")...)
				}
			}
		case "anyOf":
			okAny := false
			for _, alt := range rule.([]any) {
				okAny = okAny || len(v.check(alt, value, path)) == 0
			}
			if !okAny {
				fail("%v matches no alternative", value)
			}
		case "oneOf":
			n := 0
			for _, alt := range rule.([]any) {
				if len(v.check(alt, value, path)) == 0 {
					n++
				}
			}
			if n != 1 {
				fail("%v matches %d alternatives, not one", value, n)
			}
		case "not":
			if len(v.check(rule, value, path)) == 0 {
				fail("%v matches what is excluded", value)
			}
		case "$schema", "$id", "title", "description", "$defs":
		default:
			panic("the schema uses " + k + ", which this validator does not implement")
		}
	}
	return errs
}

func toInt(v any) int {
	n, _ := form.ToInt(v)
	return int(n)
}

func jsonType(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case string:
		return "string"
	case json.Number:
		if _, ok := form.ToInt(x); ok {
			return "integer"
		}
		return "number"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func hasType(v any, t string) bool {
	got := jsonType(v)
	return got == t || (t == "number" && got == "integer")
}

func equal(a, b any) bool {
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	return string(ja) == string(jb)
}

func TestSchemaAcceptsWhatTheDecoderAccepts(t *testing.T) {
	v := validator{root: loadSchema(t)}
	specs := map[string]string{"the issue's example": issueExample, "the wider spec": wideSpec, "an export's spec": exportedSpec}
	for name, spec := range specs {
		body, err := form.DecodeJSON([]byte(spec))
		if err != nil {
			t.Fatal(err)
		}
		if _, err := Decode(body); err != nil {
			t.Fatalf("%s: the decoder refuses it: %v", name, err)
		}
		if errs := v.check(v.root, body, "$"); len(errs) > 0 {
			t.Errorf("%s does not validate:\n%s", name, strings.Join(errs, "\n"))
		}
	}
	yamlBody, err := FromYAML([]byte(issueExampleYAML))
	if err != nil {
		t.Fatal(err)
	}
	if errs := v.check(v.root, yamlBody, "$"); len(errs) > 0 {
		t.Errorf("the YAML example does not validate:\n%s", strings.Join(errs, "\n"))
	}
	// And refuses what the decoder refuses for its shape.
	for _, bad := range []struct{ old, new string }{
		{`"bob": {"locale": "fr"}`, `"bob": {"locale": "fr", "age": 3}`},
		{`"allow": ["VIEW_CHANNEL"]`, `"allow": ["VIEW_CHANNELS"]`},
		{`"ban-tests"`, `"12345"`},
		{`"general": {}`, `"general": {"type": 1}`},
		{`"owner": "alice",`, ``},
		{`"general": {}`, `"general": {"messages": [{"content": "hi"}]}`},
		{`"general": {}`, `"general": {"messages": [{"author": "alice", "content": "hi", "pinned": true}]}`},
	} {
		body, _ := form.DecodeJSON([]byte(withPatch(t, bad.old, bad.new)))
		if _, err := Decode(body); err == nil {
			t.Fatalf("the decoder accepts %s", bad.new)
		}
		if errs := v.check(v.root, body, "$"); len(errs) == 0 {
			t.Errorf("the schema accepts %s, which the decoder refuses", bad.new)
		}
	}
}

func TestSchemaFieldsAreTheDecoders(t *testing.T) {
	defs := loadSchema(t)["$defs"].(map[string]any)
	for kind, fields := range fieldsOf {
		def, ok := defs[kind].(map[string]any)
		if !ok {
			t.Errorf("no $defs/%s in the schema", kind)
			continue
		}
		var props []string
		for k := range def["properties"].(map[string]any) {
			props = append(props, k)
		}
		want := slices.Clone(fields)
		sort.Strings(props)
		sort.Strings(want)
		if !slices.Equal(props, want) {
			t.Errorf("$defs/%s has %v, the decoder reads %v", kind, props, want)
		}
		if def["additionalProperties"] != false {
			t.Errorf("$defs/%s allows other fields; the decoder refuses them", kind)
		}
	}
	var names []string
	for _, n := range defs["permission_name"].(map[string]any)["enum"].([]any) {
		names = append(names, n.(string))
	}
	want := PermissionNames()
	sort.Strings(names)
	sort.Strings(want)
	if !slices.Equal(names, want) {
		t.Errorf("the schema's permission names %v, the decoder's %v", names, want)
	}
}
