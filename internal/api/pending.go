package api

import (
	"context"
	"encoding/base64"
	"strings"
	"sync"

	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// pendingRecords holds the records of invocations being delivered to an
// Interactions Endpoint URL that are not in the store yet.
//
// On a node that is its store's only writer (CacheLocal), an invocation
// delivered to an endpoint is not recorded before the delivery: when the
// app answers inline, as most apps do, the record and its answer are
// written in one transaction (store.CreateAnsweredInteraction), and the
// invocation commits once instead of twice. Until then the record waits
// here, and whatever on this node reads it first writes it (flush): a
// callback or a follow-up the app sends while the delivery is still open
// finds it in the store as before. A delivery that ends any other way
// (an answer through the callback route, a failure, a timeout) writes it
// too (settle), so that the store ends up holding what it held when every
// record was written first. Nodes of a cluster, and nodes sharing their
// store, always record first: another node could not see a record held
// here.
//
// What this gives up: a node that dies during a delivery leaves no trace
// of that invocation, whose invoking client got no answer either; the
// app's later calls with its token get 10015 Unknown Webhook.
type pendingRecords struct {
	mu   sync.Mutex
	byID map[snowflake.ID]*pendingRecord
}

// pendingRecord is one held record; mu orders the one write of it.
type pendingRecord struct {
	mu     sync.Mutex
	rec    store.Interaction
	stored bool // in the store: written alone or with its answer
}

// hold keeps rec until settle.
func (p *pendingRecords) hold(rec store.Interaction) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.byID == nil {
		p.byID = make(map[snowflake.ID]*pendingRecord)
	}
	p.byID[rec.ID] = &pendingRecord{rec: rec}
}

func (p *pendingRecords) get(id snowflake.ID) *pendingRecord {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.byID[id]
}

// flush writes interaction id's record if it is held and not written
// yet, so that a read of the store finds it.
func (p *pendingRecords) flush(ctx context.Context, st store.Store, id snowflake.ID) error {
	r := p.get(id)
	if r == nil {
		return nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stored {
		return nil
	}
	if err := st.CreateInteraction(ctx, r.rec); err != nil {
		return err
	}
	r.stored = true
	return nil
}

// answer writes interaction id's record with its answer, in one
// transaction, when it is held and not written yet; ok false: it is not
// (answer it in the store).
func (p *pendingRecords) answer(ctx context.Context, st store.Store, id snowflake.ID,
	fn func(store.Interaction) (store.Answer, error)) (rec store.Interaction, ok bool, err error) {
	r := p.get(id)
	if r == nil {
		return store.Interaction{}, false, nil
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stored {
		return store.Interaction{}, false, nil
	}
	rec, err = st.CreateAnsweredInteraction(ctx, r.rec, fn)
	if err != nil {
		return store.Interaction{}, true, err
	}
	r.stored = true
	return rec, true, nil
}

// settle writes interaction id's record if nothing has, and forgets it.
func (p *pendingRecords) settle(ctx context.Context, st store.Store, id snowflake.ID) error {
	err := p.flush(ctx, st, id)
	p.mu.Lock()
	delete(p.byID, id)
	p.mu.Unlock()
	return err
}

// record stores an invocation's record before its delivery or, when the
// delivery may bring the answer with it, holds it (see pendingRecords).
// The caller runs done once the delivery is over.
func (s *Server) record(ctx context.Context, in invocation) (done func(), err error) {
	if !s.holdRecords || in.app.InteractionsEndpointURL == "" || serviceAnswers(in.cmd) {
		if err := s.store.CreateInteraction(ctx, in.record); err != nil {
			return nil, err
		}
		return func() {}, nil
	}
	s.pending.hold(in.record)
	id := in.record.ID // not in: the closure would copy the whole invocation to the heap
	return func() {
		// Even when the invoking client has gone: the app has the token.
		if err := s.pending.settle(context.WithoutCancel(ctx), s.store, id); err != nil {
			s.log.Error("record interaction after its delivery", "interaction_id", id, "error", err)
		}
	}, nil
}

// serviceAnswers reports whether the service answers cmd itself (an entry
// point with handler 2 launches its Activity without the app).
func serviceAnswers(cmd command.Command) bool {
	return cmd.Type == command.PrimaryEntryPoint && cmd.Handler != nil && *cmd.Handler == command.HandlerDiscordLaunchActivity
}

// answerStored is store.AnswerInteraction for interaction id, which may
// still be held (see pendingRecords).
func (s *Server) answerStored(ctx context.Context, id snowflake.ID,
	fn func(store.Interaction) (store.Answer, error)) (store.Interaction, error) {
	if rec, ok, err := s.pending.answer(ctx, s.store, id, fn); ok {
		return rec, err
	}
	return s.store.AnswerInteraction(ctx, id, fn)
}

// tokenInteractionID reads the interaction id out of an interaction
// token (base64url of "interaction:<id>:<secret>", see
// newInteractionToken); ok false for anything else.
func tokenInteractionID(token string) (id snowflake.ID, ok bool) {
	raw, err := base64.RawURLEncoding.DecodeString(token)
	if err != nil {
		return 0, false
	}
	rest, found := strings.CutPrefix(string(raw), "interaction:")
	if !found {
		return 0, false
	}
	digits, _, found := strings.Cut(rest, ":")
	if !found {
		return 0, false
	}
	id, err = snowflake.Parse(digits)
	return id, err == nil
}
