package gateway

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/coder/websocket"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/ratelimit"
	"github.com/slashd/slashd/internal/snowflake"
)

// Supported API versions: the real gateway's current ones.
var apiVersions = map[string]bool{"6": true, "7": true, "8": true, "9": true, "10": true}

// writeTimeout bounds one write to a client.
const writeTimeout = 10 * time.Second

// conn is one websocket connection. The goroutine serving the request
// reads what the client sends. Writes are done by a flush goroutine that
// exists only while there is something to write: it is started when a
// frame is queued and none is running, writes the queued control frames,
// then the attached session's new dispatches, and ends when nothing is
// left. One flusher at a time keeps a zlib stream in order, and a slow
// client only holds up its own flusher. An idle connection so costs one
// goroutine, not two.
type conn struct {
	g       *Gateway
	ws      *websocket.Conn
	version int
	url     string     // resume_gateway_url
	packer  compressor // nil: plain text frames

	ctx    context.Context
	cancel context.CancelFunc

	mu       sync.Mutex
	ctrl     [][]byte
	sess     *session
	sentSeq  int64
	flushing bool  // a flush goroutine is running (or the connection is done writing)
	dirty    bool  // something was queued since the flusher last looked
	watch    Timer // closes the connection when heartbeats stop
	// identifyWatch closes the connection when no IDENTIFY or RESUME
	// came within IdentifyTimeout; identifying says one is being
	// answered (a slow store does not turn it into a timeout).
	identifyWatch Timer
	identifying   bool
	// writeWatch bounds the frame being written to writeTimeout: one
	// timer for the connection, re-armed for each frame (only the one
	// flusher writes).
	writeWatch *time.Timer

	windowStart time.Time
	sent        int
	closeOnce   sync.Once
	closedWith  websocket.StatusCode // the code this side closed with
	// app is the application identified or resumed as (0: none yet),
	// for Config.Observe's close.
	app snowflake.ID
}

// ServeHTTP accepts a gateway connection: ?v= (6–10), ?encoding=json
// (etf is refused), ?compress=zlib-stream or zstd-stream optional. A
// client address with MaxConnsPerAddress connections open is refused
// before the upgrade.
func (g *Gateway) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	addr := ratelimit.AddressKey(r.RemoteAddr)
	if !g.admit(addr) {
		g.refuseConnection(w, addr)
		return
	}
	defer g.release(addr)
	ws, err := websocket.Accept(w, r, nil)
	if err != nil {
		return // Accept has answered the request
	}
	// However the connection ends, its socket is closed here. The
	// websocket library closes it only on a close handshake or a
	// timeout: a client that just goes away (a FIN or a reset, no close
	// frame) ends Read with an error and nothing more, which left the
	// socket in CLOSE-WAIT and, since the library's Conn is in a cycle
	// with its finalizer, its buffers on the heap for good.
	defer func() { _ = ws.CloseNow() }()
	q := r.URL.Query()
	version := q.Get("v")
	if version == "" {
		version = "10"
	}
	c := &conn{g: g, ws: ws, url: URL(r)}
	c.ctx, c.cancel = context.WithCancel(context.WithoutCancel(r.Context()))
	defer c.cancel()
	// Counted from the upgrade on (slashd_gateway_connections), so
	// that every open socket shows, identified or not.
	if !g.addConn(c) {
		c.close(websocket.StatusServiceRestart, "shutting down")
		return
	}
	defer g.removeConn(c)
	switch {
	case !apiVersions[version]:
		c.close(CloseInvalidAPIVersion, "")
		return
	case q.Get("encoding") != "" && q.Get("encoding") != "json":
		c.close(CloseInvalidAPIVersion, "encoding "+q.Get("encoding")+" is not supported: use encoding=json")
		return
	}
	c.version, _ = strconv.Atoi(version)
	c.packer = newCompressor(q.Get("compress"), &g.compressors)
	ws.SetReadLimit(64 << 10) // larger than MaxPayload: those get 4002, not 1009
	c.resetWatch()
	c.armIdentifyDeadline()
	c.send(frame(opHello, map[string]any{"heartbeat_interval": g.cfg.HeartbeatInterval.Milliseconds()}))
	c.readLoop()
}

