package gateway

import (
	"encoding/json"
	"errors"

	"github.com/coder/websocket"

	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/ratelimit"
	"github.com/slashd/slashd/internal/snowflake"
)

// Request Guild Members (op 8), answered with GUILD_MEMBERS_CHUNK
// dispatches, under the real gateway's rules (gateway-events.mdx,
// "Request Guild Members"; docs/compat.md):
//   - user_ids: those members (at most 100), the others in not_found;
//   - a query: members whose username starts with it, at most 100;
//   - query "": every member (at most limit), only with the GUILD_MEMBERS
//     intent, and once per guild every MemberRequestWindow when limit is
//     0 (RATE_LIMITED otherwise);
//   - presences: an empty presences list (slashd knows no presences, so
//     every member is offline), only with the GUILD_PRESENCES intent.
//
// A guild that the session's shard does not hold, or that the bot is not
// in, and a request for every member without the intent get no answer,
// as on the real gateway.

const (
	// membersPerChunk is the most members one chunk carries: the real
	// gateway's 1000. Every chunk but the last is full, which discord.js
	// relies on (a chunk of fewer ends its fetch).
	membersPerChunk = 1000
	// maxMembersSelected caps the answer to a query or to user_ids.
	maxMembersSelected = 100
	// maxNonceBytes is the longest nonce echoed; a longer one is ignored.
	maxNonceBytes = 32
)

// memberRequest is op 8's data.
type memberRequest struct {
	// GuildID is one guild, or a list of which only the first is served
	// (older libraries, discordgo among them, send a list).
	GuildID   snowflakes      `json:"guild_id"`
	Query     *string         `json:"query"`
	Limit     *int            `json:"limit"`
	Presences bool            `json:"presences"`
	UserIDs   snowflakes      `json:"user_ids"` // nil: not given
	Nonce     json.RawMessage `json:"nonce"`
}

// snowflakes is one snowflake or a list of them; null is none (nil).
type snowflakes []snowflake.ID

func (s *snowflakes) UnmarshalJSON(b []byte) error {
	switch {
	case string(b) == "null":
		*s = nil
		return nil
	case len(b) > 0 && b[0] == '[':
		ids := []snowflake.ID{}
		if err := json.Unmarshal(b, &ids); err != nil {
			return err
		}
		*s = ids
		return nil
	}
	var id snowflake.ID
	if err := json.Unmarshal(b, &id); err != nil {
		return err
	}
	*s = snowflakes{id}
	return nil
}

// parseMemberRequest reads op 8's data; false for a payload the gateway
// cannot act on (closed with 4002).
func parseMemberRequest(d json.RawMessage) (memberRequest, bool) {
	var r memberRequest
	if err := json.Unmarshal(d, &r); err != nil {
		return r, false
	}
	valid := len(r.GuildID) > 0 && (r.UserIDs != nil || r.Query != nil) && (r.Limit == nil || *r.Limit >= 0)
	return r, valid
}

func (r memberRequest) guild() snowflake.ID { return r.GuildID[0] }

func (r memberRequest) limit() int {
	if r.Limit == nil {
		return 0
	}
	return *r.Limit
}

// everything reports whether r asks for the member list rather than for
// some members: query "" (whatever the limit), which needs GUILD_MEMBERS.
func (r memberRequest) everything() bool { return r.UserIDs == nil && *r.Query == "" }

// nonce is the nonce to echo: "" when none was sent, or it is not a
// string of at most 32 bytes.
func (r memberRequest) nonce() string {
	var n string
	if json.Unmarshal(r.Nonce, &n) != nil || len(n) > maxNonceBytes {
		return ""
	}
	return n
}

// userIDs are the users asked for, each once, in the order given.
func (r memberRequest) userIDs() []snowflake.ID {
	out := make([]snowflake.ID, 0, len(r.UserIDs))
	seen := make(map[snowflake.ID]bool, len(r.UserIDs))
	for _, id := range r.UserIDs {
		if !seen[id] {
			seen[id] = true
			out = append(out, id)
		}
	}
	return out
}

// query is what to ask the Directory.
func (r memberRequest) query() MemberQuery {
	switch {
	case r.UserIDs != nil:
		return MemberQuery{UserIDs: r.userIDs()}
	case *r.Query == "":
		return MemberQuery{Limit: r.limit()}
	}
	limit := r.limit()
	if limit == 0 || limit > maxMembersSelected {
		limit = maxMembersSelected
	}
	return MemberQuery{Prefix: *r.Query, Limit: limit}
}

