package interactions_test

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"

	"github.com/slashd/slashd/sdk/interactions"
)

func ExampleHandler() {
	pub, priv, _ := ed25519.GenerateKey(nil)
	h := interactions.Handler(hex.EncodeToString(pub), func(ctx context.Context, i *interactions.Interaction) (interactions.Response, error) {
		opt, _ := i.Data.Option("text")
		text, _ := opt.String()
		return interactions.Message(text, interactions.NoMentions()), nil
	})

	// What slashd sends when a user runs /echo text:hi.
	body := `{"id":"1","application_id":"2","type":2,"token":"t","version":1,` +
		`"data":{"id":"3","name":"echo","type":1,"options":[{"name":"text","type":3,"value":"hi"}]}}`
	r := httptest.NewRequest(http.MethodPost, "/", strings.NewReader(body))
	r.Header.Set(interactions.HeaderTimestamp, "1700000000")
	r.Header.Set(interactions.HeaderSignature, interactions.Sign(priv, "1700000000", []byte(body)))
	w := httptest.NewRecorder()
	h.ServeHTTP(w, r)
	fmt.Println(w.Code, w.Body)
	// Output: 200 {"type":4,"data":{"content":"hi","allowed_mentions":{"parse":[]}}}
}

// A counter: the command answers with a button whose custom_id carries
// the count; each press answers UPDATE_MESSAGE with the next count.
func ExampleButton() {
	counter := func(n int) interactions.MessageOption {
		return interactions.WithComponents(interactions.Row(
			interactions.Button(fmt.Sprintf("counter:%d", n), "+1", interactions.ButtonPrimary)))
	}
	answer := func(i *interactions.Interaction) interactions.Response {
		if i.Type == interactions.InteractionMessageComponent {
			var n int
			fmt.Sscanf(i.Data.CustomID, "counter:%d", &n)
			return interactions.UpdateMessage(fmt.Sprintf("Count: %d", n+1), counter(n+1))
		}
		return interactions.Message("Count: 0", counter(0))
	}

	// What slashd sends when a user presses the button of "Count: 0".
	press, _ := interactions.Decode([]byte(`{"id":"1","application_id":"2","type":3,"token":"t","version":1,` +
		`"message":{"id":"5","channel_id":"4","content":"Count: 0"},"data":{"custom_id":"counter:0","component_type":2}}`))
	b, _ := json.Marshal(answer(press))
	fmt.Println(press.Message.Content, "→", string(b))
	// Output: Count: 0 → {"type":7,"data":{"content":"Count: 1","components":[{"type":1,"components":[{"type":2,"style":1,"label":"+1","custom_id":"counter:1"}]}]}}
}

// Reading a modal's text input, in either shape the service sends.
func ExampleCommandData_ModalValue() {
	submit, _ := interactions.Decode([]byte(`{"id":"1","application_id":"2","type":5,"token":"t","version":1,` +
		`"data":{"custom_id":"feedback","components":[{"type":18,"component":{"type":4,"custom_id":"text","value":"Lovely"}}]}}`))
	text, ok := submit.Data.ModalValue("text")
	fmt.Println(submit.Data.CustomID, text, ok)
	// Output: feedback Lovely true
}
