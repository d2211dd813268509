package command

import (
	"bytes"
	"fmt"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/snowflake"
)

// Plan is the outcome of a write on one scope, computed from the scope's
// current commands by a pure function. The store applies it atomically.
type Plan struct {
	Put             []Command      // commands to insert or replace, whole
	Delete          []snowflake.ID // commands to remove
	DropPermissions []snowflake.ID // commands whose permissions go (deleted or renamed)
	Creates         int            // commands that did not exist before (daily limit)
	Result          []Command      // what the endpoint returns
	Created         bool           // single create: true when the command is new (201)
	// PutWire is, when known, each Put element's JSON wire form (nil
	// elements: unknown), so the store need not encode it.
	PutWire [][]byte
	// Wire is each Result element's JSON wire form when the store
	// filled it in (the bodies it wrote or holds), nil otherwise.
	Wire [][]byte
}

// HTTP statuses of the errors below, as numbers: the domain does not
// import net/http.
const (
	statusBadRequest = 400
	statusNotFound   = 404
)

// IDs mints snowflakes for new commands and versions.
type IDs func() snowflake.ID

// Write errors that are not field errors.
func errMaxCommands(t Type) error {
	return apierr.New(statusBadRequest, apierr.CodeMaxCommands,
		fmt.Sprintf("Maximum number of application commands reached (%d)", MaxPerType(t)))
}

var (
	errDailyCreates = apierr.New(statusBadRequest, apierr.CodeMaxDailyCreates,
		fmt.Sprintf("Max number of daily application command creates has been reached (%d)", MaxDailyCreates))
	errUnknownCommand = apierr.New(statusNotFound, apierr.CodeUnknownCommand, "Unknown application command")
	errNameExists     = apierr.New(statusBadRequest, apierr.CodeCommandNameExists,
		"An application command with that name already exists")
	errEntryPointRequired = apierr.New(statusBadRequest, apierr.CodeEntryPointRequired,
		"You cannot remove this app's Entry Point command in a bulk update operation. "+
			"Please include the Entry Point command in your update request or delete it separately.")
)

// SameDefinition reports whether two commands differ in nothing but id
// and version: writing one over the other is a no-op that keeps the version.
func SameDefinition(a, b *Command) bool {
	return bytes.Equal(definitionKey(a), definitionKey(b))
}

// compare is SameDefinition(old, c) for a c carrying old's id and
// version; when old's wire form is known it costs one encoding, which it
// returns as c's wire form (nil otherwise).
func compare(old, c *Command) (same bool, wire []byte) {
	if old.wire != nil {
		if b, err := jsonenc.Marshal(c); err == nil {
			return bytes.Equal(b, old.wire), b
		}
	}
	return SameDefinition(old, c), nil
}

// newVersion gives c version v and returns its wire form: wire (c's with
// the previous version) with the version replaced, nil if unknown.
func newVersion(c *Command, v snowflake.ID, wire []byte) []byte {
	suffix := `,"version":"` + c.Version.String() + `"}`
	c.Version = v
	if !bytes.HasSuffix(wire, []byte(suffix)) {
		return nil
	}
	out := make([]byte, 0, len(wire)+8)
	out = append(out, wire[:len(wire)-len(suffix)]...)
	return append(out, `,"version":"`+v.String()+`"}`...)
}

func definitionKey(c *Command) []byte {
	d := *c
	d.ID, d.Version = 0, 0
	b, _ := jsonenc.Marshal(&d) // a Command always marshals
	return b
}

// Upsert plans a create: a command with the same type and name in the
// scope is overwritten (same id; new version only if something changed),
// otherwise a new one is made, within the per-type and daily limits.
func Upsert(cur []Command, in Parsed, createsToday int, next IDs) (Plan, error) {
	c := in.Command
	for i := range cur {
		old := &cur[i]
		if old.Type != c.Type || old.Name != c.Name {
			continue
		}
		c.ID, c.Version = old.ID, old.Version
		same, wire := compare(old, &c)
		if same {
			return Plan{Result: []Command{plain(*old)}}, nil
		}
		wire = newVersion(&c, next(), wire)
		return Plan{Put: []Command{c}, PutWire: [][]byte{wire}, Result: []Command{c}}, nil
	}
	if countType(cur, c.Type) >= MaxPerType(c.Type) {
		return Plan{}, errMaxCommands(c.Type)
	}
	if createsToday+1 > MaxDailyCreates {
		return Plan{}, errDailyCreates
	}
	c.ID = next()
	c.Version = next()
	return Plan{Put: []Command{c}, Result: []Command{c}, Creates: 1, Created: true}, nil
}

// Edit plans a PATCH: in is the stored command with the body laid over it,
// already parsed. The id stays; a rename drops the command's permissions.
func Edit(cur []Command, id snowflake.ID, in Parsed, next IDs) (Plan, error) {
	idx := indexOf(cur, id)
	if idx < 0 {
		return Plan{}, errUnknownCommand
	}
	old := &cur[idx]
	c := in.Command
	c.ID, c.Version = old.ID, old.Version
	for i := range cur {
		if i != idx && cur[i].Type == c.Type && cur[i].Name == c.Name {
			return Plan{}, errNameExists
		}
	}
	if c.Type != old.Type && countType(cur, c.Type) >= MaxPerType(c.Type) {
		return Plan{}, errMaxCommands(c.Type)
	}
	same, wire := compare(old, &c)
	if same {
		return Plan{Result: []Command{plain(*old)}}, nil
	}
	wire = newVersion(&c, next(), wire)
	p := Plan{Put: []Command{c}, PutWire: [][]byte{wire}, Result: []Command{c}}
	if c.Name != old.Name {
		p.DropPermissions = []snowflake.ID{c.ID}
	}
	return p, nil
}

