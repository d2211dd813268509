package interaction

import (
	"bytes"
	"encoding/json"

	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/msgcheck"
)

// A message's embeds and components are stored as the app sent them,
// with the fields the real service fills in when it renders them
// (OpenAPI MessageEmbedResponse and the *ComponentResponse schemas mark
// them required): an embed's type ("rich") and its fields' inline
// (false); every component's id, numbered in tree order and skipping the
// ids the app chose (components/reference.mdx: "generated sequentially if
// left empty … won't use another id that exists in the message", 0 counts
// as empty); select menus' min_values and max_values (1); the defaults of
// the layout components; and a poll's response form (poll.mdx: duration
// becomes expiry, answers are numbered from 1, results start empty).

// Layout component types with defaults, and the defaults.
const (
	componentThumbnail   = msgcheck.TypeThumbnail
	componentFile        = msgcheck.TypeFile
	componentSeparator   = msgcheck.TypeSeparator
	componentContainer   = msgcheck.TypeContainer
	separatorSmall       = 1
	defaultSelectedCount = 1
)

var selectMenus = map[int64]bool{ComponentStringSelect: true, ComponentUserSelect: true, ComponentRoleSelect: true,
	ComponentMentionableSelect: true, ComponentChannelSelect: true}

// normalizeEmbeds fills each embed's type and its fields' inline, and
// trims the texts the real service trims (msgcheck.TrimEmbedText).
func normalizeEmbeds(embeds []json.RawMessage) []json.RawMessage {
	return rewriteEach(embeds, func(e map[string]any) {
		setDefault(e, "type", "rich")
		trimTexts(e, "title", "description")
		for _, part := range []string{"footer", "author"} {
			if pm, ok := e[part].(map[string]any); ok {
				trimTexts(pm, "text", "name")
			}
		}
		fields, _ := e["fields"].([]any)
		for _, f := range fields {
			if fm, ok := f.(map[string]any); ok {
				setDefault(fm, "inline", false)
				trimTexts(fm, "name", "value")
			}
		}
	})
}

// trimTexts trims the strings at keys of m.
func trimTexts(m map[string]any, keys ...string) {
	for _, k := range keys {
		if s, ok := m[k].(string); ok {
			m[k] = msgcheck.TrimEmbedText(s)
		}
	}
}

// normalizeComponents numbers the components and fills their defaults.
func normalizeComponents(components []json.RawMessage) []json.RawMessage {
	decoded := decodeEach(components)
	if decoded == nil {
		return components
	}
	used := map[int64]bool{}
	walkComponents(decoded, func(c map[string]any) {
		if id, ok := intValue(c["id"]); ok && id != 0 {
			used[id] = true
		}
	})
	next := int64(0)
	walkComponents(decoded, func(c map[string]any) {
		if id, ok := intValue(c["id"]); !ok || id == 0 {
			next++
			for used[next] {
				next++
			}
			c["id"] = next
		}
		fillComponentDefaults(c)
	})
	return encodeEach(decoded, components)
}

// fillComponentDefaults sets the fields the real service renders for a
// component that left them out.
func fillComponentDefaults(c map[string]any) {
	t, _ := intValue(c["type"])
	switch {
	case selectMenus[t]:
		setDefault(c, "min_values", defaultSelectedCount)
		setDefault(c, "max_values", defaultSelectedCount)
	case t == componentContainer:
		setDefault(c, "accent_color", nil)
		setDefault(c, "spoiler", false)
	case t == componentThumbnail:
		setDefault(c, "description", nil)
		setDefault(c, "spoiler", false)
	case t == componentFile:
		setDefault(c, "spoiler", false)
	case t == componentSeparator:
		setDefault(c, "spacing", separatorSmall)
		setDefault(c, "divider", true)
	}
}

// Poll defaults (poll.mdx, "Poll Create Request Object").
const (
	defaultPollHours  = 24
	defaultPollLayout = 1
)

// normalizePoll renders a poll request as a message's poll, but for its
// expiry, which needs the clock: ExpirePoll.
func normalizePoll(poll json.RawMessage) json.RawMessage {
	return rewriteObject(poll, func(p map[string]any) {
		setDefault(p, "allow_multiselect", false)
		setDefault(p, "layout_type", defaultPollLayout)
		answers, _ := p["answers"].([]any)
		for i, a := range answers {
			if am, ok := a.(map[string]any); ok {
				am["answer_id"] = i + 1
			}
		}
		setDefault(p, "results", map[string]any{"answer_counts": []any{}, "is_finalized": false})
	})
}

// ExpirePoll turns the poll request's duration (hours, 24 when left out)
// into the poll's expiry, expiry(hours) in TimestampLayout. A poll that
// has its expiry already keeps it.
func (m *Message) ExpirePoll(expiry func(hours int64) string) {
	m.Poll = rewriteObject(m.Poll, func(p map[string]any) {
		hours := int64(defaultPollHours)
		if h, ok := intValue(p["duration"]); ok {
			hours = h
		}
		delete(p, "duration")
		setDefault(p, "expiry", expiry(hours))
	})
}

// rewriteObject applies f to a raw object (nil, or not an object: left
// as it is).
func rewriteObject(raw json.RawMessage, f func(map[string]any)) json.RawMessage {
	if len(raw) == 0 {
		return raw
	}
	out := rewriteEach([]json.RawMessage{raw}, f)
	return out[0]
}

// walkComponents visits every component in tree order (depth first, a
// parent before its children).
func walkComponents(components []map[string]any, visit func(map[string]any)) {
	var walk func(v any)
	walk = func(v any) {
		c, ok := v.(map[string]any)
		if !ok {
			return
		}
		visit(c)
		if children, ok := c["components"].([]any); ok {
			for _, child := range children {
				walk(child)
			}
		}
		for _, key := range []string{"accessory", "component"} { // a section's; a label's (modals)
			if child, ok := c[key]; ok {
				walk(child)
			}
		}
	}
	for _, c := range components {
		walk(c)
	}
}

// rewriteEach decodes each object, applies f and re-encodes it; on any
// decoding failure the list stays as it was.
func rewriteEach(list []json.RawMessage, f func(map[string]any)) []json.RawMessage {
	decoded := decodeEach(list)
	if decoded == nil {
		return list
	}
	for _, o := range decoded {
		f(o)
	}
	return encodeEach(decoded, list)
}

// decodeEach decodes each raw object (numbers kept as written); nil if
// one is not an object.
func decodeEach(list []json.RawMessage) []map[string]any {
	out := make([]map[string]any, len(list))
	for i, raw := range list {
		dec := json.NewDecoder(bytes.NewReader(raw))
		dec.UseNumber()
		if err := dec.Decode(&out[i]); err != nil || out[i] == nil {
			return nil
		}
	}
	return out
}

// encodeEach re-encodes decoded objects; on failure it returns fallback.
func encodeEach(decoded []map[string]any, fallback []json.RawMessage) []json.RawMessage {
	out := make([]json.RawMessage, len(decoded))
	for i, o := range decoded {
		b, err := jsonenc.Marshal(o)
		if err != nil {
			return fallback
		}
		out[i] = b
	}
	return out
}

func setDefault(o map[string]any, key string, v any) {
	if _, ok := o[key]; !ok {
		o[key] = v
	}
}

// intValue reads a JSON integer (json.Number, or an int64 set here).
func intValue(v any) (int64, bool) {
	switch n := v.(type) {
	case json.Number:
		i, err := n.Int64()
		return i, err == nil
	case int64:
		return n, true
	}
	return 0, false
}
