package api

import (
	"sync"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/snowflake"
	cachepkg "github.com/slashd/slashd/internal/store/cache"
)

// renderKey names one rendering of one command version: a stored body
// never changes without its version changing, so entries never go stale
// and need no invalidation, on one node or many.
type renderKey struct {
	id, version snowflake.ID
	locale      string
}

// versionKey names one version of one command.
type versionKey struct{ id, version snowflake.ID }

// cache keeps recently used immutable values. It has two generations:
// lookups check the current and the previous one (promoting hits); when
// the current one fills half the capacity it becomes the previous one.
// Memory stays bounded with no per-entry bookkeeping.
type cache[K comparable, V any] struct {
	mu       sync.Mutex
	capacity int
	cur      map[K]V
	prev     map[K]V
}

func newCache[K comparable, V any](capacity int) *cache[K, V] {
	return &cache[K, V]{capacity: capacity, cur: map[K]V{}}
}

func (c *cache[K, V]) get(k K) (V, bool) {
	var zero V
	if c.capacity <= 0 {
		return zero, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v, ok := c.cur[k]; ok {
		return v, true
	}
	if v, ok := c.prev[k]; ok {
		c.putLocked(k, v)
		return v, true
	}
	return zero, false
}

func (c *cache[K, V]) put(k K, v V) {
	if c.capacity <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(k, v)
}

func (c *cache[K, V]) putLocked(k K, v V) {
	if len(c.cur) >= c.capacity/2 {
		c.prev, c.cur = c.cur, make(map[K]V, c.capacity/2)
	}
	c.cur[k] = v
}

// listKey names one rendering of a scope's command list.
type listKey struct {
	scope   command.Scope
	locale  string
	withLoc bool
}

// bodyCache keeps rendered bodies, each under the version (or stamp)
// of what it was rendered from: an entry is served only for that very
// version, so nothing is ever invalidated here; a new version renders
// anew and replaces the entry. Bounded by bytes, in two generations as
// cache is. It keeps the rendered command lists, under the version of
// the list (cache.Store.VersionedCommands): every write of the scope
// gives its list a new version; and the rendered GUILD_CREATEs, under
// the stamps of the member's view they show (guildCreateKey).
type bodyCache[K, V comparable] struct {
	mu        sync.Mutex
	limit     int
	cur, prev map[K]bodyEntry[V]
	curBytes  int
}

type bodyEntry[V comparable] struct {
	version V
	body    []byte
}

// bodyOverhead is an entry's cost beside its body (key, version, map
// slot): what keeps a cache of small bodies bounded too.
const bodyOverhead = 64

func newBodyCache[K, V comparable](limit int) *bodyCache[K, V] {
	if limit <= 0 {
		limit = cachepkg.DefaultCommandBytes
	}
	return &bodyCache[K, V]{limit: limit, cur: map[K]bodyEntry[V]{}}
}

func (c *bodyCache[K, V]) get(k K, version V) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.cur[k]
	if !ok {
		if e, ok = c.prev[k]; ok {
			delete(c.prev, k)
			c.putLocked(k, e)
		}
	}
	if !ok || e.version != version {
		return nil, false
	}
	return e.body, true
}

func (c *bodyCache[K, V]) put(k K, version V, body []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(k, bodyEntry[V]{version: version, body: body})
}

func (c *bodyCache[K, V]) putLocked(k K, e bodyEntry[V]) {
	n := len(e.body) + bodyOverhead
	if 2*n > c.limit {
		return
	}
	if old, ok := c.cur[k]; ok {
		c.curBytes -= len(old.body) + bodyOverhead
	}
	if c.curBytes+n > c.limit/2 {
		c.prev, c.cur, c.curBytes = c.cur, map[K]bodyEntry[V]{}, 0
	}
	delete(c.prev, k)
	c.cur[k] = e
	c.curBytes += n
}
