package interactions_test

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
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
