package interactions

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
)

// A button press, shaped as the service delivers it: data names the
// button, message is the message it is on.
const buttonBody = `{
  "id": "1200000000000000001", "application_id": "1200000000000000002", "type": 3,
  "token": "dG9rZW4", "version": 1, "guild_id": "1200000000000000003", "channel_id": "1200000000000000004",
  "member": {"user": {"id": "1200000000000000005", "username": "bob"}, "roles": [], "joined_at": "2025-01-02T03:04:05+00:00", "permissions": "0"},
  "locale": "en-US", "app_permissions": "3072", "context": 0,
  "message": {
    "id": "1200000000000000006", "type": 20, "channel_id": "1200000000000000004", "application_id": "1200000000000000002",
    "webhook_id": "1200000000000000002", "author": {"id": "1200000000000000002", "username": "bot", "bot": true},
    "content": "Count: 0", "flags": 0, "embeds": [], "timestamp": "2025-03-04T05:06:07+00:00", "edited_timestamp": null,
    "components": [{"type": 1, "id": 1, "components": [{"type": 2, "id": 2, "style": 1, "label": "+1", "custom_id": "counter:0"}]}]
  },
  "data": {"custom_id": "counter:0", "component_type": 2}
}`

// A string select's choice.
const selectBody = `{"id": "1", "application_id": "2", "type": 3, "token": "t", "version": 1,
  "message": {"id": "6", "channel_id": "4", "author": {"id": "2", "username": "bot"}, "content": "Pick", "timestamp": "2025-03-04T05:06:07+00:00"},
  "data": {"custom_id": "fruit", "component_type": 3, "values": ["mango", "kiwi"]}}`

// A user select's choice: the values' users are resolved.
const userSelectBody = `{"id": "1", "application_id": "2", "type": 3, "token": "t", "version": 1,
  "data": {"custom_id": "who", "component_type": 5, "values": ["8"],
    "resolved": {"users": {"8": {"id": "8", "username": "carol"}}}}}`

func TestDecodeComponent(t *testing.T) {
	cases := []struct {
		name          string
		body          string
		customID      string
		componentType ComponentType
		values        []string
		message       string // the message's content; "" for none
	}{
		{"button", buttonBody, "counter:0", ComponentButton, nil, "Count: 0"},
		{"string select", selectBody, "fruit", ComponentStringSelect, []string{"mango", "kiwi"}, "Pick"},
		{"user select", userSelectBody, "who", ComponentUserSelect, []string{"8"}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			i := mustDecode(t, c.body)
			if i.Type != InteractionMessageComponent || i.Data == nil {
				t.Fatalf("type %d, data %+v", i.Type, i.Data)
			}
			d := i.Data
			if d.CustomID != c.customID || d.ComponentType != c.componentType || !reflect.DeepEqual(d.SelectValues, c.values) {
				t.Fatalf("data = %+v", d)
			}
			if d.Name != "" || d.Options != nil {
				t.Fatalf("command fields set: %+v", d)
			}
			switch {
			case c.message == "" && i.Message != nil:
				t.Fatalf("message = %+v", i.Message)
			case c.message != "" && (i.Message == nil || i.Message.Content != c.message || len(i.Message.Raw) == 0):
				t.Fatalf("message = %+v", i.Message)
			}
		})
	}

	// The button's message: its components, as raw JSON.
	m := mustDecode(t, buttonBody).Message
	if m.ID != "1200000000000000006" || m.Author.Username != "bot" || len(m.Components) != 1 {
		t.Fatalf("message = %+v", m)
	}
	var row struct {
		Components []struct {
			CustomID string `json:"custom_id"`
		}
	}
	if err := json.Unmarshal(m.Components[0], &row); err != nil || len(row.Components) != 1 || row.Components[0].CustomID != "counter:0" {
		t.Fatalf("message components %s: %v", m.Components[0], err)
	}
	if u := mustDecode(t, userSelectBody).Data.Resolved.Users["8"]; u.Username != "carol" {
		t.Fatalf("resolved user = %+v", u)
	}
}

// Modal submissions in the shapes the service sends: labels around one
// input each (the current form), action rows around text inputs (the
// older form), and text displays that hold nothing.
const (
	labelModalBody = `{"id": "1", "application_id": "2", "type": 5, "token": "t", "version": 1,
  "data": {"custom_id": "feedback", "components": [
    {"type": 10, "id": 1},
    {"type": 18, "id": 2, "component": {"type": 4, "id": 3, "custom_id": "text", "value": "Lovely\nplayground"}},
    {"type": 18, "id": 4, "component": {"type": 3, "id": 5, "custom_id": "mood", "values": ["happy"]}},
    {"type": 18, "id": 6, "component": {"type": 21, "id": 7, "custom_id": "size", "value": null}},
    {"type": 18, "id": 8, "component": {"type": 23, "id": 9, "custom_id": "agree", "value": true}},
    {"type": 18, "id": 10, "component": {"type": 22, "id": 11, "custom_id": "tags", "values": []}}]}}`
	rowModalBody = `{"id": "1", "application_id": "2", "type": 5, "token": "t", "version": 1,
  "data": {"custom_id": "feedback", "components": [
    {"type": 1, "components": [{"type": 4, "custom_id": "text", "value": "Nice"}]},
    {"type": 1, "components": [{"type": 4, "custom_id": "empty", "value": ""}]}]}}`
)

