package adminapi

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/slashd/slashd/internal/admin"
	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/fault"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// errUnknownFault: as errUnknownWorld, a 404 in the real service's
// "Unknown …" range, which it does not use for anything (docs/compat.md).
var errUnknownFault = apierr.New(http.StatusNotFound, 10000, "Unknown Fault")

// faultRoutes are a world's faults (docs/faults.md).
func (a *API) faultRoutes(world string) []route {
	faults := world + "/faults"
	return []route{
		{"POST", faults, on(theWorld), withBody, a.createFault},
		{"GET", faults, on(theWorld), noBody, a.listFaults},
		{"DELETE", faults, on(theWorld), noBody, a.clearFaults},
		{"DELETE", faults + "/{fault}", on(theWorld), noBody, a.deleteFault},
	}
}

// createFault is POST …/faults: the fault checked (50035 at the field),
// its app resolved among the world's (a handle of the world's spec, or
// an id of one of its apps), stored unless the world has its cap of
// faults already (50035 at the body's root), and every node told.
func (a *API) createFault(ctx context.Context, req *Request) (Response, error) {
	spec := fault.Parse(req.Form)
	var appID snowflake.ID
	if spec.App != "" {
		var err error
		if appID, err = a.worldApp(ctx, req.World, spec.App); errors.Is(err, store.ErrNotFound) {
			req.Form.At("app").Add(admin.CodeUnknownApp, "Unknown Application: no app of this world has that handle or id")
		} else if err != nil {
			return Response{}, err
		}
	}
	if err := req.Form.Err(); err != nil {
		return Response{}, err
	}
	params, err := json.Marshal(spec.Params)
	if err != nil {
		return Response{}, err
	}
	f := store.Fault{ID: a.nextID(), WorldID: req.World.ID, Kind: spec.Kind, AppID: appID, Route: spec.Route,
		Session: spec.Session, Params: params, Count: spec.Count, Remaining: spec.Count,
		Probability: spec.Prob, Seed: spec.Seed, CreatedAt: a.Now().UTC()}
	limit := a.maxFaults()
	if err := a.Store.CreateFault(ctx, f, limit); errors.Is(err, store.ErrLimit) {
		return Response{}, apierr.Invalid(fault.CodeTooMany, fmt.Sprintf("A world has at most %d faults, spent ones "+
			"included: delete some (DELETE …/faults/{fault.id}, or …/faults for all) first", limit))
	} else if err != nil {
		return Response{}, err
	}
	return created(fault.Render(f)), a.faultsChanged(ctx)
}

// maxFaults is the cap on a world's faults.
func (a *API) maxFaults() int {
	if a.MaxFaults > 0 {
		return a.MaxFaults
	}
	return fault.DefaultMaxPerWorld
}

// worldApp finds an app of world w by handle (apps.HANDLE of its ids by
// handle path, world.State) or id.
func (a *API) worldApp(ctx context.Context, w store.TestWorld, ref string) (snowflake.ID, error) {
	var ids map[string]snowflake.ID
	if err := json.Unmarshal(w.Handles, &ids); err != nil {
		return 0, fmt.Errorf("world %v: stored ids: %w", w.ID, err)
	}
	if id, ok := ids["apps."+ref]; ok {
		return id, nil
	}
	id, err := snowflake.Parse(ref)
	if err != nil || id == 0 {
		return 0, store.ErrNotFound
	}
	app, err := a.Store.Application(ctx, id)
	if err != nil {
		return 0, err
	}
	if app.WorldID != w.ID {
		return 0, store.ErrNotFound // another world's app is unknown here
	}
	return id, nil
}

func (a *API) listFaults(ctx context.Context, req *Request) (Response, error) {
	fs, err := a.Store.WorldFaults(ctx, req.World.ID)
	if err != nil {
		return Response{}, err
	}
	out := make([]fault.View, len(fs))
	for i, f := range fs {
		out[i] = fault.Render(f)
	}
	return ok(out), nil
}

func (a *API) deleteFault(ctx context.Context, req *Request) (Response, error) {
	id, err := snowflake.Parse(req.HTTP.PathValue("fault"))
	if err != nil {
		return Response{}, errUnknownFault
	}
	if err := a.Store.DeleteFault(ctx, req.World.ID, id); err != nil {
		return Response{}, store.NotFoundAs(err, errUnknownFault)
	}
	return noContent, a.faultsChanged(ctx)
}

func (a *API) clearFaults(ctx context.Context, req *Request) (Response, error) {
	if _, err := a.Store.DeleteWorldFaults(ctx, req.World.ID); err != nil {
		return Response{}, err
	}
	return noContent, a.faultsChanged(ctx)
}

// faultsChanged tells this node's fault engine, and through it the
// others, that the faults changed.
func (a *API) faultsChanged(ctx context.Context) error {
	if a.FaultsChanged == nil {
		return nil
	}
	return a.FaultsChanged(ctx)
}
