package api

import (
	"sync"

	"github.com/slashd/slashd/internal/snowflake"
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
