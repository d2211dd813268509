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

// renderCache keeps recently rendered list items. It is a two-generation
// cache: lookups check the current and the previous generation (promoting
// hits); when the current one fills half the capacity it becomes the
// previous one. Memory stays bounded with no per-entry bookkeeping.
type renderCache struct {
	mu       sync.Mutex
	capacity int
	cur      map[renderKey][]byte
	prev     map[renderKey][]byte
}

func newRenderCache(capacity int) *renderCache {
	return &renderCache{capacity: capacity, cur: map[renderKey][]byte{}}
}

func (c *renderCache) get(k renderKey) ([]byte, bool) {
	if c.capacity <= 0 {
		return nil, false
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if b, ok := c.cur[k]; ok {
		return b, true
	}
	if b, ok := c.prev[k]; ok {
		c.putLocked(k, b)
		return b, true
	}
	return nil, false
}

func (c *renderCache) put(k renderKey, b []byte) {
	if c.capacity <= 0 {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.putLocked(k, b)
}

func (c *renderCache) putLocked(k renderKey, b []byte) {
	if len(c.cur) >= c.capacity/2 {
		c.prev, c.cur = c.cur, make(map[renderKey][]byte, c.capacity/2)
	}
	c.cur[k] = b
}
