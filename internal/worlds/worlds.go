// Package worlds applies test world specs (internal/world) to a store:
// create, read, reset. It is the one place the admin API
// (POST /admin/v1/worlds, …) and `slashd serve --world FILE` make worlds,
// so both refuse a spec alike.
package worlds

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/world"
)

// Env is what applying a spec needs.
type Env struct {
	Store store.Store
	IDs   func() snowflake.ID
	Rand  io.Reader
	Now   func() time.Time
}

// ErrNameTaken is the refusal of a spec whose name another world has.
func ErrNameTaken() error {
	return apierr.Invalid(world.CodeNameTaken, world.MsgNameTaken, "name")
}

// IsNameTaken reports whether err is ErrNameTaken's refusal.
func IsNameTaken(err error) bool {
	e, ok := apierr.As(err)
	if !ok || e.Fields == nil {
		return false
	}
	for _, l := range e.Fields.Child("name").Leaves() {
		if l.Code == world.CodeNameTaken {
			return true
		}
	}
	return false
}

// Object is a world as the admin API answers it: its own fields, then
// every id and credential keyed by handle.
type Object struct {
	ID        snowflake.ID `json:"id"`
	Name      string       `json:"name"`
	CreatedAt time.Time    `json:"created_at"`
	UpdatedAt time.Time    `json:"updated_at"`
	// Default: the node's default world, which creates naming no
	// world_id join (the first start's demo).
	Default bool  `json:"default"`
	Clock   Clock `json:"clock"`
	world.View
}

// Clock is a world's clock: how far it is ahead and what time it is there.
type Clock struct {
	OffsetMS int64     `json:"offset_ms"`
	Now      time.Time `json:"now"`
}

// Create decodes a spec (a decoded JSON or YAML object), plans it and
// stores it in one transaction. A name already taken is ErrNameTaken.
func Create(ctx context.Context, env Env, body any) (store.TestWorld, error) {
	return create(ctx, env, body, false)
}

// CreateDefault is Create of the node's default world (the first
// start's demo, internal/bootstrap): the world the admin API's and the
// CLI's creates join when they name no world. The store refuses a second
// default world (ErrConflict).
func CreateDefault(ctx context.Context, env Env, body any) (store.TestWorld, error) {
	return create(ctx, env, body, true)
}

func create(ctx context.Context, env Env, body any, isDefault bool) (store.TestWorld, error) {
	spec, err := world.Decode(body)
	if err != nil {
		return store.TestWorld{}, err
	}
	if _, err := env.Store.TestWorldByName(ctx, spec.Name); err == nil {
		return store.TestWorld{}, ErrNameTaken()
	} else if !errors.Is(err, store.ErrNotFound) {
		return store.TestWorld{}, err
	}
	raw, err := jsonenc.Marshal(body)
	if err != nil {
		return store.TestWorld{}, fmt.Errorf("encode world spec: %w", err)
	}
	now := env.Now().UTC()
	w := store.TestWorld{ID: env.IDs(), Name: spec.Name, Spec: raw, Default: isDefault, CreatedAt: now, UpdatedAt: now}
	plan, st, err := world.Plan(spec, w.ID, world.State{}, world.Sources{IDs: env.IDs, Rand: env.Rand, Now: now})
	if err != nil {
		return store.TestWorld{}, err
	}
	if w.Handles, w.Credentials, err = encodeState(st); err != nil {
		return store.TestWorld{}, err
	}
	if err := env.Store.CreateWorld(ctx, w, plan); errors.Is(err, store.ErrConflict) && !isDefault {
		return store.TestWorld{}, ErrNameTaken()
	} else if err != nil {
		return store.TestWorld{}, err
	}
	return w, nil
}

// Reset puts a world back to its spec, keeping its ids and credentials.
func Reset(ctx context.Context, env Env, w store.TestWorld) (store.TestWorld, error) {
	spec, st, err := Load(w)
	if err != nil {
		return w, err
	}
	now := env.Now().UTC()
	plan, next, err := world.Plan(spec, w.ID, st, world.Sources{IDs: env.IDs, Rand: env.Rand, Now: now})
	if err != nil {
		return w, err
	}
	if w.Handles, w.Credentials, err = encodeState(next); err != nil {
		return w, err
	}
	w.UpdatedAt = now
	return w, env.Store.ResetWorld(ctx, w, plan)
}

func encodeState(st world.State) (handles, credentials []byte, err error) {
	if handles, err = jsonenc.Marshal(st.IDs); err != nil {
		return nil, nil, fmt.Errorf("encode world ids: %w", err)
	}
	if credentials, err = jsonenc.Marshal(st.Secrets); err != nil {
		return nil, nil, fmt.Errorf("encode world credentials: %w", err)
	}
	return handles, credentials, nil
}

// Load reads a stored world's spec and state.
func Load(w store.TestWorld) (world.Spec, world.State, error) {
	body, err := form.DecodeJSON(w.Spec)
	if err != nil {
		return world.Spec{}, world.State{}, fmt.Errorf("world %d: stored spec: %w", w.ID, err)
	}
	spec, err := world.Decode(body)
	if err != nil {
		return world.Spec{}, world.State{}, fmt.Errorf("world %d: stored spec: %w", w.ID, err)
	}
	var st world.State
	if err := json.Unmarshal(w.Handles, &st.IDs); err != nil {
		return spec, st, fmt.Errorf("world %d: stored ids: %w", w.ID, err)
	}
	if err := json.Unmarshal(w.Credentials, &st.Secrets); err != nil {
		return spec, st, fmt.Errorf("world %d: stored credentials: %w", w.ID, err)
	}
	return spec, st, nil
}

// ObjectOf renders a stored world; now is the real time (the world's
// clock adds its offset).
func ObjectOf(w store.TestWorld, now time.Time) (Object, error) {
	spec, st, err := Load(w)
	if err != nil {
		return Object{}, err
	}
	return Object{ID: w.ID, Name: w.Name, CreatedAt: w.CreatedAt, UpdatedAt: w.UpdatedAt, Default: w.Default,
		Clock: Clock{OffsetMS: w.ClockOffset.Milliseconds(), Now: now.Add(w.ClockOffset).UTC()},
		View:  world.ViewOf(spec, st)}, nil
}
