package slashdtest

import (
	"encoding/json"
	"testing"
)

// FuzzDecodeAct: whatever a server answers to an act, decoding it gives
// an answer or an error, never a panic, and a message's fields are the
// answer's.
func FuzzDecodeAct(f *testing.F) {
	for _, seed := range []string{
		`{"message": {"id": "1", "content": "hi", "flags": 64, "embeds": [{}], "attachments": [{}]}, "interaction": {"id": "2", "type": 2, "outcome": "answered"}}`,
		`{"modal": {"custom_id": "fb", "title": "Feedback", "components": []}, "interaction": {"id": "3", "outcome": "answered"}}`,
		`{"choices": [{"name": "a", "value": "a"}, {"name": "n", "value": 4}]}`,
		`{"interaction": {"type": 2, "outcome": "failed", "error": {"message": "The application did not respond", "code": 0}}}`,
		`{"message": null}`, `[]`, `{`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		r, err := decodeAct(json.RawMessage(raw), &Actor{})
		if err != nil {
			return
		}
		if r.Message != nil && (r.Content != r.Message.Content || r.Ephemeral != r.Message.Ephemeral) {
			t.Errorf("the answer's fields are not its message's: %s", raw)
		}
		if r.Modal != nil && r.Modal.interactionID != r.InteractionID {
			t.Errorf("the modal does not know its interaction: %s", raw)
		}
	})
}
