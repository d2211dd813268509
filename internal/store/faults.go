package store

import (
	"time"

	"github.com/slashd/slashd/internal/snowflake"
)

// Fault is a test world's fault (docs/faults.md): something slashd does
// wrong on purpose to the world's apps. Its kind and parameters are
// internal/fault's; the store keeps them and counts the firings.
type Fault struct {
	ID      snowflake.ID
	WorldID snowflake.ID
	Kind    string
	// The target: an app of the world, a route pattern (REST faults),
	// a gateway session id; zero values match any.
	AppID   snowflake.ID
	Route   string
	Session string
	Params  []byte // the kind's parameters, JSON
	// Count is how many times the fault fires, Remaining how many of
	// those are left. With Probability > 0 a match fires when the
	// fault's seeded sequence says so (Matched numbers the matches), and
	// Count 0 means without end.
	Count, Remaining int64
	Probability      float64
	Seed             int64
	Matched, Fired   int64
	CreatedAt        time.Time
}

// Live reports whether the fault may still fire.
func (f Fault) Live() bool { return f.Count == 0 || f.Remaining > 0 }
