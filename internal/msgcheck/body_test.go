package msgcheck

import (
	"encoding/json"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/form"
)

// bodyCase is a message body and every error Body must find in it, each
// written "path code message" (path dot-separated, "." for the root).
type bodyCase struct {
	name string
	body string
	want []string
}

// runBodyCases checks each case's body with Body (no components) and
// compares the whole error tree with the case's list.
func runBodyCases(t *testing.T, cases []bodyCase) {
	t.Helper()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			errs := &apierr.Fields{}
			Body(decodeBody(t, c.body), nil, errs)
			got := flattenErrors(t, errs)
			want := slices.Clone(c.want)
			sort.Strings(want)
			if !slices.Equal(got, want) {
				t.Fatalf("body %s\n got %q\nwant %q", c.body, got, want)
			}
		})
	}
}

// decodeBody decodes a JSON object as the API does (numbers as json.Number).
func decodeBody(t testing.TB, s string) map[string]any {
	t.Helper()
	v, err := form.DecodeJSON([]byte(s))
	if err != nil {
		t.Fatalf("bad JSON %s: %v", s, err)
	}
	m, ok := v.(map[string]any)
	if !ok {
		t.Fatalf("not an object: %s", s)
	}
	return m
}

// flattenErrors lists an error tree's leaves as "path code message",
// sorted, through its wire form.
func flattenErrors(t *testing.T, errs *apierr.Fields) []string {
	t.Helper()
	if errs.Empty() {
		return nil
	}
	b, err := json.Marshal(errs)
	if err != nil {
		t.Fatal(err)
	}
	var tree map[string]any
	if err := json.Unmarshal(b, &tree); err != nil {
		t.Fatal(err)
	}
	var out []string
	var walk func(path []string, node map[string]any)
	walk = func(path []string, node map[string]any) {
		for key, v := range node {
			if key != "_errors" {
				walk(append(slices.Clone(path), key), v.(map[string]any))
				continue
			}
			p := strings.Join(path, ".")
			if p == "" {
				p = "."
			}
			for _, leaf := range v.([]any) {
				l := leaf.(map[string]any)
				out = append(out, p+" "+l["code"].(string)+" "+l["message"].(string))
			}
		}
	}
	walk(nil, tree)
	sort.Strings(out)
	return out
}

// text is s repeated to n characters.
func chars(n int) string { return strings.Repeat("a", n) }

// embedBody is a message body with the given embeds (JSON objects).
func embedBody(embeds ...string) string {
	return `{"embeds":[` + strings.Join(embeds, ",") + `]}`
}