// refuseConnection answers the upgrade of a client address over
// MaxConnsPerAddress: 429 with the API's error envelope, before any
// websocket exists, so that refusing costs no goroutine or buffer. A
// library sees its handshake fail and retries later, as it does when the
// real gateway cannot be reached; a close code after the upgrade would
// make it reconnect at once.
func (g *Gateway) refuseConnection(w http.ResponseWriter, addr string) {
	g.log.Warn("gateway: connection refused: the client address has the most connections allowed open",
		"address", addr, "open", g.cfg.MaxConnsPerAddress)
	body, _ := (&apierr.Error{Code: apierr.CodeGeneral, Message: fmt.Sprintf(
		"This address has %d gateway connections open, the most this server allows.", g.cfg.MaxConnsPerAddress)}).MarshalJSON()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusTooManyRequests)
	_, _ = w.Write(body)
}

// URL is the gateway's URL for a client that made request r (the
// request's own host): what GET /gateway answers and resume_gateway_url
// says.
func URL(r *http.Request) string {
	scheme := "ws"
	if r.TLS != nil {
		scheme = "wss"
	}
	return scheme + "://" + r.Host + "/gateway"
}

// readLoop handles the client's payloads until the connection ends.
func (c *conn) readLoop() {
	dead := false
	clientCode := websocket.StatusCode(-1)
	defer func() {
		c.watch.Stop()
		c.stopIdentifyDeadline()
		c.cancel()
		c.mu.Lock()
		// 4009: start a new session; 4004: the token is no more.
		ended := c.closedWith == CloseSessionTimedOut || c.closedWith == CloseAuthenticationFailed
		closedWith, app := c.closedWith, c.app
		c.mu.Unlock()
		if app != 0 && c.g.observing() {
			o := Observation{Kind: ObservedClose, ApplicationID: app, Code: int(closedWith), By: "server"}
			if closedWith == 0 {
				o.Code, o.By = int(clientCode), "client"
			}
			if s := c.session(); s != nil {
				o.Session = s.id
			}
			c.g.observe(o)
		}
		dead = dead || ended
		if s := c.session(); s != nil {
			c.g.letGo(c, s, dead)
		}
	}()
	for {
		_, data, err := c.ws.Read(c.ctx)
		if err != nil {
			// A client closing with 1000 or 1001 ends its session; any
			// other end leaves it resumable.
			st := websocket.CloseStatus(err)
			clientCode = st
			dead = st == websocket.StatusNormalClosure || st == websocket.StatusGoingAway
			return
		}
		if !c.allowSend() {
			c.close(CloseRateLimited, "")
			return
		}
		if len(data) > c.g.cfg.MaxPayload {
			c.close(CloseDecodeError, "")
			return
		}
		var p payload
		if err := json.Unmarshal(data, &p); err != nil || p.Op == nil {
			c.close(CloseDecodeError, "")
			return
		}
		if code, reason := c.handle(*p.Op, p.D); code != 0 {
			c.close(code, reason)
			return
		}
	}
}

// handle runs one client payload; a non-zero code closes the connection.
func (c *conn) handle(op int, d json.RawMessage) (websocket.StatusCode, string) {
	switch op {
	case opHeartbeat:
		if !validHeartbeatSeq(d) {
			return CloseDecodeError, ""
		}
		c.resetWatch()
		if !c.applyFault(c.ctx, FaultAtHeartbeat) {
			c.send(frame(opHeartbeatACK, nil))
		}
		return 0, ""
	case opIdentify:
		c.startIdentifying()
		return onOwnStack(func() (websocket.StatusCode, string) { return c.identify(d) })
	case opResume:
		c.startIdentifying()
		code, reason := onOwnStack(func() (websocket.StatusCode, string) { return c.resume(d) })
		if code == 0 && c.session() == nil {
			c.armIdentifyDeadline() // refused with op 9: a new window to identify
		}
		return code, reason
	case opRequestMembers:
		return onOwnStack(func() (websocket.StatusCode, string) { return c.requestMembers(d) })
	case opPresenceUpdate, opVoiceState, opSoundboard:
		if c.session() == nil {
			return CloseNotAuthenticated, ""
		}
		return 0, "" // accepted; slashd has no presences, voice or soundboard to send
	}
	return CloseUnknownOpcode, ""
}

