package adminapi

import (
	"context"
	"errors"
	"io"
	"mime"
	"net/http"
	"strings"

	"github.com/slashd/slashd/internal/admin"
	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/world"
	"github.com/slashd/slashd/internal/worlds"
)

// errUnknownWorld: the real service has no worlds, so no code of its
// own; 10000 is the start of its "Unknown …" range, which it does not
// use (docs/compat.md).
var errUnknownWorld = apierr.New(http.StatusNotFound, 10000, "Unknown World")

// theWorld is the {world} of a path: a world's id, or its name (a name is
// never all digits, so the two never collide).
var theWorld = lookup{errUnknownWorld, func(ctx context.Context, a *API, req *Request) error {
	raw := req.HTTP.PathValue("world")
	var err error
	if id, perr := snowflake.Parse(raw); perr == nil && id != 0 {
		req.World, err = a.Store.TestWorld(ctx, id)
	} else if world.ValidName(raw) {
		req.World, err = a.Store.TestWorldByName(ctx, raw)
	} else {
		err = store.ErrNotFound
	}
	return err
}}

// maxSpecBytes caps a YAML spec (a JSON one has the server's body cap).
const maxSpecBytes = 1 << 20

// isYAML reports whether a request's body is labelled YAML.
func isYAML(r *http.Request) bool {
	mt, _, err := mime.ParseMediaType(r.Header.Get("Content-Type"))
	if err != nil {
		return false
	}
	mt = strings.ToLower(mt)
	return mt == "application/yaml" || mt == "text/yaml" || mt == "application/x-yaml"
}

// specBody reads a world spec: JSON, or YAML by its Content-Type, each
// into the same generic values.
func (a *API) specBody(w http.ResponseWriter, r *http.Request) (admin.Form, map[string]any, error) {
	var v any
	if isYAML(r) {
		raw, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxSpecBytes))
		var tooBig *http.MaxBytesError
		if errors.As(err, &tooBig) {
			return admin.Form{}, nil, apierr.New(http.StatusRequestEntityTooLarge, apierr.CodeRequestTooLarge, "Request entity too large")
		}
		if err != nil {
			return admin.Form{}, nil, err
		}
		if v, err = world.FromYAML(raw); err != nil {
			return admin.Form{}, nil, apierr.New(http.StatusBadRequest, apierr.CodeInvalidJSON, "The request body contains invalid YAML.")
		}
	} else {
		var err error
		if v, err = a.ReadBody(w, r); err != nil {
			return admin.Form{}, nil, err
		}
	}
	m, ok := v.(map[string]any)
	if !ok {
		return admin.Form{}, nil, apierr.Invalid(form.CodeModelConvert, form.MsgModelConvert)
	}
	return admin.NewForm(m), m, nil
}

func (a *API) worldsEnv() worlds.Env {
	return worlds.Env{Store: a.Store, IDs: a.nextID, Rand: a.Rand, Now: a.Now}
}

// worldObject renders a world as the admin API answers it.
func (a *API) worldObject(w store.TestWorld) (worlds.Object, error) {
	return worlds.ObjectOf(w, a.Now())
}

// createWorld is POST /admin/v1/worlds: a world from a spec, in one
// transaction (docs/worlds.md).
func (a *API) createWorld(ctx context.Context, req *Request) (Response, error) {
	w, err := worlds.Create(ctx, a.worldsEnv(), req.Body)
	if err != nil {
		return Response{}, err
	}
	obj, err := a.worldObject(w)
	return created(obj), err
}

func (a *API) listWorlds(ctx context.Context, _ *Request) (Response, error) {
	ws, err := a.Store.TestWorldList(ctx)
	if err != nil {
		return Response{}, err
	}
	out := make([]worlds.Object, 0, len(ws))
	for _, w := range ws {
		obj, err := a.worldObject(w)
		if err != nil {
			return Response{}, err
		}
		out = append(out, obj)
	}
	return ok(out), nil
}

func (a *API) getWorld(_ context.Context, req *Request) (Response, error) {
	obj, err := a.worldObject(req.World)
	return ok(obj), err
}

func (a *API) deleteWorld(ctx context.Context, req *Request) (Response, error) {
	apps, err := a.Store.WorldApplications(ctx, req.World.ID)
	if err != nil {
		return Response{}, err
	}
	if err := a.Store.DeleteWorld(ctx, req.World.ID); err != nil {
		return Response{}, err
	}
	// Its apps' bots leave the gateway on every node, as bots whose
	// tokens were revoked.
	if a.AppsDeleted != nil && len(apps) > 0 {
		a.AppsDeleted(ctx, apps)
	}
	// Its faults went with it: the nodes stop looking for them.
	return noContent, a.faultsChanged(ctx)
}

// resetWorld is POST /admin/v1/worlds/{world}/reset: the world as its
// spec made it, with the same ids and credentials (a connected bot stays
// connected).
func (a *API) resetWorld(ctx context.Context, req *Request) (Response, error) {
	w, err := worlds.Reset(ctx, a.worldsEnv(), req.World)
	if err != nil {
		return Response{}, err
	}
	obj, err := a.worldObject(w)
	return ok(obj), err
}

// exportWorld is GET /admin/v1/worlds/{world}/export: the world as it
// is now, as a spec that makes it again (docs/worlds.md, "Export and
// import"); ?messages=true adds its messages.
func (a *API) exportWorld(ctx context.Context, req *Request) (Response, error) {
	var o worlds.ExportOptions
	switch raw := req.HTTP.URL.Query().Get("messages"); strings.ToLower(raw) {
	case "", "false", "0":
	case "true", "1":
		o.Messages = true
	default:
		return Response{}, apierr.Invalid(form.CodeBoolConvert, form.MsgBoolConvert, "messages")
	}
	doc, err := worlds.Export(ctx, a.Store, req.World, o)
	return ok(doc), err
}

// worldField reads a create request's optional "world_id" (see
// admin.WorldField): absent or null, the node's default world (the
// first start's demo, else 0); a world that does not exist is
// UNKNOWN_WORLD there.
func (a *API) worldField(ctx context.Context, f admin.Form) (snowflake.ID, error) {
	id, given := admin.WorldField(f)
	if !given {
		return a.Store.DefaultWorld(ctx)
	}
	if id == 0 {
		return 0, nil
	}
	_, err := a.Store.TestWorld(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		f.At("world_id").Add("UNKNOWN_WORLD", "Unknown World")
		return id, nil
	}
	return id, err
}
