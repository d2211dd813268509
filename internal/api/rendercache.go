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

type listEntry struct {
	version uint64
	body    []byte
}

// listCache keeps rendered command lists, each under the version of the
// list it rendered (cache.Store.VersionedCommands): every write of the
// scope gives its list a new version, so an entry is served only for
// the very list it was made from. Bounded by bytes, in two generations
// as cache is.
type listCache struct {
	mu        sync.Mutex
	limit     int
	cur, prev map[listKey]listEntry
	curBytes  int
}

func newListCache(limit int) *listCache {
	if limit <= 0 {
		limit = cachepkg.DefaultCommandBytes
	}
	return &listCache{limit: limit, cur: map[listKey]listEntry{}}
}

func (c *listCache) get(k listKey, version uint64) ([]byte, bool) {
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

func (c *listCache) put(k listKey, version uint64, body []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(k, listEntry{version: version, body: body})
}

func (c *listCache) putLocked(k listKey, e listEntry) {
	n := len(e.body) + 64
	if 2*n > c.limit {
		return
	}
	if old, ok := c.cur[k]; ok {
		c.curBytes -= len(old.body) + 64
	}
	if c.curBytes+n > c.limit/2 {
		c.prev, c.cur, c.curBytes = c.cur, map[listKey]listEntry{}, 0
	}
	delete(c.prev, k)
	c.cur[k] = e
	c.curBytes += n
}
