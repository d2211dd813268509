package msgcheck

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/form"
)

// referenceExamples are the examples of discord-api-docs' components
// reference (testdata/reference_examples.json): message bodies and the
// components of modal answers, every one valid.
type referenceExamples struct {
	Messages []struct {
		V2         bool            `json:"v2"`
		Components json.RawMessage `json:"components"`
	} `json:"messages"`
	Modals []json.RawMessage `json:"modals"`
}

func loadExamples(t testing.TB) referenceExamples {
	t.Helper()
	b, err := os.ReadFile("testdata/reference_examples.json")
	if err != nil {
		t.Fatal(err)
	}
	var ex referenceExamples
	if err := json.Unmarshal(b, &ex); err != nil {
		t.Fatal(err)
	}
	if len(ex.Messages) == 0 || len(ex.Modals) == 0 {
		t.Fatal("no examples")
	}
	return ex
}

// TestReferenceExamples: what the docs show as a valid body is valid.
func TestReferenceExamples(t *testing.T) {
	ex := loadExamples(t)
	for i, m := range ex.Messages {
		errs := &apierr.Fields{}
		Components(decodeList(t, string(m.Components)), m.V2, errs)
		if !errs.Empty() {
			b, _ := json.Marshal(errs)
			t.Errorf("message example %d refused: %s\n%s", i, b, m.Components)
		}
	}
	for i, m := range ex.Modals {
		errs := &apierr.Fields{}
		ModalComponents(decodeList(t, string(m)), errs)
		if !errs.Empty() {
			b, _ := json.Marshal(errs)
			t.Errorf("modal example %d refused: %s\n%s", i, b, m)
		}
	}
}

// checkAny runs a validator over any JSON and checks that it neither
// panics nor gives different answers to the same input.
func checkAny(t *testing.T, b []byte, run func(list []any, errs *apierr.Fields)) {
	v, err := form.DecodeJSON(b)
	if err != nil {
		return
	}
	list, ok := v.([]any)
	if !ok {
		return
	}
	first, second := &apierr.Fields{}, &apierr.Fields{}
	run(list, first)
	run(list, second)
	a, _ := json.Marshal(first)
	c, _ := json.Marshal(second)
	if string(a) != string(c) {
		t.Fatalf("two answers to one body: %s and %s", a, c)
	}
}

func FuzzComponents(f *testing.F) {
	ex := loadExamples(f)
	for _, m := range ex.Messages {
		f.Add([]byte(m.Components), m.V2)
	}
	for _, c := range legacyCases {
		f.Add([]byte(c.list), false)
	}
	for _, c := range v2Cases {
		f.Add([]byte(c.list), true)
	}
	f.Fuzz(func(t *testing.T, b []byte, v2 bool) {
		checkAny(t, b, func(list []any, errs *apierr.Fields) { Components(list, v2, errs) })
	})
}

func FuzzModalComponents(f *testing.F) {
	ex := loadExamples(f)
	for _, m := range ex.Modals {
		f.Add([]byte(m))
	}
	for _, c := range modalCases {
		f.Add([]byte(c.list))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		checkAny(t, b, ModalComponents)
	})
}
