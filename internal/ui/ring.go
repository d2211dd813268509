package ui

// ring keeps the last size values pushed: the log's entries, the events
// that came before their entry, the refusals shown to chats. Memory stays
// bounded however long the server runs.
type ring[T any] struct {
	size  int
	items []T // in push order until full; then next is the oldest
	next  int
}

func newRing[T any](size int) ring[T] { return ring[T]{size: size} }

// push keeps v, dropping the oldest value once full.
func (r *ring[T]) push(v T) {
	if len(r.items) < r.size {
		r.items = append(r.items, v)
		return
	}
	r.items[r.next] = v
	r.next = (r.next + 1) % r.size
}

// len is how many values are kept.
func (r *ring[T]) len() int { return len(r.items) }

// at is the i-th value kept, oldest first, for changing in place.
func (r *ring[T]) at(i int) *T { return &r.items[(r.next+i)%len(r.items)] }
