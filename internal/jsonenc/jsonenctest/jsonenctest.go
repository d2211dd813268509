// Package jsonenctest checks a hand-written encoder against
// jsonenc.Marshal, for the encoders' fuzz tests.
package jsonenctest

import (
	"bytes"
	"testing"

	"github.com/slashd/slashd/internal/jsonenc"
)

// SameAsMarshal fails t unless appendJSON, given a buffer holding a
// prefix, appends exactly jsonenc.Marshal(v)'s bytes to it, or both fail.
func SameAsMarshal(t testing.TB, v any, appendJSON func([]byte) ([]byte, error)) {
	t.Helper()
	const prefix = "prefix"
	want, wantErr := jsonenc.Marshal(v)
	got, err := appendJSON([]byte(prefix))
	if (err != nil) != (wantErr != nil) {
		t.Fatalf("AppendJSON error %v, Marshal error %v", err, wantErr)
	}
	if err == nil && !bytes.Equal(got, append([]byte(prefix), want...)) {
		t.Fatalf("AppendJSON\n%s\nMarshal\n%s", got[len(prefix):], want)
	}
}
