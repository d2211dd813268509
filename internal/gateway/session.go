package gateway

import (
	"sync"
	"time"

	"github.com/slashd/slashd/internal/snowflake"
)

// session is an identified bot session: its sequence, the dispatches it
// keeps for resume, and the connection it is attached to (none while the
// client reconnects).
type session struct {
	id      string
	appID   snowflake.ID
	shardID int
	shards  int
	intents uint64
	limit   int // dispatches kept for resume

	mu         sync.Mutex
	owner      string        // the node holding its connection ("" or this node: ours)
	shadow     bool          // another node's session, kept for a resume here
	pending    bool          // ours, waiting for its start marker to come back on the bus
	started    chan struct{} // closed when pending ends
	seq        int64
	sent       int64 // the last dispatch the attached connection wrote
	buf        []entry
	conn       *conn
	leftAt     time.Time // when the last connection went away
	dead       bool      // invalidated: cannot be resumed
	identified time.Time // when it was identified (its READY)

	// A dispatch addressed to the session whose pieces are coming in.
	pieceID   string
	nextPiece int
	pieces    []byte
}

// entry is one dispatch kept for replay: its number, its type and its
// data, the data shared by every session the dispatch went to (a fan-out
// to 10,000 sessions keeps one copy, not 10,000 frames; the frame is
// written out at send time, appendFrame). Data is never changed once
// dispatched.
type entry struct {
	seq  int64
	t    string
	data []byte
}

// appendFrame appends the entry's frame, as dispatchFrame writes it, to b.
func (e entry) appendFrame(b []byte) []byte { return appendDispatchFrame(b, e.t, e.seq, e.data) }

func newSession(id string, appID snowflake.ID, shardID, shards int, intents uint64, limit int) *session {
	return &session{id: id, appID: appID, shardID: shardID, shards: shards, intents: intents, limit: limit,
		started: make(chan struct{})}
}

// newShadow mirrors another node's session from its start marker.
func newShadow(se sessionEvent, limit int) *session {
	s := newSession(se.Session, se.App, se.ShardID, se.Shards, se.Intents, limit)
	s.owner, s.shadow, s.seq, s.sent, s.identified = se.Node, true, se.Initial, se.Initial, se.At
	return s
}

// start ends the pending state: the session's marker is on the bus, and
// the events after it are the session's.
func (s *session) start() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.pending {
		s.pending = false
		close(s.started)
	}
}

func (s *session) isPending() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pending
}

// ownerNode returns the node holding the session, and whether that is
// another node.
func (s *session) ownerNode() (string, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.owner, s.shadow
}

// moveTo records that node now holds the session (a resume there); the
// connection this node had is returned to be closed.
func (s *session) moveTo(node string) *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	c := s.conn
	s.owner, s.shadow, s.conn, s.sent, s.leftAt = node, true, nil, s.seq, time.Time{}
	return c
}

// markLeft counts a shadow as disconnected since t (its node went
// silent), unless it already is.
func (s *session) markLeft(t time.Time) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.leftAt.IsZero() {
		s.leftAt = t
	}
}

// holds reports whether guildID belongs to this session's shard
// ((guild_id >> 22) % num_shards); events without a guild go to shard 0.
func (s *session) holds(guildID snowflake.ID) bool {
	if s.shards <= 1 {
		return true
	}
	return int((uint64(guildID)>>22)%uint64(s.shards)) == s.shardID
}

// dispatch numbers an event, keeps it and wakes the connection.
func (s *session) dispatch(t string, data []byte) {
	s.mu.Lock()
	s.seq++
	s.buf = append(s.buf, entry{seq: s.seq, t: t, data: data})
	if s.shadow {
		s.sent = s.seq // nothing to write here: keep only what a resume may ask for
	}
	s.trim()
	c := s.conn
	s.mu.Unlock()
	if c != nil {
		c.notify()
	}
}

// readySeq is READY's sequence number: a session's first dispatch.
const readySeq = 1

// numberReady numbers READY and returns its frame, without keeping it
// for replay: a client that can resume has had it (it carries the
// session id), and the other nodes' copies of the session start after
// it. Kept, it would be the largest thing an idle session holds.
func (s *session) numberReady(data []byte) []byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.seq = readySeq
	return dispatchFrame("READY", s.seq, data)
}

