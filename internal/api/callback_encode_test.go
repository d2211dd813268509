package api

import (
	"bytes"
	"encoding/json"
	"testing"

	"github.com/slashd/slashd/internal/jsonenc"
)

// A callback result spliced is byte for byte what encoding it whole
// through jsonenc gives, whatever its message holds.
func FuzzCallbackResultEncode(f *testing.F) {
	for _, s := range []string{"hello", "<b> & </b>", "\u2028 \\u003c \x01 \"quoted\"", "", "é 😀"} {
		f.Add(s, uint8(4), true)
	}
	f.Fuzz(func(t *testing.T, content string, typ uint8, loading bool) {
		msg, err := jsonenc.Marshal(map[string]any{"id": "1", "content": content, "embeds": []any{map[string]any{"title": content}}})
		if err != nil {
			t.Skip()
		}
		choices, _ := jsonenc.Marshal([]map[string]string{{"name": content, "value": content}})
		ephemeral := !loading
		for _, r := range []callbackResult{
			{Interaction: callbackInteraction{ID: 12, Type: int(typ)}},
			{Interaction: callbackInteraction{ID: 12, Type: 2, ResponseMessageID: 13, ResponseMessageLoading: &loading,
				ResponseMessageEphemeral: &ephemeral}, Resource: &callbackResource{Type: int(typ), Message: msg}},
			{Interaction: callbackInteraction{ID: 12, Type: 4}, Resource: &callbackResource{Type: 8, Choices: choices}},
			{Interaction: callbackInteraction{ID: 12, Type: 2, ResponseMessageID: 13}, // this request's own message
				Resource: &callbackResource{Type: 4, Message: msg, encoded: true}},
			{Interaction: callbackInteraction{ID: 12, Type: 2, ActivityInstanceID: content},
				Resource: &callbackResource{Type: 12, ActivityInstance: json.RawMessage(`{"id":"i-1"}`)}},
			{Interaction: callbackInteraction{ID: 12, Type: 2}, Resource: &callbackResource{Type: 9, Modal: msg}},
			{Interaction: callbackInteraction{ID: 12, Type: 2}, Resource: &callbackResource{Type: 5}},
		} {
			want, err := jsonenc.Marshal(r)
			if err != nil {
				t.Fatal(err)
			}
			got, err := r.encode()
			if err != nil || !bytes.Equal(got, want) {
				t.Fatalf("encode gave %s (%v), want %s", got, err, want)
			}
		}
	})
}

// An answered message's callback result is encoded into one buffer:
// its size is reckoned from the message, with room for what surrounds
// it, whatever the ids' lengths.
func TestCallbackResultEncodeOneBuffer(t *testing.T) {
	msg := json.RawMessage(`{"content":"` + string(bytes.Repeat([]byte("x"), 1400)) + `"}`)
	loading, ephemeral := false, true
	r := callbackResult{Interaction: callbackInteraction{ID: 1<<63 - 1, Type: 2, ResponseMessageID: 1<<63 - 1,
		ResponseMessageLoading: &loading, ResponseMessageEphemeral: &ephemeral},
		Resource: &callbackResource{Type: 4, Message: msg, encoded: true}}
	if n := testing.AllocsPerRun(100, func() {
		if _, err := r.encode(); err != nil {
			t.Fatal(err)
		}
	}); n != 1 {
		t.Fatalf("encode allocated %v times, want 1", n)
	}
}
