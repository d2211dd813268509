package gateway

import "testing"

func TestDispatchType(t *testing.T) {
	for _, c := range []struct {
		frame []byte
		want  string
	}{
		{dispatchFrame("INTERACTION_CREATE", 7, []byte(`{"t":"x"}`)), "INTERACTION_CREATE"},
		{dispatchFrame("GUILD_CREATE", 1, []byte(`{}`)), "GUILD_CREATE"},
		{frame(opHeartbeatACK, nil), ""},
		{[]byte(`{"op":0,"s":1,"t":"UNTERMINATED`), ""},
	} {
		if got := dispatchType(c.frame); got != c.want {
			t.Errorf("dispatchType(%s) = %q, want %q", c.frame, got, c.want)
		}
	}
}
