package gateway

import (
	"encoding/json"
	"strconv"
	"strings"

	"github.com/coder/websocket"

	"github.com/slashd/slashd/internal/jsonenc"
)

// Opcodes (api-facts §6.2).
const (
	opDispatch       = 0
	opHeartbeat      = 1
	opIdentify       = 2
	opPresenceUpdate = 3
	opVoiceState     = 4
	opResume         = 6
	opReconnect      = 7
	opRequestMembers = 8
	opInvalidSession = 9
	opHello          = 10
	opHeartbeatACK   = 11
	opSoundboard     = 31
)

// Close codes of the real gateway, with the reasons it gives.
const (
	CloseUnknownError         websocket.StatusCode = 4000
	CloseUnknownOpcode        websocket.StatusCode = 4001
	CloseDecodeError          websocket.StatusCode = 4002
	CloseNotAuthenticated     websocket.StatusCode = 4003
	CloseAuthenticationFailed websocket.StatusCode = 4004
	CloseAlreadyAuthenticated websocket.StatusCode = 4005
	CloseInvalidSeq           websocket.StatusCode = 4007
	CloseRateLimited          websocket.StatusCode = 4008
	CloseSessionTimedOut      websocket.StatusCode = 4009
	CloseInvalidShard         websocket.StatusCode = 4010
	CloseShardingRequired     websocket.StatusCode = 4011
	CloseInvalidAPIVersion    websocket.StatusCode = 4012
	CloseInvalidIntents       websocket.StatusCode = 4013
	CloseDisallowedIntents    websocket.StatusCode = 4014
)

var closeReasons = map[websocket.StatusCode]string{
	CloseUnknownError:         "Unknown error.",
	CloseUnknownOpcode:        "Unknown opcode.",
	CloseDecodeError:          "Error while decoding payload.",
	CloseNotAuthenticated:     "Not authenticated.",
	CloseAuthenticationFailed: "Authentication failed.",
	CloseAlreadyAuthenticated: "Already authenticated.",
	CloseInvalidSeq:           "Invalid seq.",
	CloseRateLimited:          "Rate limited.",
	CloseSessionTimedOut:      "Session timed out.",
	CloseInvalidShard:         "Invalid shard.",
	CloseShardingRequired:     "Sharding required.",
	CloseInvalidAPIVersion:    "Invalid API version.",
	CloseInvalidIntents:       "Invalid intent(s).",
	CloseDisallowedIntents:    "Disallowed intent(s).",
}

// Intents (api-facts §6.4). Every defined bit; the privileged ones need
// the app's matching flag.
const (
	intentGuildMembers   = 1 << 1
	intentGuildPresences = 1 << 8
	intentMessageContent = 1 << 15

	// IntentGuilds gates GUILD_CREATE.
	IntentGuilds = 1 << 0

	allIntents = 1<<0 | 1<<1 | 1<<2 | 1<<3 | 1<<4 | 1<<5 | 1<<6 | 1<<7 | 1<<8 | 1<<9 | 1<<10 | 1<<11 |
		1<<12 | 1<<13 | 1<<14 | 1<<15 | 1<<16 | 1<<20 | 1<<21 | 1<<24 | 1<<25
)

// Application flags that allow the privileged intents (the real
// service's: GATEWAY_PRESENCE(_LIMITED), GATEWAY_GUILD_MEMBERS(_LIMITED),
// GATEWAY_MESSAGE_CONTENT(_LIMITED)).
const (
	flagPresence             = 1<<12 | 1<<13
	flagGuildMembers         = 1<<14 | 1<<15
	flagMessageContentIntent = 1<<18 | 1<<19
)

// disallowedIntents returns the privileged intents an app with flags may
// not ask for.
func disallowedIntents(intents, flags uint64) uint64 {
	var out uint64
	if intents&intentGuildMembers != 0 && flags&flagGuildMembers == 0 {
		out |= intentGuildMembers
	}
	if intents&intentGuildPresences != 0 && flags&flagPresence == 0 {
		out |= intentGuildPresences
	}
	if intents&intentMessageContent != 0 && flags&flagMessageContentIntent == 0 {
		out |= intentMessageContent
	}
	return out
}

// payload is a frame as a client sends it.
type payload struct {
	Op *int            `json:"op"`
	D  json.RawMessage `json:"d"`
}

// validHeartbeatSeq reports whether a heartbeat's d is what the docs
// allow: the last sequence number the client received (an integer) or
// null. Absent counts as null. Anything else (a string, an object, a
// fraction) is a decode error (4002).
func validHeartbeatSeq(d json.RawMessage) bool {
	s := strings.Trim(string(d), " \t\r\n")
	if s == "" || s == "null" {
		return true
	}
	_, err := strconv.ParseInt(s, 10, 64)
	return err == nil
}

// identify is op 2's data.
type identify struct {
	Token      string          `json:"token"`
	Intents    *uint64         `json:"intents"`
	Properties json.RawMessage `json:"properties"`
	Compress   looseBool       `json:"compress"`
	Shard      []int           `json:"shard"`
}

// looseBool is identify's compress: documented as a boolean (payload
// compression), but Oceanic.js sends its compress option there as it is
// ("zlib-stream"), and the real gateway accepts that. Any JSON value is
// accepted; only true is true. slashd compresses no payloads either way
// (transport compression is the URL's compress).
type looseBool bool

// UnmarshalJSON never fails: a value that is not the literal true is
// false.
func (b *looseBool) UnmarshalJSON(data []byte) error {
	*b = string(data) == "true"
	return nil
}

// resume is op 6's data.
type resume struct {
	Token     string `json:"token"`
	SessionID string `json:"session_id"`
	Seq       int64  `json:"seq"`
}

// frame renders a non-dispatch frame {"op":…,"d":…,"s":null,"t":null}.
func frame(op int, d any) []byte {
	data, err := jsonenc.Marshal(d)
	if err != nil {
		data = []byte("null")
	}
	return append(append([]byte(`{"op":`+strconv.Itoa(op)+`,"d":`), data...), `,"s":null,"t":null}`...)
}

// dispatchFrame renders op 0 with its sequence number around data that is
// already JSON.
func dispatchFrame(t string, seq int64, data []byte) []byte {
	return appendDispatchFrame(make([]byte, 0, len(data)+len(t)+48), t, seq, data)
}

// appendDispatchFrame appends dispatchFrame's frame to b.
func appendDispatchFrame(b []byte, t string, seq int64, data []byte) []byte {
	b = append(b, `{"op":0,"s":`...)
	b = strconv.AppendInt(b, seq, 10)
	b = append(b, `,"t":"`...)
	b = append(b, t...)
	b = append(b, `","d":`...)
	b = append(b, data...)
	return append(b, '}')
}
