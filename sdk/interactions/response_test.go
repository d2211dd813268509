package interactions

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
)

func TestResponseJSON(t *testing.T) {
	cases := []struct {
		name string
		r    Response
		want string
	}{
		{"pong", Pong(), `{"type":1}`},
		{"message", Message("hi"), `{"type":4,"data":{"content":"hi"}}`},
		{"ephemeral message", Message("pong", Ephemeral()), `{"type":4,"data":{"content":"pong","flags":64}}`},
		{"no mentions", Message("@everyone", NoMentions()), `{"type":4,"data":{"content":"@everyone","allowed_mentions":{"parse":[]}}}`},
		{"flags", Message("x", WithFlags(FlagSuppressEmbeds), Ephemeral(), nil), `{"type":4,"data":{"content":"x","flags":68}}`},
		{"defer", Defer(false), `{"type":5}`},
		{"defer ephemeral", Defer(true), `{"type":5,"data":{"flags":64}}`},
		{"defer update", DeferUpdate(), `{"type":6}`},
		{"update message", UpdateMessage("edited"), `{"type":7,"data":{"content":"edited"}}`},
		{"autocomplete", Autocomplete(Choice{"Apple", "apple"}, Choice{"Two", 2}, Choice{"Half", 0.5}),
			`{"type":8,"data":{"choices":[{"name":"Apple","value":"apple"},{"name":"Two","value":2},{"name":"Half","value":0.5}]}}`},
		{"autocomplete empty", Autocomplete(), `{"type":8,"data":{"choices":[]}}`},
		{"modal", Modal("feedback", "Feedback", TextInputRow("text", "Your thoughts", TextInputParagraph)),
			`{"type":9,"data":{"custom_id":"feedback","title":"Feedback","components":[{"type":1,"components":[{"type":4,"custom_id":"text","style":2,"label":"Your thoughts"}]}]}}`},
		{"launch activity", LaunchActivity(), `{"type":12}`},
		{"message with buttons", Message("Count: 0", WithComponents(Row(Button("counter:0", "+1", ButtonPrimary),
			LinkButton("Docs", "https://example.com/docs")))),
			`{"type":4,"data":{"content":"Count: 0","components":[{"type":1,"components":[` +
				`{"type":2,"style":1,"label":"+1","custom_id":"counter:0"},{"type":2,"style":5,"label":"Docs","url":"https://example.com/docs"}]}]}}`},
		{"update message with a button", UpdateMessage("Count: 1", WithComponents(Row(Button("counter:1", "+1", ButtonSuccess)))),
			`{"type":7,"data":{"content":"Count: 1","components":[{"type":1,"components":[{"type":2,"style":3,"label":"+1","custom_id":"counter:1"}]}]}}`},
		{"update message removing the components", UpdateMessage("Done", WithComponents()),
			`{"type":7,"data":{"content":"Done","components":[]}}`},
		{"disabled button and a raw select menu", Message("x", WithComponents(
			Row(ButtonComponent{Type: 2, Style: ButtonDanger, Label: "No", CustomID: "no", Disabled: true}),
			Row(json.RawMessage(`{"type":3,"custom_id":"s","options":[{"label":"A","value":"a"}]}`)))),
			`{"type":4,"data":{"content":"x","components":[{"type":1,"components":[{"type":2,"style":4,"label":"No","custom_id":"no","disabled":true}]},` +
				`{"type":1,"components":[{"type":3,"custom_id":"s","options":[{"label":"A","value":"a"}]}]}]}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			b, err := json.Marshal(c.r)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != c.want {
				t.Fatalf("got  %s\nwant %s", b, c.want)
			}
		})
	}
}

func manyChoices(n int) []Choice {
	c := make([]Choice, n)
	for i := range c {
		c[i] = Choice{Name: fmt.Sprint("c", i), Value: i}
	}
	return c
}

func TestAutocompleteClips(t *testing.T) {
	r := Autocomplete(manyChoices(30)...)
	if n := len(r.Data.(*AutocompleteData).Choices); n != MaxAutocompleteChoices {
		t.Fatalf("choices = %d", n)
	}
}

func TestAutocompleteChoices(t *testing.T) {
	if r, err := AutocompleteChoices(manyChoices(25)...); err != nil || len(r.Data.(*AutocompleteData).Choices) != 25 {
		t.Fatalf("25 choices: %v", err)
	}
	if _, err := AutocompleteChoices(manyChoices(26)...); !errors.Is(err, ErrTooManyChoices) {
		t.Fatalf("26 choices: %v", err)
	}
	bad := []Choice{
		{Name: "", Value: "x"},
		{Name: strings.Repeat("n", 101), Value: "x"},
		{Name: "n", Value: strings.Repeat("v", 101)},
		{Name: "n", Value: nil},
		{Name: "n", Value: true},
	}
	for _, c := range bad {
		if _, err := AutocompleteChoices(c); !errors.Is(err, ErrInvalidChoice) {
			t.Errorf("%+v: %v", c, err)
		}
	}
	if r, err := AutocompleteChoices(); err != nil || r.Type != CallbackAutocompleteResult {
		t.Fatalf("no choices: %+v %v", r, err)
	}
}