// onOwnStack runs f on a goroutine of its own and waits for it. The
// payloads that go through the Directory (identify, resume, op 8) reach
// deep into the store and JSON, which grows a goroutine's stack to some
// 32 KiB; a goroutine keeps a grown stack until garbage collections
// shrink it (by half per cycle, and an idle server collects rarely), so
// on the connection's own goroutine, which lives as long as the
// connection, that would cost every idle session some 8–16 KiB.
func onOwnStack(f func() (websocket.StatusCode, string)) (websocket.StatusCode, string) {
	type result struct {
		code   websocket.StatusCode
		reason string
	}
	done := make(chan result, 1)
	go func() {
		code, reason := f()
		done <- result{code, reason}
	}()
	r := <-done
	return r.code, r.reason
}

// identify starts a new session (op 2).
func (c *conn) identify(d json.RawMessage) (websocket.StatusCode, string) {
	if c.session() != nil {
		return CloseAlreadyAuthenticated, ""
	}
	var id identify
	if err := json.Unmarshal(d, &id); err != nil {
		return CloseDecodeError, ""
	}
	bot, err := c.g.dir.Bot(c.ctx, id.Token)
	if errors.Is(err, ErrUnknownToken) {
		return CloseAuthenticationFailed, ""
	}
	if err != nil {
		c.g.log.Error("gateway: identify", "err", err)
		return CloseUnknownError, ""
	}
	switch {
	case id.Intents == nil || *id.Intents&^allIntents != 0:
		return CloseInvalidIntents, ""
	case disallowedIntents(*id.Intents, bot.Flags) != 0:
		return CloseDisallowedIntents, ""
	}
	shardID, shards := 0, 1
	if id.Shard != nil {
		if len(id.Shard) != 2 || id.Shard[1] < 1 || id.Shard[0] < 0 || id.Shard[0] >= id.Shard[1] {
			return CloseInvalidShard, ""
		}
		shardID, shards = id.Shard[0], id.Shard[1]
	}
	sid, err := newSessionID()
	if err != nil {
		return CloseUnknownError, ""
	}
	s := newSession(sid, bot.ApplicationID, shardID, shards, *id.Intents, c.g.cfg.ReplayLimit)
	s.identified = c.g.cfg.Now()
	// Only the shard's guilds are read (and, with GUILDS, rendered):
	// the shard's count is what GuildsPerShard limits, and the directory
	// refuses past it before rendering any.
	mine, err := c.g.dir.Guilds(c.ctx, bot.ApplicationID, GuildsQuery{Shard: shardID, Shards: shards,
		WithCreate: s.intents&IntentGuilds != 0, Max: c.g.cfg.GuildsPerShard})
	if errors.Is(err, ErrShardingRequired) {
		return CloseShardingRequired, ""
	}
	if err != nil {
		c.g.log.Error("gateway: guilds", "app", bot.ApplicationID, "err", err)
		return CloseUnknownError, ""
	}
	ready, err := c.ready(bot, s, mine)
	if err != nil {
		return CloseUnknownError, ""
	}
	readyFrame := s.numberReady(ready)
	if s.intents&IntentGuilds != 0 {
		for _, gd := range mine {
			s.dispatch("GUILD_CREATE", gd.Create)
		}
	}
	// The session takes the bus's events from its start marker on (see
	// cluster.go): pending until the marker comes back.
	s.pending = c.g.bus != nil
	c.g.addSession(s)
	if s.pending {
		c.g.publish(eventSessionStart, sessionEvent{Session: s.id, Node: c.g.cfg.Node, App: s.appID,
			ShardID: s.shardID, Shards: s.shards, Intents: s.intents, Initial: s.seq, At: s.identified})
		// READY waits for the marker, so that a client that has READY
		// gets every event published after it.
		select {
		case <-s.started:
		case <-time.After(markerWait):
			c.g.log.Warn("gateway: session start marker did not come back; starting anyway", "session", s.id)
			s.start()
		case <-c.ctx.Done(): // the client left before READY
			c.g.removeSession(s)
			c.g.publish(eventSessionEnd, sessionEvent{Session: s.id, Node: c.g.cfg.Node})
			return 0, ""
		}
	}
	c.sayWhereInteractionsGo(bot, s) // before READY, so that it is logged by the time the client has READY
	// READY goes out first, as a frame of this connection's: the flusher
	// writes queued frames before the session's dispatches.
	c.mu.Lock()
	c.ctrl = append(c.ctrl, readyFrame)
	c.app = bot.ApplicationID
	c.mu.Unlock()
	if c.g.observing() {
		o := Observation{Kind: ObservedIdentify, ApplicationID: bot.ApplicationID, Session: s.id, Intents: s.intents}
		if id.Shard != nil {
			o.Shard = &[2]int{shardID, shards}
		}
		c.g.observe(o)
	}
	c.attach(s, readySeq)
	go c.applyFault(c.ctx, FaultAtAttach)
	return 0, ""
}