func TestDecodeModalSubmit(t *testing.T) {
	label := mustDecode(t, labelModalBody).Data
	row := mustDecode(t, rowModalBody).Data
	cases := []struct {
		name     string
		d        *CommandData
		customID string
		found    bool
		value    string
		values   []string
		checked  bool
	}{
		{"label text input", label, "text", true, "Lovely\nplayground", nil, false},
		{"label select", label, "mood", true, "", []string{"happy"}, false},
		{"radio group, nothing chosen", label, "size", true, "", nil, false},
		{"checkbox", label, "agree", true, "", nil, true},
		{"checkbox group, nothing chosen", label, "tags", true, "", []string{}, false},
		{"label: no such input", label, "nope", false, "", nil, false},
		{"row text input", row, "text", true, "Nice", nil, false},
		{"row empty text input", row, "empty", true, "", nil, false},
		{"row: no such input", row, "mood", false, "", nil, false},
		{"empty custom_id", row, "", false, "", nil, false},
		{"nil data", nil, "text", false, "", nil, false},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, ok := c.d.ModalValue(c.customID)
			if ok != c.found || v != c.value {
				t.Fatalf("ModalValue(%q) = %q, %v", c.customID, v, ok)
			}
			in, ok := c.d.ModalInput(c.customID)
			if ok != c.found || (ok && in.CustomID != c.customID) || in.Value != c.value ||
				!reflect.DeepEqual(in.Values, c.values) || in.Checked != c.checked {
				t.Fatalf("ModalInput(%q) = %+v, %v", c.customID, in, ok)
			}
		})
	}
	if label.CustomID != "feedback" || len(label.Components) != 6 || label.Components[1].Type != ComponentLabel ||
		label.Components[1].Component.Type != ComponentTextInput {
		t.Fatalf("data = %+v", label)
	}
}

// Nested layouts decode in one pass and are searched to the bottom.
func TestDecodeModalSubmitDeep(t *testing.T) {
	const depth = 5000
	body := `{"type":5,"data":{"custom_id":"m","components":[` + strings.Repeat(`{"type":18,"component":`, depth) +
		`{"type":4,"custom_id":"deep","value":"found"}` + strings.Repeat(`}`, depth) + `]}}`
	if v, ok := mustDecode(t, body).Data.ModalValue("deep"); !ok || v != "found" {
		t.Fatalf("ModalValue = %q, %v", v, ok)
	}
}

func TestModalComponentJSON(t *testing.T) {
	cases := []struct {
		name, in, out string
	}{
		{"text input", `{"type":4,"id":3,"custom_id":"text","value":"hi"}`, `{"type":4,"id":3,"custom_id":"text","value":"hi"}`},
		{"checkbox on", `{"type":23,"custom_id":"c","value":true}`, `{"type":23,"custom_id":"c","value":true}`},
		{"checkbox off", `{"type":23,"custom_id":"c","value":false}`, `{"type":23,"custom_id":"c","value":false}`},
		{"radio group, nothing chosen", `{"type":21,"custom_id":"r","value":null}`, `{"type":21,"custom_id":"r"}`},
		{"label", `{"type":18,"component":{"type":4,"custom_id":"t","value":"x"}}`, `{"type":18,"component":{"type":4,"custom_id":"t","value":"x"}}`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			var m ModalComponent
			if err := json.Unmarshal([]byte(c.in), &m); err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(m)
			if err != nil || string(b) != c.out {
				t.Fatalf("got %s, %v; want %s", b, err, c.out)
			}
		})
	}
	for _, bad := range []string{`{"type":4,"value":3}`, `{"type":4,"value":{}}`, `{"type":4,"value":"\x"}`, `[]`} {
		var m ModalComponent
		if err := json.Unmarshal([]byte(bad), &m); err == nil {
			t.Errorf("Unmarshal(%s) succeeded: %+v", bad, m)
		}
	}
}

// FuzzDecode: any body decodes or fails, never panics; what decodes
// re-encodes, and the modal helpers read it.
func FuzzDecode(f *testing.F) {
	for _, b := range []string{chatInputBody, buttonBody, selectBody, userSelectBody, labelModalBody, rowModalBody,
		`{"type":5,"data":{"components":[{"type":18,"component":{"type":18,"component":{"custom_id":"a","value":"b"}}}]}}`,
		`{"type":5,"data":{"components":[{"type":23,"value":1}]}}`, `{}`, `[]`} {
		f.Add([]byte(b))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		i, err := Decode(body)
		if err != nil {
			return
		}
		b, err := json.Marshal(i)
		if err != nil {
			t.Fatalf("re-encoding %s: %v", body, err)
		}
		again, err := Decode(b)
		if err != nil {
			t.Fatalf("decoding the re-encoded %s: %v", b, err)
		}
		if b2, _ := json.Marshal(again); string(b2) != string(b) {
			t.Fatalf("round trip changed it:\n%s\n%s", b, b2)
		}
		v, ok := i.Data.ModalValue("a")
		in, inOK := i.Data.ModalInput("a")
		if ok != inOK || v != in.Value || (ok && in.CustomID != "a") {
			t.Fatalf("ModalValue = %q, %v; ModalInput = %+v, %v", v, ok, in, inOK)
		}
	})
}