// Delete plans the removal of one command and its permissions.
func Delete(cur []Command, id snowflake.ID) (Plan, error) {
	if indexOf(cur, id) < 0 {
		return Plan{}, errUnknownCommand
	}
	return Plan{Delete: []snowflake.ID{id}, DropPermissions: []snowflake.ID{id}}, nil
}

// Overwrite plans a bulk overwrite: the scope's commands become exactly in.
// Elements are matched to existing commands by the id they name (same
// type), else by type and name; matched commands keep their id, and their
// version when unchanged. Unmatched existing commands are deleted.
func Overwrite(cur []Command, in []Parsed, global bool, createsToday int, next IDs) (Plan, error) {
	if err := checkDuplicates(in); err != nil {
		return Plan{}, err
	}
	claimed := make([]bool, len(cur))
	// Elements naming an existing id claim it first, so that a name match
	// of an earlier element cannot take a command another element names.
	byID := make([]int, len(in))
	for i, el := range in {
		byID[i] = -1
		if el.RequestedID != 0 {
			if j := indexOf(cur, el.RequestedID); j >= 0 && !claimed[j] && cur[j].Type == el.Type {
				byID[i] = j
				claimed[j] = true
			}
		}
	}
	// Sized once: a Command is large, and growing three slices of them
	// element by element copied each several times.
	p := Plan{Put: make([]Command, 0, len(in)), PutWire: make([][]byte, 0, len(in)), Result: make([]Command, 0, len(in))}
	counts := map[Type]int{}
	for i, el := range in {
		c := el.Command
		counts[c.Type]++
		idx := byID[i]
		if idx < 0 {
			for j := range cur {
				if !claimed[j] && cur[j].Type == c.Type && cur[j].Name == c.Name {
					idx = j
					break
				}
			}
		}
		if idx < 0 && c.Type == PrimaryEntryPoint {
			// A scope holds one entry point: a differently named one in
			// the list is that command renamed, not a second one.
			for j := range cur {
				if !claimed[j] && cur[j].Type == PrimaryEntryPoint {
					idx = j
					break
				}
			}
		}
		if idx < 0 {
			c.ID, c.Version = next(), next()
			p.Creates++
			p.Put = append(p.Put, c)
			p.PutWire = append(p.PutWire, nil)
			p.Result = append(p.Result, c)
			continue
		}
		claimed[idx] = true
		old := &cur[idx]
		c.ID, c.Version = old.ID, old.Version
		same, wire := compare(old, &c)
		if same {
			p.Result = append(p.Result, plain(*old))
			continue
		}
		wire = newVersion(&c, next(), wire)
		if c.Name != old.Name {
			p.DropPermissions = append(p.DropPermissions, c.ID)
		}
		p.Put = append(p.Put, c)
		p.PutWire = append(p.PutWire, wire)
		p.Result = append(p.Result, c)
	}
	for j := range cur {
		if claimed[j] {
			continue
		}
		if global && cur[j].Type == PrimaryEntryPoint {
			return Plan{}, errEntryPointRequired
		}
		p.Delete = append(p.Delete, cur[j].ID)
		p.DropPermissions = append(p.DropPermissions, cur[j].ID)
	}
	for _, t := range []Type{ChatInput, User, Message, PrimaryEntryPoint} {
		if counts[t] > MaxPerType(t) {
			return Plan{}, errMaxCommands(t)
		}
	}
	if p.Creates > 0 && createsToday+p.Creates > MaxDailyCreates {
		return Plan{}, errDailyCreates
	}
	if p.Result == nil {
		p.Result = []Command{}
	}
	return p, nil
}

// checkDuplicates: two elements of one bulk overwrite may not share a
// type and name; the later one carries the error.
func checkDuplicates(in []Parsed) error {
	type key struct {
		t    Type
		name string
	}
	seen := make(map[key]bool, len(in))
	errs := &apierr.Fields{}
	for i, el := range in {
		k := key{el.Type, el.Name}
		if seen[k] {
			errs.At(i).Add(codeDuplicateName, msgDuplicateName)
		}
		seen[k] = true
	}
	return errs.Err()
}

func indexOf(cur []Command, id snowflake.ID) int {
	for i := range cur {
		if cur[i].ID == id {
			return i
		}
	}
	return -1
}

func countType(cur []Command, t Type) int {
	n := 0
	for i := range cur {
		if cur[i].Type == t {
			n++
		}
	}
	return n
}

// EditShape renders a stored command as the create body that would make
// it, so that a PATCH body can be laid over it key by key and the result
// parsed and validated as a whole.
func EditShape(c *Command) map[string]any {
	b, _ := jsonenc.Marshal(c)
	v, _ := form.DecodeJSON(b)
	m := v.(map[string]any)
	for _, k := range []string{"id", "version", "application_id", "guild_id"} {
		delete(m, k)
	}
	return m
}

// Overlay lays a PATCH body's keys over a stored command's edit shape. Only
// the fields an edit may change are taken (spec §4, body of edit); the
// global-only ones only on global commands.
func Overlay(shape map[string]any, patch map[string]any, global bool) map[string]any {
	editable := []string{"name", "name_localizations", "description", "description_localizations",
		"options", "default_member_permissions", "default_permission", "nsfw", "type", "handler"}
	if global {
		editable = append(editable, "dm_permission", "integration_types", "contexts")
	}
	for _, k := range editable {
		if v, ok := patch[k]; ok {
			shape[k] = v
		}
	}
	return shape
}
