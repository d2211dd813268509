package adminapi

import (
	"context"
	"time"

	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/worlds"
)

// maxClockAdvance bounds one move of a world's clock (a leap year).
const maxClockAdvance = 366 * 24 * time.Hour

// advanceClock is POST /worlds/{world}/clock {"advance": "15m"}: the
// world's time moves ahead (never back) for everything that reads time
// for its principals (internal/worldclock): interaction tokens, the
// answer window, rate-limit windows, the daily create limit, Bearer
// tokens' expiry, OAuth2 codes' lifetime. Other worlds keep theirs. It answers
// the clock.
func (a *API) advanceClock(ctx context.Context, req *Request) (Response, error) {
	f := req.Form
	f.Require("advance")
	var by time.Duration
	if s, ok := f.Str("advance"); ok {
		d, err := time.ParseDuration(s)
		switch {
		case err != nil:
			f.At("advance").Add("DURATION_INVALID", `Must be a duration such as "90s", "15m" or "24h".`)
		case d <= 0 || d > maxClockAdvance:
			f.At("advance").Add(form.CodeNumberMax, "Must be more than 0s and at most 8784h: a clock never goes back.")
		}
		by = d
	}
	if err := f.Err(); err != nil {
		return Response{}, err
	}
	// Added in the store: two advances racing on two nodes both count.
	offset, err := a.Store.AdvanceWorldClock(ctx, req.World.ID, by.Truncate(time.Millisecond))
	if err != nil {
		return Response{}, store.NotFoundAs(err, errUnknownWorld)
	}
	a.Logger.Info("world clock moved", "world", req.World.ID, "name", req.World.Name, "by", by, "offset", offset)
	return ok(worlds.Clock{OffsetMS: offset.Milliseconds(), Now: a.Now().UTC().Add(offset)}), nil
}
