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
