package command_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/form"
)

// maximalCommand is a CHAT_INPUT command at the limits: 25 options with
// 25 choices each, every name and description localized into all 34
// locales, just under the 8000-character total.
func maximalCommand() []byte {
	locs := func(base string) map[string]string {
		m := map[string]string{}
		for i, l := range command.Locales() {
			m[l] = fmt.Sprintf("%s%02d", base, i)
		}
		return m
	}
	opts := make([]map[string]any, 25)
	for i := range opts {
		choices := make([]map[string]any, 25)
		for j := range choices {
			choices[j] = map[string]any{"name": fmt.Sprintf("c%02d", j), "value": fmt.Sprintf("v%02d", j),
				"name_localizations": locs("k")}
		}
		opts[i] = map[string]any{
			"type": 3, "name": fmt.Sprintf("option-%02d", i), "description": strings.Repeat("d", 100),
			"name_localizations": locs(fmt.Sprintf("o%02d-", i)), "description_localizations": locs("beschreibung"),
			"required": i < 5, "choices": choices,
		}
	}
	b, _ := json.Marshal(map[string]any{
		"name": strings.Repeat("n", 32), "description": strings.Repeat("d", 100),
		"name_localizations": locs("name"), "description_localizations": locs("desc"),
		"options": opts, "default_member_permissions": "8", "nsfw": false,
		"integration_types": []int{0}, "contexts": []int{0, 1},
	})
	return b
}

func BenchmarkParseMaximal(b *testing.B) {
	body := maximalCommand()
	target := command.Target{App: command.App{ID: 1, IntegrationTypes: []int{0, 1}}, Scope: command.Scope{ApplicationID: 1}}
	v, err := form.DecodeJSON(body)
	if err != nil {
		b.Fatal(err)
	}
	if _, errs := command.Parse(v, target); !errs.Empty() {
		out, _ := json.Marshal(errs)
		b.Fatalf("maximal command invalid: %s", out)
	}
	b.SetBytes(int64(len(body)))
	b.ReportAllocs()
	for b.Loop() {
		v, _ := form.DecodeJSON(body)
		if _, errs := command.Parse(v, target); !errs.Empty() {
			b.Fatal("invalid")
		}
	}
}
