package fault

import (
	"context"
	"errors"
	"log/slog"
	"sync/atomic"

	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/metrics"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// EventChanged is the bus event a node publishes after it changed the
// faults (created, deleted, or spent one): every node then reloads its
// live faults. It carries no data and no gateway session sees it.
const EventChanged = "SLASHD_FAULTS_CHANGED"

// FiredFunc is told of every firing (the world's journal implements it):
// the fault as its firing left it and a word on what was done.
type FiredFunc func(ctx context.Context, worldID snowflake.ID, f store.Fault, detail string)

// Target is what an edge is about to do, as faults match it: the app of
// a world (a request's token, a delivery, a gateway session), with the
// REST route ("METHOD /path" as NormalizeRoute writes it), the gateway
// session id and the dispatch type when there are.
type Target struct {
	World   snowflake.ID
	App     snowflake.ID
	Route   string
	Session string
	Event   string
}

// Engine holds a node's live faults and fires them. Its reads are a
// pointer load: a node whose worlds have no fault pays nothing else per
// request.
type Engine struct {
	store Store
	bus   event.Bus
	log   *slog.Logger
	fired *metrics.CounterVec
	hook  atomic.Pointer[FiredFunc]
	// live is the snapshot: world → its live faults, by id.
	live atomic.Pointer[map[snowflake.ID][]compiled]
	// reloaded is called after each reload (the gateway applies new
	// faults to the sessions it holds).
	reloaded atomic.Pointer[func(context.Context)]
}

// OnReload sets what runs after each reload.
func (e *Engine) OnReload(f func(ctx context.Context)) { e.reloaded.Store(&f) }

type compiled struct {
	store.Fault
	params Params
}

// NewEngine makes an engine over st, counting firings in reg (nil: not
// counted). Call Reload before use and Watch to follow other nodes.
func NewEngine(st Store, bus event.Bus, log *slog.Logger, reg *metrics.Registry) *Engine {
	e := &Engine{store: st, bus: bus, log: log}
	if reg != nil {
		e.fired = reg.Counter("slashd_faults_fired_total", "Test worlds' faults fired, by kind.", "kind")
	}
	empty := map[snowflake.ID][]compiled{}
	e.live.Store(&empty)
	return e
}

// OnFired sets the journal's hook (nil: none).
func (e *Engine) OnFired(f FiredFunc) {
	if f == nil {
		e.hook.Store(nil)
		return
	}
	e.hook.Store(&f)
}

// Any reports whether any world has a live fault on this node's view.
func (e *Engine) Any() bool { return len(*e.live.Load()) > 0 }

// InWorld reports whether world has a live fault.
func (e *Engine) InWorld(world snowflake.ID) bool {
	return world != 0 && len((*e.live.Load())[world]) > 0
}

// Reload reads the live faults from the store.
func (e *Engine) Reload(ctx context.Context) error {
	all, err := e.store.LiveFaults(ctx)
	if err != nil {
		return err
	}
	m := map[snowflake.ID][]compiled{}
	for _, f := range all {
		m[f.WorldID] = append(m[f.WorldID], compiled{Fault: f, params: DecodeParams(f)})
	}
	e.live.Store(&m)
	if f := e.reloaded.Load(); f != nil && len(m) > 0 {
		(*f)(ctx)
	}
	return nil
}

// Changed reloads this node's faults and tells the others to.
func (e *Engine) Changed(ctx context.Context) error {
	err := e.Reload(ctx)
	if e.bus != nil {
		e.bus.Publish(ctx, event.Event{Type: EventChanged})
	}
	return err
}

// Watch reloads on every EventChanged (and after a gap in the bus) until
// ctx ends.
func (e *Engine) Watch(ctx context.Context) {
	if e.bus == nil {
		return
	}
	ch := e.bus.Subscribe(ctx, 256)
	go func() {
		for ev := range ch {
			if ev.Type != EventChanged && !ev.AfterGap {
				continue
			}
			if err := e.Reload(ctx); err != nil && ctx.Err() == nil {
				e.log.Warn("faults: reload", "err", err)
			}
		}
	}()
}

// Fired is a fault that fired, with its parameters.
type Fired struct {
	store.Fault
	Params Params
}

// Fire finds the first live fault of t's world of one of kinds that
// matches t and fires (see store.Faults.MatchFault), counts and logs the
// firing and calls the hook with detail's word on what was hit (made
// only then). ok is false when none fired.
func (e *Engine) Fire(ctx context.Context, t Target, detail func() string, kinds []string) (Fired, bool) {
	if t.World == 0 {
		return Fired{}, false
	}
	faults := (*e.live.Load())[t.World]
	for i := range faults {
		c := &faults[i] // not a copy: the snapshot is read only
		if !c.matches(t, kinds) {
			continue
		}
		seed, p := c.Seed, c.Probability
		f, fired, err := e.store.MatchFault(ctx, c.ID, func(n int64) bool { return Fires(seed, p, n) })
		if errors.Is(err, store.ErrNotFound) || (err == nil && !f.Live()) {
			// Deleted or spent (here or on another node): forget it now.
			e.forget(ctx)
		}
		if err != nil {
			if !errors.Is(err, store.ErrNotFound) {
				e.log.Warn("faults: match", "fault", c.ID, "err", err)
			}
			continue
		}
		if !fired {
			continue
		}
		what := detail()
		e.log.Info("fault fired", "world", t.World, "fault", f.ID, "kind", f.Kind, "app", t.App,
			"route", t.Route, "session", t.Session, "detail", what)
		if e.fired != nil {
			e.fired.With(f.Kind).Inc()
		}
		if h := e.hook.Load(); h != nil {
			(*h)(ctx, t.World, f, what)
		}
		return Fired{Fault: f, Params: c.params}, true
	}
	return Fired{}, false
}

// forget reloads after a fault was spent or deleted, and tells the other
// nodes (in the background: the firing edge does not wait for it).
func (e *Engine) forget(ctx context.Context) {
	go func() {
		if err := e.Changed(context.WithoutCancel(ctx)); err != nil {
			e.log.Warn("faults: reload", "err", err)
		}
	}()
}

func (c *compiled) matches(t Target, kinds []string) bool {
	match := false
	for _, k := range kinds {
		if c.Kind == k {
			match = true
			break
		}
	}
	switch {
	case !match:
		return false
	case c.AppID != 0 && c.AppID != t.App:
		return false
	case c.Route != "" && c.Route != t.Route:
		return false
	case c.Session != "" && c.Session != t.Session:
		return false
	case c.params.Event != "" && c.params.Event != t.Event:
		return false
	}
	return true
}

// Store is what the engine reads and fires faults through.
type Store = store.Faults
