package gateway

import (
	"encoding/json"
	"testing"
)

// FuzzHeartbeatSeq: a heartbeat's d is accepted exactly when it is
// JSON null or a JSON integer that fits a sequence number (int64), as
// decoding it into *int64 says; absent (empty) counts as null. Fraction,
// exponent, string, object, array and boolean are refused (4002).
func FuzzHeartbeatSeq(f *testing.F) {
	for _, seed := range []string{
		``, `null`, `0`, `1`, `-1`, `42`, `9223372036854775807`, `9223372036854775808`, `-9223372036854775808`,
		`1.5`, `1.0`, `1e3`, `"1"`, `{}`, `{"seq":1}`, `[]`, `true`, `false`, ` 7 `, `+1`, `01`, `0x10`, `1_000`,
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, d []byte) {
		got := validHeartbeatSeq(d)
		if len(d) == 0 {
			if !got {
				t.Fatal("absent d refused")
			}
			return
		}
		if !json.Valid(d) {
			// Not a JSON value: the payload around it would not decode,
			// so its d never gets here; only no panic is asked.
			return
		}
		var seq *int64
		want := json.Unmarshal(d, &seq) == nil
		if got != want {
			t.Fatalf("validHeartbeatSeq(%q) = %v, decoding into *int64 says %v", d, got, want)
		}
	})
}
