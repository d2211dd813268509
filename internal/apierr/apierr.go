// Package apierr is the API's one error model: a JSON error code, a message
// and, for form validation, a tree of field errors rendered under "_errors".
//
// It mirrors the real service's envelope,
//
//	{"code": 50035, "message": "Invalid Form Body", "errors": {"options": {"0": {"name": {"_errors": [...]}}}}}
//
// so that client libraries print and match our errors exactly as theirs. The
// package has no I/O: the domain produces these errors and the HTTP layer
// only renders them.
package apierr

import (
	"errors"
	"fmt"
	"sort"
	"strconv"

	"github.com/slashd/slashd/internal/jsonenc"
)

// JSON error codes used by slashd. Names follow the real service's table.
const (
	CodeGeneral                   = 0
	CodeUnknownApplication        = 10002
	CodeUnknownGuild              = 10004
	CodeUnknownRole               = 10011
	CodeUnknownUser               = 10013
	CodeUnknownCommand            = 10063
	CodeUnknownCommandPermissions = 10066
	CodeBotsCannotUse             = 20001
	CodeNotAuthorizedForApp       = 20012
	CodeMaxCommands               = 30032
	CodeMaxDailyCreates           = 30034
	CodeUnauthorized              = 40001
	CodeRequestTooLarge           = 40005
	CodeCommandNameExists         = 40041
	CodeMissingAccess             = 50001
	CodeMissingPermissions        = 50013
	CodeInvalidFormBody           = 50035
	CodeInvalidAPIVersion         = 50041
	CodeInvalidJSON               = 50109
	CodeEntryPointRequired        = 50240
)

// Error is an API error. Status is the HTTP status the error is served with.
type Error struct {
	Status  int
	Code    int
	Message string
	Fields  *Fields
}

func (e *Error) Error() string {
	if e.Fields != nil && !e.Fields.Empty() {
		b, _ := jsonenc.Marshal(e.Fields)
		return fmt.Sprintf("%d %s: %s", e.Code, e.Message, b)
	}
	return fmt.Sprintf("%d %s", e.Code, e.Message)
}

// MarshalJSON renders the real service's envelope.
func (e *Error) MarshalJSON() ([]byte, error) {
	// Field order follows current real responses: message, code, errors.
	type envelope struct {
		Message string  `json:"message"`
		Code    int     `json:"code"`
		Errors  *Fields `json:"errors,omitempty"`
	}
	env := envelope{Code: e.Code, Message: e.Message}
	if e.Fields != nil && !e.Fields.Empty() {
		env.Errors = e.Fields
	}
	return jsonenc.Marshal(env)
}

// As returns the *Error inside err, if any.
func As(err error) (*Error, bool) {
	var e *Error
	if errors.As(err, &e) {
		return e, true
	}
	return nil, false
}

// New builds an error without field details.
func New(status, code int, message string) *Error {
	return &Error{Status: status, Code: code, Message: message}
}

// Leaf is one entry of an "_errors" list. Codes are UPPER_SNAKE strings.
type Leaf struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

// Fields is a node of the field-error tree. The zero value is an empty tree.
type Fields struct {
	errs     []Leaf
	children map[string]*Fields
	// A node At returns for a path that holds no error yet is detached:
	// it knows its parent and key, and joins the tree only when an
	// error is added below it. Validating a valid body (thousands of
	// At calls on a bulk overwrite) then builds no tree at all.
	parent   *Fields
	key      string
	attached bool
}

// At returns the node for a path below f. Path elements are object keys
// (string) or array indexes (int), which the real service renders as
// decimal string keys. The node joins the tree when an error is added
// at or below it.
func (f *Fields) At(path ...any) *Fields {
	node := f
	for _, p := range path {
		var key string
		switch v := p.(type) {
		case string:
			key = v
		case int:
			key = strconv.Itoa(v)
		default:
			key = fmt.Sprint(v)
		}
		if r := node.resolve(false); r != nil {
			if child, ok := r.children[key]; ok {
				node = child
				continue
			}
		}
		node = &Fields{parent: node, key: key}
	}
	return node
}

// resolve returns the node of the tree that f stands for: f itself when
// it is the root or attached; for a detached node, the node at its path
// if the tree has one, else (with create) f, attached there, else nil.
func (f *Fields) resolve(create bool) *Fields {
	if f.parent == nil || f.attached {
		return f
	}
	p := f.parent.resolve(create)
	if p == nil {
		return nil
	}
	if c, ok := p.children[f.key]; ok {
		return c
	}
	if !create {
		return nil
	}
	if p.children == nil {
		p.children = make(map[string]*Fields)
	}
	f.parent, f.attached = p, true
	p.children[f.key] = f
	return f
}

// Add appends an error at this node.
func (f *Fields) Add(code, message string) {
	n := f.resolve(true)
	n.errs = append(n.errs, Leaf{Code: code, Message: message})
}

// Empty reports whether the tree holds no error at all.
func (f *Fields) Empty() bool {
	if f == nil {
		return true
	}
	n := f.resolve(false)
	if n == nil {
		return true
	}
	if len(n.errs) > 0 {
		return false
	}
	for _, c := range n.children {
		if !c.Empty() {
			return false
		}
	}
	return true
}

// Leaves returns the errors recorded directly at this node.
func (f *Fields) Leaves() []Leaf {
	if n := f.resolve(false); n != nil {
		return n.errs
	}
	return nil
}

// Child returns the existing child node for key, or nil.
func (f *Fields) Child(key string) *Fields {
	if f == nil {
		return nil
	}
	if n := f.resolve(false); n != nil {
		return n.children[key]
	}
	return nil
}

// Merge copies every error of other under f.
func (f *Fields) Merge(other *Fields) {
	if other == nil {
		return
	}
	if other = other.resolve(false); other == nil {
		return
	}
	if len(other.errs) > 0 {
		n := f.resolve(true)
		n.errs = append(n.errs, other.errs...)
	}
	for k, c := range other.children {
		f.At(k).Merge(c)
	}
}

// MarshalJSON renders {"_errors": [...], "<key>": {...}} with empty
// branches pruned. Keys are sorted for stable output.
func (f *Fields) MarshalJSON() ([]byte, error) {
	out := make(map[string]any)
	n := f.resolve(false)
	if n == nil {
		return jsonenc.Marshal(out)
	}
	if len(n.errs) > 0 {
		out["_errors"] = n.errs
	}
	keys := make([]string, 0, len(n.children))
	for k := range n.children {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if c := n.children[k]; !c.Empty() {
			out[k] = c
		}
	}
	return jsonenc.Marshal(out)
}

// Err turns a non-empty tree into the 50035 "Invalid Form Body" error.
func (f *Fields) Err() error {
	if f.Empty() {
		return nil
	}
	return &Error{Status: 400, Code: CodeInvalidFormBody, Message: "Invalid Form Body", Fields: f}
}

// Invalid is a shorthand for a one-leaf form error at path.
func Invalid(code, message string, path ...any) *Error {
	f := &Fields{}
	f.At(path...).Add(code, message)
	return f.Err().(*Error)
}