// assemble takes one piece of a dispatch addressed to the session and
// returns the dispatch's data once its last piece is in. Pieces come in
// order; a piece that does not follow the one before (its dispatch's
// first pieces went missing, or another dispatch began) is dropped, the
// same way on every node.
func (s *session) assemble(p dispatchPiece) ([]byte, bool) {
	if p.Pieces <= 1 {
		return p.Data, p.Piece == 0
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case p.Piece == 0:
		s.pieceID, s.nextPiece, s.pieces = p.ID, 0, nil
	case p.ID != s.pieceID || p.Piece != s.nextPiece:
		return nil, false
	}
	s.pieces = append(s.pieces, p.Data...)
	s.nextPiece++
	if s.nextPiece < p.Pieces {
		return nil, false
	}
	data := s.pieces
	s.pieceID, s.nextPiece, s.pieces = "", 0, nil
	return data, true
}

// trim forgets old dispatches: it keeps limit of them besides the newest
// (a resume's RESUMED), so that a client that missed limit gets them all,
// and never what the attached connection has yet to write, unless the
// buffer outgrows hardCap times that (the connection is then closed as
// too slow). It trims in chunks, so that a dispatch costs O(1) amortized.
func (s *session) trim() {
	keep := s.limit + 1
	if len(s.buf) < 2*keep {
		return
	}
	cut := len(s.buf) - keep
	if len(s.buf) < hardCap*keep {
		written := 0
		for written < len(s.buf) && s.buf[written].seq <= s.sent {
			written++
		}
		cut = min(cut, written)
		if cut < keep/2 {
			return
		}
	}
	s.buf = append([]entry(nil), s.buf[cut:]...)
}

// hardCap bounds a session's buffer, in multiples of what it keeps.
const hardCap = 8

// markSent records that the attached connection wrote up to seq.
func (s *session) markSent(seq int64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sent = max(s.sent, seq)
}

// since returns the dispatches after seq, and false when some of them are
// no longer kept.
func (s *session) since(seq int64) ([]entry, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if seq >= s.seq {
		return nil, true
	}
	if seq+1 < s.seq-int64(len(s.buf))+1 {
		return nil, false
	}
	n := int(s.seq - seq)
	out := make([]entry, n)
	copy(out, s.buf[len(s.buf)-n:])
	return out, true
}

// resume checks a resume from seq and, when it may, attaches c in the
// same critical section (so that no trim can fall between the check and
// the replay); it returns the connection c replaces, if any.
func (s *session) resume(c *conn, seq int64) (old *conn, refused resumeRefusal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	switch {
	case s.dead || s.pending:
		return nil, refuseInvalidSession
	case seq > s.seq || seq < 0:
		return nil, refuseInvalidSeq
	}
	// More than limit missed: refused whatever the buffer still holds, so
	// that RESUMED cannot trim what is to be replayed.
	if s.seq-seq > int64(s.limit) || seq < s.seq-int64(len(s.buf)) {
		return nil, refuseInvalidSession
	}
	old = s.conn
	s.conn, s.sent, s.leftAt = c, seq, time.Time{}
	s.owner, s.shadow = "", false
	return old, 0
}

type resumeRefusal int

const (
	refuseInvalidSession resumeRefusal = iota + 1
	refuseInvalidSeq
	refuseUnknownSession // not a session of this app that this node knows of
)

// attach makes c the session's connection and returns the one it
// replaces, if any.
func (s *session) attach(c *conn, seq int64) *conn {
	s.mu.Lock()
	defer s.mu.Unlock()
	old := s.conn
	s.conn, s.sent = c, seq
	return old
}

// detach lets go of c if it is still the session's connection; dead
// then invalidates the session (the client closed with 1000 or 1001, or
// timed out). It reports whether it let go of c, and whether the
// session ended. A connection the session was resumed away from changes
// nothing.
func (s *session) detach(c *conn, now time.Time, dead bool) (detached, ended bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.conn != c {
		return false, false
	}
	s.conn, s.leftAt = nil, now
	s.dead = s.dead || dead
	return true, s.dead
}

// state reports whether a connection holds the session and whether it
// is this node's (not a shadow).
func (s *session) state() (connected, ours bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conn != nil, !s.shadow
}

// expired reports whether the session can be forgotten.
func (s *session) expired(now time.Time, window time.Duration) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.conn == nil && (s.dead || (!s.leftAt.IsZero() && now.Sub(s.leftAt) > window))
}
