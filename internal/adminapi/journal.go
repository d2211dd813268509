package adminapi

import (
	"context"
	"errors"
	"strconv"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/journal"
)

// worldEvents is GET /admin/v1/worlds/{world}/events?after=&wait=&type=&limit=:
// the world's journal after the cursor, long-polled up to wait when
// nothing is after it (docs/journal.md).
func (a *API) worldEvents(ctx context.Context, req *Request) (Response, error) {
	if a.ReadJournal == nil {
		return Response{}, errors.New("the journal is not served")
	}
	q, err := journalQuery(req)
	if err != nil {
		return Response{}, err
	}
	q.World = req.World.ID
	page, err := a.ReadJournal(ctx, q)
	if err != nil {
		return Response{}, err
	}
	return ok(journal.PageJSON(page)), nil
}

// journalQuery reads the query string; each bad parameter is a form
// error at its name.
func journalQuery(req *Request) (journal.Query, error) {
	v := req.HTTP.URL.Query()
	var q journal.Query
	f := &apierr.Fields{}
	var err error
	if q.After, err = journal.ParseCursor(v.Get("after")); err != nil {
		f.At("after").Add("CURSOR_INVALID", "Not a cursor this journal gave.")
	}
	if q.Wait, err = journal.ParseWait(v.Get("wait")); err != nil {
		f.At("wait").Add("DURATION_INVALID", "Must be a duration (10s, 500ms) or seconds, at most 50s counted.")
	}
	if q.Types, q.FailuresOnly, err = journal.ParseTypes(v.Get("type")); err != nil {
		f.At("type").Add("EVENT_TYPE_INVALID", err.Error()+".")
	}
	if raw := v.Get("limit"); raw != "" {
		n, err := strconv.Atoi(raw)
		if err != nil || n < 1 || n > journal.MaxLimit {
			f.At("limit").Add("NUMBER_TYPE_MAX", "Must be between 1 and "+strconv.Itoa(journal.MaxLimit)+".")
		}
		q.Limit = n
	}
	return q, f.Err()
}