// sayWhereInteractionsGo logs, once per identify, that the app's
// interactions go to its Interactions Endpoint URL rather than to the
// session: a bot written for the gateway would otherwise wait for an
// INTERACTION_CREATE that never comes, with nothing saying why (as on
// the real service, where the endpoint URL wins too).
func (c *conn) sayWhereInteractionsGo(bot Bot, s *session) {
	if bot.InteractionsEndpointURL == "" {
		return
	}
	c.g.log.Info(fmt.Sprintf("gateway: application %s's interactions go to its endpoint URL %s, not to this gateway "+
		"session; set it to \"\" to receive INTERACTION_CREATE here", bot.ApplicationID, bot.InteractionsEndpointURL),
		"application", bot.ApplicationID.String(), "interactions_endpoint_url", bot.InteractionsEndpointURL, "session", s.id)
}

// markerWait bounds how long an identify waits for its start marker;
// catchUpWait how long a resume waits for this node to read the bus as
// far as its own marker. Only a bus that is down makes them expire: they
// are generous, for a loaded machine.
const (
	markerWait  = 5 * time.Second
	catchUpWait = 5 * time.Second
)

// ready renders READY's data.
func (c *conn) ready(bot Bot, s *session, guilds []Guild) ([]byte, error) {
	type unavailable struct {
		ID          string `json:"id"`
		Unavailable bool   `json:"unavailable"`
	}
	list := make([]unavailable, len(guilds))
	for i, gd := range guilds {
		list[i] = unavailable{ID: gd.ID.String(), Unavailable: true}
	}
	return jsonenc.Marshal(map[string]any{
		"v": c.version, "user": bot.User, "guilds": list, "session_id": s.id, "session_type": "normal",
		"resume_gateway_url": c.url, "shard": []int{s.shardID, s.shards},
		"application":      map[string]any{"id": bot.ApplicationID.String(), "flags": bot.Flags},
		"private_channels": []any{}, "relationships": []any{}, "presences": []any{},
		"guild_join_requests": []any{}, "user_settings": map[string]any{}, "geo_ordered_rtc_regions": []string{},
		"_trace": []string{"slashd-gateway"},
	})
}

// resume reattaches a dropped session (op 6) and replays what it missed.
func (c *conn) resume(d json.RawMessage) (websocket.StatusCode, string) {
	if c.session() != nil {
		return CloseAlreadyAuthenticated, ""
	}
	var rs resume
	if err := json.Unmarshal(d, &rs); err != nil {
		return CloseDecodeError, ""
	}
	bot, err := c.g.dir.Bot(c.ctx, rs.Token)
	if errors.Is(err, ErrUnknownToken) {
		return CloseAuthenticationFailed, ""
	}
	if err != nil {
		return CloseUnknownError, ""
	}
	s, old, refused := c.tryResume(bot.ApplicationID, rs)
	// This node may not have read the bus as far as the client's old node
	// had (the session's start, the dispatches up to the client's seq):
	// once it has, the answer is final.
	if (refused == refuseUnknownSession || refused == refuseInvalidSeq) && c.g.catchUp(c.ctx) {
		s, old, refused = c.tryResume(bot.ApplicationID, rs)
	}
	if refused != 0 && c.ctx.Err() != nil {
		return 0, "" // the client left
	}
	switch refused {
	case refuseInvalidSeq:
		return CloseInvalidSeq, ""
	case refuseInvalidSession, refuseUnknownSession:
		c.send(frame(opInvalidSession, false))
		return 0, ""
	}
	// The flusher picks the session up at the next notify (RESUMED's).
	c.mu.Lock()
	c.sess, c.sentSeq, c.app = s, rs.Seq, bot.ApplicationID
	c.mu.Unlock()
	c.g.observe(Observation{Kind: ObservedResume, ApplicationID: bot.ApplicationID, Session: s.id, Seq: rs.Seq})
	if old != nil && old != c {
		go old.close(CloseUnknownError, "session resumed elsewhere")
	}
	// RESUMED takes a sequence number: every node numbers it alike when
	// it comes through the bus (which also tells the session's former
	// node to let go).
	if c.g.bus == nil {
		s.dispatch("RESUMED", resumedData)
	} else {
		c.g.publish(eventSessionResumed, sessionEvent{Session: s.id, Node: c.g.cfg.Node})
	}
	go c.applyFault(c.ctx, FaultAtAttach)
	return 0, ""
}

