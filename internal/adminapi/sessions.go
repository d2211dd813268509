package adminapi

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/slashd/slashd/internal/snowflake"
)

// BotSession is one gateway session of an app, as the gateway knows it
// (gateway.SessionInfo): what GET …/worlds/{world}/sessions lists.
type BotSession struct {
	ID            string
	ApplicationID snowflake.ID
	ShardID       int
	Shards        int
	Intents       uint64
	IdentifiedAt  time.Time
	Connected     bool
	// DisconnectedAt: when its client went away (not Connected); it may
	// be resumed within the gateway's resume window from then.
	DisconnectedAt time.Time
}

// botSessionView is a session as the admin API shows it.
type botSessionView struct {
	ID             string       `json:"session_id"`
	ApplicationID  snowflake.ID `json:"application_id"`
	App            string       `json:"app"` // its handle in the world's spec
	Shard          [2]int       `json:"shard"`
	Intents        uint64       `json:"intents"`
	IdentifiedAt   *string      `json:"identified_at"`
	State          string       `json:"state"` // connected, resumable
	DisconnectedAt *string      `json:"disconnected_at"`
}

// worldSessions is GET /admin/v1/worlds/{world}/sessions: the gateway
// sessions of the world's apps, connected or waiting for a resume,
// every node's (each node knows the others' sessions: gateway/cluster.go),
// the oldest first.
func (a *API) worldSessions(ctx context.Context, req *Request) (Response, error) {
	var ids map[string]snowflake.ID
	if err := json.Unmarshal(req.World.Handles, &ids); err != nil {
		return Response{}, fmt.Errorf("world %v: stored ids: %w", req.World.ID, err)
	}
	out := []botSessionView{}
	if a.BotSessions == nil {
		return ok(out), nil
	}
	handles := map[snowflake.ID]string{}
	for key, id := range ids {
		if handle, isApp := strings.CutPrefix(key, "apps."); isApp && !strings.Contains(handle, ".") {
			handles[id] = handle
		}
	}
	// Every app of the world, those made in it after its spec too (they
	// have no handle: "app" is then their id).
	apps, err := a.Store.WorldApplications(ctx, req.World.ID)
	if err != nil {
		return Response{}, fmt.Errorf("world %v: its apps: %w", req.World.ID, err)
	}
	for _, id := range apps {
		handle, ok := handles[id]
		if !ok {
			handle = id.String()
		}
		for _, s := range a.BotSessions(id) {
			out = append(out, renderBotSession(s, handle))
		}
	}
	slices.SortStableFunc(out, func(x, y botSessionView) int {
		if c := strings.Compare(deref(x.IdentifiedAt), deref(y.IdentifiedAt)); c != 0 {
			return c
		}
		return strings.Compare(x.ID, y.ID)
	})
	return ok(out), nil
}

func renderBotSession(s BotSession, handle string) botSessionView {
	v := botSessionView{ID: s.ID, ApplicationID: s.ApplicationID, App: handle, Shard: [2]int{s.ShardID, max(s.Shards, 1)},
		Intents: s.Intents, IdentifiedAt: isoTime(s.IdentifiedAt), State: "connected"}
	if !s.Connected {
		v.State, v.DisconnectedAt = "resumable", isoTime(s.DisconnectedAt)
	}
	return v
}

// isoTime is t in the API's timestamp form, nil when zero.
func isoTime(t time.Time) *string {
	if t.IsZero() {
		return nil
	}
	s := t.UTC().Format("2006-01-02T15:04:05.000000+00:00")
	return &s
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
