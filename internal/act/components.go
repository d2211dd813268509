package act

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"

	"github.com/slashd/slashd/internal/apierr"
)

// Component is a button or select found on a message.
type Component struct {
	Type     int    `json:"type"`
	CustomID string `json:"custom_id"`
	Label    string `json:"label"`
	// Placeholder is a select's.
	Placeholder string `json:"placeholder"`
}

// Component types that can be clicked or chosen in.
const (
	typeButton = 2
	typeSelect = 3 // string select; 5–8 are the user, role, mentionable and channel selects
)

func isSelect(t int) bool { return t == typeSelect || (t >= 5 && t <= 8) }

// FindComponent finds on a message's components (rows, or a layout's
// nested components and accessories) the button (select: false) or
// select whose custom_id is name or, failing that, whose label
// (placeholder) is name. ok is false when there is none.
func FindComponent(components json.RawMessage, name string, selectMenu bool) (Component, bool) {
	var all []Component
	walk(components, &all, 0)
	want := func(c Component) bool {
		if selectMenu {
			return isSelect(c.Type)
		}
		return c.Type == typeButton
	}
	for _, c := range all {
		if want(c) && c.CustomID != "" && c.CustomID == name {
			return c, true
		}
	}
	for _, c := range all {
		if !want(c) || c.CustomID == "" {
			continue
		}
		if (!selectMenu && c.Label == name) || (selectMenu && c.Placeholder == name) {
			return c, true
		}
	}
	return Component{}, false
}

// maxDepth bounds the walk of a message's nested components.
const maxDepth = 8

func walk(raw json.RawMessage, out *[]Component, depth int) {
	if depth > maxDepth || len(raw) == 0 {
		return
	}
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) != nil {
		return
	}
	for _, item := range list {
		var c struct {
			Component
			Components json.RawMessage `json:"components"`
			Accessory  json.RawMessage `json:"accessory"`
			Component1 json.RawMessage `json:"component"`
		}
		if json.Unmarshal(item, &c) != nil {
			continue
		}
		*out = append(*out, c.Component)
		walk(c.Components, out, depth+1)
		if len(c.Accessory) > 0 {
			walk(json.RawMessage("["+string(c.Accessory)+"]"), out, depth+1)
		}
		if len(c.Component1) > 0 {
			walk(json.RawMessage("["+string(c.Component1)+"]"), out, depth+1)
		}
	}
}

// Submission is a modal submit's data (without its id): the modal's
// inputs, each with the value fields gives it by custom_id ("" where not
// given, for the service to judge). A field naming no input of the modal
// is refused.
func Submission(modal json.RawMessage, fields map[string]string) (map[string]any, error) {
	var m struct {
		CustomID   string            `json:"custom_id"`
		Components []json.RawMessage `json:"components"`
	}
	if err := json.Unmarshal(modal, &m); err != nil {
		return nil, fmt.Errorf("act: the modal %.200s: %w", modal, err)
	}
	used := map[string]bool{}
	input := func(raw json.RawMessage) map[string]any {
		var c Component
		if json.Unmarshal(raw, &c) != nil {
			return nil
		}
		used[c.CustomID] = true
		v := fields[c.CustomID]
		if c.Type == 4 {
			return map[string]any{"type": c.Type, "custom_id": c.CustomID, "value": v}
		}
		values := []string{}
		if v != "" {
			values = strings.Split(v, ",")
		}
		return map[string]any{"type": c.Type, "custom_id": c.CustomID, "values": values}
	}
	var out []any
	for _, raw := range m.Components {
		var item struct {
			Type       int               `json:"type"`
			Component  json.RawMessage   `json:"component"`
			Components []json.RawMessage `json:"components"`
		}
		if json.Unmarshal(raw, &item) != nil {
			continue
		}
		switch {
		case len(item.Component) > 0: // a label around one input
			if in := input(item.Component); in != nil {
				out = append(out, map[string]any{"type": item.Type, "component": in})
			}
		case item.Type == 1: // an action row of text inputs
			var row []any
			for _, c := range item.Components {
				if in := input(c); in != nil {
					row = append(row, in)
				}
			}
			out = append(out, map[string]any{"type": 1, "components": row})
		}
	}
	names := make([]string, 0, len(fields))
	for k := range fields {
		names = append(names, k)
	}
	sort.Strings(names)
	for _, k := range names {
		if !used[k] {
			return nil, apierr.Invalid(CodeBadValue, fmt.Sprintf("The modal %q has no input %q.", m.CustomID, k), KindSubmit, k)
		}
	}
	return map[string]any{"custom_id": m.CustomID, "components": out}, nil
}
