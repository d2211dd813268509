// Package act holds the pure parts of a world's members acting on
// request (POST /admin/v1/worlds/{world}/act): handles in a typed
// command line, and finding the component a member clicks or fills in a
// message or a modal.
package act

import (
	"regexp"
	"strings"
)

// mention is a handle where an option's value goes: @user, @&role,
// #channel, right after a name: or inside a quoted value's start.
var mention = regexp.MustCompile(`(:)(@&|@|#)([A-Za-z0-9][A-Za-z0-9._-]{0,63})`)

// Kind is what a handle in a command line names.
type Kind byte

const (
	User    Kind = '@'
	Role    Kind = '&'
	Channel Kind = '#'
)

// Substitute replaces the handles in a command line typed as a member
// types it (`/ban user:@bob`) by the ids they name, as lookup finds them;
// a handle lookup does not know stays as typed (the line's parser then
// reads it, as a mention or an error).
func Substitute(line string, lookup func(k Kind, handle string) (string, bool)) string {
	return mention.ReplaceAllStringFunc(line, func(m string) string {
		sub := mention.FindStringSubmatch(m)
		k := User
		switch sub[2] {
		case "@&":
			k = Role
		case "#":
			k = Channel
		}
		if id, ok := lookup(k, sub[3]); ok {
			return sub[1] + id
		}
		return m
	})
}

// Component is an interactive component of a message.
type Component struct {
	Type     int    `json:"type"`
	CustomID string `json:"custom_id"`
	Label    string `json:"label"`
	Disabled bool   `json:"disabled"`
}

// FindComponent finds, in a message's components (any nesting: action
// rows, sections, containers), the interactive component whose
// custom_id is ref, else the one whose label is ref (ignoring case).
func FindComponent(components []any, ref string) (Component, bool) {
	var byLabel *Component
	var found *Component
	walk(components, func(c Component) bool {
		if c.CustomID == "" {
			return true
		}
		if c.CustomID == ref {
			found = &c
			return false
		}
		if byLabel == nil && c.Label != "" && strings.EqualFold(c.Label, ref) {
			byLabel = &c
		}
		return true
	})
	switch {
	case found != nil:
		return *found, true
	case byLabel != nil:
		return *byLabel, true
	}
	return Component{}, false
}

// walk visits every component object under v (depth first) until visit
// returns false.
func walk(v any, visit func(Component) bool) bool {
	switch x := v.(type) {
	case []any:
		for _, e := range x {
			if !walk(e, visit) {
				return false
			}
		}
	case map[string]any:
		c := Component{}
		if t, ok := x["type"].(float64); ok {
			c.Type = int(t)
		}
		c.CustomID, _ = x["custom_id"].(string)
		c.Label, _ = x["label"].(string)
		c.Disabled, _ = x["disabled"].(bool)
		if c.Type != 0 && !visit(c) {
			return false
		}
		for _, k := range []string{"components", "component", "accessory"} {
			if child, ok := x[k]; ok && !walk(child, visit) {
				return false
			}
		}
	}
	return true
}

// ModalAnswer is what a member submits in a modal: for each input of the
// modal (a text input, or a select inside a label), its value from
// fields by custom_id; inputs without one are sent empty. The shape
// follows the modal's: a label around its component, or an action row
// around a text input.
func ModalAnswer(modalComponents []any, fields map[string]any) []any {
	var out []any
	for _, top := range modalComponents {
		m, _ := top.(map[string]any)
		t, _ := m["type"].(float64)
		switch int(t) {
		case 18: // label
			inner, _ := m["component"].(map[string]any)
			if c := input(inner, fields); c != nil {
				out = append(out, map[string]any{"type": 18, "component": c})
			}
		case 1: // action row
			var row []any
			for _, e := range asList(m["components"]) {
				if c := input(asMap(e), fields); c != nil {
					row = append(row, c)
				}
			}
			if row != nil {
				out = append(out, map[string]any{"type": 1, "components": row})
			}
		}
	}
	return out
}

// input is one input's submission, nil for a component that holds none.
func input(c map[string]any, fields map[string]any) map[string]any {
	id, _ := c["custom_id"].(string)
	t, _ := c["type"].(float64)
	if id == "" {
		return nil
	}
	v := fields[id]
	if int(t) == 4 { // text input
		s, _ := v.(string)
		return map[string]any{"type": 4, "custom_id": id, "value": s}
	}
	values := []any{}
	switch x := v.(type) {
	case []any:
		values = x
	case string:
		values = []any{x}
	}
	return map[string]any{"type": int(t), "custom_id": id, "values": values}
}

func asList(v any) []any         { l, _ := v.([]any); return l }
func asMap(v any) map[string]any { m, _ := v.(map[string]any); return m }
