package gateway

import (
	"slices"
	"testing"
)

// TestAssemble: a session takes a dispatch once its last piece is in;
// pieces that do not follow the one before (the start went missing,
// another dispatch began) are dropped.
func TestAssemble(t *testing.T) {
	piece := func(id string, i, n int, data string) dispatchPiece {
		return dispatchPiece{Session: "s", Node: "n", ID: id, Name: "GUILD_MEMBERS_CHUNK", Piece: i, Pieces: n,
			Data: []byte(data)}
	}
	for _, tc := range []struct {
		name   string
		pieces []dispatchPiece
		want   []string // the dispatches taken, in order
	}{
		{"one piece", []dispatchPiece{piece("a", 0, 1, "{}")}, []string{"{}"}},
		{"three pieces", []dispatchPiece{piece("a", 0, 3, "[1,"), piece("a", 1, 3, "2,"), piece("a", 2, 3, "3]")},
			[]string{"[1,2,3]"}},
		{"the first piece missing", []dispatchPiece{piece("a", 1, 2, "2]"), piece("b", 0, 1, "{}")}, []string{"{}"}},
		{"a piece missing", []dispatchPiece{piece("a", 0, 3, "[1,"), piece("a", 2, 3, "3]")}, nil},
		{"another dispatch begins", []dispatchPiece{piece("a", 0, 2, "[1,"), piece("b", 0, 2, "[7,"),
			piece("a", 1, 2, "2]"), piece("b", 1, 2, "8]")}, []string{"[7,8]"}},
		{"one piece out of range", []dispatchPiece{piece("a", 1, 1, "{}")}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := newSession("s", 1, 0, 1, 0, 10)
			var got []string
			for _, p := range tc.pieces {
				if data, whole := s.assemble(p); whole {
					got = append(got, string(data))
				}
			}
			if !slices.Equal(got, tc.want) {
				t.Fatalf("took %q, want %q", got, tc.want)
			}
		})
	}
}