// membersChunk is GUILD_MEMBERS_CHUNK's data.
type membersChunk struct {
	GuildID    snowflake.ID      `json:"guild_id"`
	Members    []json.RawMessage `json:"members"`
	ChunkIndex int               `json:"chunk_index"`
	ChunkCount int               `json:"chunk_count"`
	NotFound   *[]snowflake.ID   `json:"not_found,omitempty"` // user_ids requests
	Presences  *[]struct{}       `json:"presences,omitempty"` // asked for, with GUILD_PRESENCES
	Nonce      string            `json:"nonce,omitempty"`
}

// chunks renders the answer to r: members in chunks of membersPerChunk,
// at least one.
func (r memberRequest) chunks(members []Member, presences bool) ([][]byte, error) {
	base := membersChunk{GuildID: r.guild(), Nonce: r.nonce()}
	if r.UserIDs != nil {
		members = members[:min(len(members), maxMembersSelected)]
		found := make(map[snowflake.ID]bool, len(members))
		for _, m := range members {
			found[m.UserID] = true
		}
		notFound := []snowflake.ID{}
		for _, id := range r.userIDs() {
			if !found[id] {
				notFound = append(notFound, id)
			}
		}
		base.NotFound = &notFound
	}
	if presences && r.Presences {
		base.Presences = &[]struct{}{} // every member is offline
	}
	base.ChunkCount = max((len(members)+membersPerChunk-1)/membersPerChunk, 1)
	out := make([][]byte, base.ChunkCount)
	for i := range out {
		chunk := base
		chunk.ChunkIndex = i
		part := members[min(i*membersPerChunk, len(members)):min((i+1)*membersPerChunk, len(members))]
		chunk.Members = make([]json.RawMessage, len(part))
		for j, m := range part {
			chunk.Members[j] = m.Object
		}
		data, err := jsonenc.Marshal(chunk)
		if err != nil {
			return nil, err
		}
		out[i] = data
	}
	return out, nil
}

// rateLimited renders RATE_LIMITED's data for a refused r.
func (r memberRequest) rateLimited(res ratelimit.Result) ([]byte, error) {
	type meta struct {
		GuildID snowflake.ID `json:"guild_id"`
		Nonce   string       `json:"nonce,omitempty"`
	}
	return jsonenc.Marshal(struct {
		Opcode     int     `json:"opcode"`
		RetryAfter float64 `json:"retry_after"`
		Meta       meta    `json:"meta"`
	}{opRequestMembers, res.RetryAfter.Seconds(), meta{r.guild(), r.nonce()}})
}

// requestMembers answers op 8.
func (c *conn) requestMembers(d json.RawMessage) (websocket.StatusCode, string) {
	s := c.session()
	if s == nil {
		return CloseNotAuthenticated, ""
	}
	r, ok := parseMemberRequest(d)
	if !ok {
		return CloseDecodeError, ""
	}
	if !s.holds(r.guild()) || (r.everything() && s.intents&intentGuildMembers == 0) {
		return 0, "" // no answer, as on the real gateway
	}
	if r.everything() && r.limit() == 0 {
		res, err := c.g.cfg.Limiter.Allow(c.ctx, "gateway:members:"+s.appID.String()+":"+r.guild().String(),
			ratelimit.Limit{Count: 1, Window: c.g.cfg.MemberRequestWindow})
		if err != nil {
			return c.memberRequestFailed(err)
		}
		if !res.Allowed {
			data, err := r.rateLimited(res)
			if err != nil {
				return c.memberRequestFailed(err)
			}
			c.g.dispatchTo(s, "RATE_LIMITED", data)
			return 0, ""
		}
	}
	members, err := c.g.dir.Members(c.ctx, s.appID, r.guild(), r.query())
	if errors.Is(err, ErrUnknownGuild) {
		return 0, "" // no answer, as on the real gateway
	}
	if err != nil {
		return c.memberRequestFailed(err)
	}
	chunks, err := r.chunks(members, s.intents&intentGuildPresences != 0)
	if err != nil {
		return c.memberRequestFailed(err)
	}
	for _, data := range chunks {
		c.g.dispatchTo(s, "GUILD_MEMBERS_CHUNK", data)
	}
	return 0, ""
}

// memberRequestFailed closes with 4000 after an internal error (nothing,
// when the client has left meanwhile).
func (c *conn) memberRequestFailed(err error) (websocket.StatusCode, string) {
	if c.ctx.Err() != nil {
		return 0, ""
	}
	c.g.log.Error("gateway: request guild members", "err", err)
	return CloseUnknownError, ""
}