var resumedData = []byte(`{"_trace":["slashd-gateway"]}`)

// tryResume attaches c to the session rs names if app's bot may resume it
// from rs.Seq, returning the connection it replaces.
func (c *conn) tryResume(app snowflake.ID, rs resume) (*session, *conn, resumeRefusal) {
	s := c.g.session(rs.SessionID)
	if s == nil || s.appID != app {
		return nil, nil, refuseUnknownSession
	}
	old, refused := s.resume(c, rs.Seq)
	return s, old, refused
}

// attach makes s this connection's session, sending what follows seq; a
// connection the session had is closed.
func (c *conn) attach(s *session, seq int64) {
	c.mu.Lock()
	c.sess, c.sentSeq = s, seq
	c.mu.Unlock()
	if old := s.attach(c, seq); old != nil && old != c {
		go old.close(CloseUnknownError, "session resumed elsewhere")
	}
	c.notify()
}

func (c *conn) session() *session {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sess
}

// send queues a control frame.
func (c *conn) send(f []byte) {
	c.mu.Lock()
	c.ctrl = append(c.ctrl, f)
	c.mu.Unlock()
	c.notify()
}

// notify says there is something to write: it starts a flusher unless
// one is running (which then looks again before it ends).
func (c *conn) notify() {
	c.mu.Lock()
	c.dirty = true
	start := !c.flushing
	c.flushing = true
	c.mu.Unlock()
	if start {
		go c.flush()
	}
}

// flush writes queued control frames, then the session's new
// dispatches, until nothing is left or the connection fails. It clears
// flushing under the same lock as it finds nothing dirty, so a notify
// either sees it running or starts the next one. A failed connection
// keeps flushing set: nothing is started for it again.
func (c *conn) flush() {
	for {
		c.mu.Lock()
		if !c.dirty || c.ctx.Err() != nil {
			c.flushing = c.ctx.Err() != nil
			c.mu.Unlock()
			return
		}
		c.dirty = false
		ctrl, s, after := c.ctrl, c.sess, c.sentSeq
		c.ctrl = nil
		c.mu.Unlock()
		for _, f := range ctrl {
			if !c.write(f) {
				return
			}
		}
		if s == nil {
			continue
		}
		frames, ok := s.since(after)
		if !ok { // fell further behind than the session keeps
			c.close(CloseUnknownError, "client too slow")
			return
		}
		if !c.writeDispatches(s, frames) {
			return
		}
	}
}

// writeDispatches writes s's dispatches to the connection, each once
// any fault's delay for it is over; false when the connection ended.
// Frames are written out into a buffer lent by the gateway, reused from
// one frame to the next unless the connection compresses.
func (c *conn) writeDispatches(s *session, frames []entry) bool {
	var buf *[]byte // nil: each frame its own (a stream compressor keeps its last frames as its dictionary)
	if c.packer == nil {
		buf = c.g.frameBuffers.Get().(*[]byte)
		defer c.g.frameBuffers.Put(buf)
	}
	for _, e := range frames {
		if d := c.dispatchDelay(s, e.t); d > 0 && !c.pause(d) {
			return false
		}
		var f []byte
		if buf != nil {
			f = e.appendFrame((*buf)[:0])
			*buf = f // written by the time write returns: the next frame reuses it
		} else {
			f = e.appendFrame(nil)
		}
		if !c.write(f) {
			return false
		}
		c.mu.Lock()
		if c.sess == s {
			c.sentSeq = e.seq
		}
		c.mu.Unlock()
		s.markSent(e.seq)
		if c.g.observing() {
			c.g.observeDispatch(s.appID, s.id, e.seq, e.t, e.data)
		}
	}
	return true
}

