package apierr

import (
	"encoding/json"
	"errors"
	"fmt"
	"testing"
)

func TestEnvelope(t *testing.T) {
	tests := []struct {
		name string
		err  *Error
		want string
	}{
		{"plain", New(401, 0, "401: Unauthorized"), `{"message":"401: Unauthorized","code":0}`},
		{"field", Invalid("BASE_TYPE_REQUIRED", "This field is required", "options", 0, "name"),
			`{"message":"Invalid Form Body","code":50035,"errors":{"options":{"0":{"name":{"_errors":[{"code":"BASE_TYPE_REQUIRED","message":"This field is required"}]}}}}}`},
		{"top level", Invalid("BASE_TYPE_MAX_LENGTH", "Must be 130 or fewer in length."),
			`{"message":"Invalid Form Body","code":50035,"errors":{"_errors":[{"code":"BASE_TYPE_MAX_LENGTH","message":"Must be 130 or fewer in length."}]}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			b, err := json.Marshal(tt.err)
			if err != nil || string(b) != tt.want {
				t.Fatalf("got %s, %v\nwant %s", b, err, tt.want)
			}
		})
	}
}

func TestFieldsPruneEmptyAndMerge(t *testing.T) {
	f := &Fields{}
	f.At("a", 1) // visited, no error: must not render
	if !f.Empty() || f.Err() != nil {
		t.Fatal("a tree without errors must be empty")
	}
	other := &Fields{}
	other.At("x").Add("C", "m")
	f.At(3).Merge(other)
	b, _ := json.Marshal(f)
	if string(b) != `{"3":{"x":{"_errors":[{"code":"C","message":"m"}]}}}` {
		t.Fatalf("got %s", b)
	}
	e, ok := As(fmt.Errorf("wrapped: %w", f.Err()))
	if !ok || e.Code != CodeInvalidFormBody || e.Status != 400 {
		t.Fatalf("As: %v %v", e, ok)
	}
	if _, ok := As(errors.New("other")); ok {
		t.Fatal("As matched a foreign error")
	}
}

// A node At returns joins the tree only when an error is added at or
// below it, wherever it was taken from.
func TestFieldsLazyNodes(t *testing.T) {
	render := func(f *Fields) string {
		b, err := json.Marshal(f)
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	root := &Fields{}
	a, b := root.At("options", 0), root.At("options", 0) // two handles, neither attached
	a.At("name")
	root.Merge(&Fields{})
	if !root.Empty() || render(root) != `{}` || root.Child("options") != nil || root.Err() != nil {
		t.Fatalf("At and Merge of nothing built %s", render(root))
	}
	b.At("name").Add("B", "b")
	a.At("name").Add("A", "a")    // the same path through the other handle
	a.At("type").Add("T", "t")    // a sibling below the handle that lost
	root.At("options", 0, "name") // looked up again: the node with both errors
	want := `{"options":{"0":{"name":{"_errors":[{"code":"B","message":"b"},{"code":"A","message":"a"}]},"type":{"_errors":[{"code":"T","message":"t"}]}}}}`
	if got := render(root); got != want {
		t.Fatalf("got %s\nwant %s", got, want)
	}
	if n := len(a.At("name").Leaves()); n != 2 || a.Empty() || b.Empty() {
		t.Errorf("through a handle: %d leaves at name, empty %v %v; want 2, false, false", n, a.Empty(), b.Empty())
	}
	other := &Fields{}
	other.At("x", 1).Add("X", "x")
	detached := root.At("merged")
	detached.Merge(other)
	if got := render(root.Child("merged")); got != `{"x":{"1":{"_errors":[{"code":"X","message":"x"}]}}}` {
		t.Errorf("merged under a detached node: %s", got)
	}
}

// FuzzFieldsMatchReference: any sequence of At and Add through any
// handles renders exactly the errors added, by path, as a reference map
// of paths to codes does.
func FuzzFieldsMatchReference(f *testing.F) {
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7})
	f.Add([]byte{9, 9, 9, 1, 1, 1})
	f.Fuzz(func(t *testing.T, ops []byte) {
		root := &Fields{}
		type handle struct {
			node *Fields
			path []string
		}
		handles := []handle{{root, nil}}
		want := map[string][]string{}
		for i, op := range ops {
			h := handles[int(op>>4)%len(handles)]
			key := fmt.Sprint(op & 3)
			switch (op >> 2) & 3 {
			case 0, 1: // At
				p := append(append([]string{}, h.path...), key)
				handles = append(handles, handle{h.node.At(key), p})
			case 2: // Add
				code := fmt.Sprint("C", i)
				h.node.Add(code, "m")
				k := fmt.Sprint(h.path)
				want[k] = append(want[k], code)
			case 3: // At again from the root, along h's path
				args := make([]any, len(h.path))
				for j, s := range h.path {
					args[j] = s
				}
				handles = append(handles, handle{root.At(args...), h.path})
			}
		}
		got := map[string][]string{}
		var walk func(n *Fields, path []string)
		walk = func(n *Fields, path []string) {
			for _, l := range n.Leaves() {
				k := fmt.Sprint(path)
				got[k] = append(got[k], l.Code)
			}
			for k, c := range n.children {
				walk(c, append(append([]string{}, path...), k))
			}
		}
		walk(root, nil)
		if fmt.Sprint(got) != fmt.Sprint(want) {
			t.Fatalf("tree %v, want %v", got, want)
		}
		if root.Empty() != (len(want) == 0) {
			t.Fatalf("Empty() = %v with %d paths holding errors", root.Empty(), len(want))
		}
	})
}