// write sends one frame (through the zlib stream when asked).
//
// A fan-out writes one frame to each of thousands of connections, so a
// write costs little beside its syscall: its timeout is the connection's
// one re-armed timer, and the library gets a context without Done, so
// that it registers nothing either. A context.WithTimeout of c.ctx per
// frame (a timer, a context and two registrations with c.ctx) was 15% of
// the server's CPU for an event fanned out to 10,000 sessions (gwbench
// -cpuprofile). Nothing is lost: whatever cancels c.ctx also closes the
// socket (close, abandon, ServeHTTP's return), which ends a write.
func (c *conn) write(f []byte) bool {
	if c.writeWatch == nil {
		c.writeWatch = time.AfterFunc(writeTimeout, c.writeTimedOut)
	} else {
		c.writeWatch.Reset(writeTimeout)
	}
	defer c.writeWatch.Stop()
	typ := websocket.MessageText
	if c.packer != nil {
		var err error
		if f, err = c.packer.compress(f); err != nil {
			return false
		}
		typ = websocket.MessageBinary
	}
	if err := c.ws.Write(context.WithoutCancel(c.ctx), typ, f); err != nil {
		c.cancel()
		return false
	}
	return true
}

// writeTimedOut drops a connection whose client stopped reading: the
// socket closed, the write in progress fails.
func (c *conn) writeTimedOut() {
	_ = c.ws.CloseNow()
	c.cancel()
}

// resetWatch restarts the heartbeat watchdog: 1.5 intervals without a
// heartbeat close the connection (4009).
func (c *conn) resetWatch() {
	d := c.g.cfg.HeartbeatInterval * 3 / 2
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.watch == nil {
		c.watch = c.g.cfg.AfterFunc(d, func() { c.close(CloseSessionTimedOut, "") })
		return
	}
	c.watch.Reset(d)
}

// armIdentifyDeadline gives the connection IdentifyTimeout to send
// IDENTIFY or RESUME: then it is closed 4009 (Session timed out), as a
// connection whose heartbeats stop is, so that one that only heartbeats
// cannot hold a socket forever.
func (c *conn) armIdentifyDeadline() {
	d := c.g.cfg.IdentifyTimeout
	c.mu.Lock()
	defer c.mu.Unlock()
	c.identifying = false
	if c.identifyWatch == nil {
		c.identifyWatch = c.g.cfg.AfterFunc(d, c.identifyTimedOut)
		return
	}
	c.identifyWatch.Reset(d)
}

func (c *conn) identifyTimedOut() {
	c.mu.Lock()
	waiting := c.sess == nil && !c.identifying
	c.mu.Unlock()
	if waiting {
		c.close(CloseSessionTimedOut, "")
	}
}

// startIdentifying stops the identify deadline: an IDENTIFY or RESUME
// came in time.
func (c *conn) startIdentifying() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.identifying = true
	if c.identifyWatch != nil {
		c.identifyWatch.Stop()
	}
}

func (c *conn) stopIdentifyDeadline() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.identifyWatch != nil {
		c.identifyWatch.Stop()
	}
}

// allowSend counts a client payload against the send limit.
func (c *conn) allowSend() bool {
	now := c.g.cfg.Now()
	if now.Sub(c.windowStart) >= c.g.cfg.SendWindow {
		c.windowStart, c.sent = now, 0
	}
	c.sent++
	return c.sent <= c.g.cfg.SendLimit
}

// close ends the connection with a close code (its reason: the real
// gateway's text unless given).
func (c *conn) close(code websocket.StatusCode, reason string) {
	c.closeOnce.Do(func() {
		if reason == "" {
			reason = closeReasons[code]
		}
		c.mu.Lock()
		c.closedWith = code
		c.mu.Unlock()
		_ = c.ws.Close(code, reason)
		c.cancel()
	})
}

// abandon drops the connection without a close frame and without
// touching the session (the node is "dead").
func (c *conn) abandon() {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closedWith = -1 // not 4009: the session stays resumable
		c.sess = nil      // the dead node lets go of nothing
		c.mu.Unlock()
		_ = c.ws.CloseNow()
		c.cancel()
	})
}

// reconnect asks the client to reconnect (op 7), gives it a moment to
// leave on its own, then closes (leaving the session resumable).
func (c *conn) reconnect(ctx context.Context) {
	c.send(frame(opReconnect, nil))
	t := time.NewTimer(500 * time.Millisecond)
	defer t.Stop()
	select {
	case <-c.ctx.Done():
	case <-t.C:
	case <-ctx.Done():
	}
	c.close(websocket.StatusServiceRestart, "reconnect")
}

func newSessionID() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", err
	}
	return hex.EncodeToString(b), nil
}
