package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"sync"
	"time"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/interaction"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// answerMode says who answers an interaction.
type answerMode int

const (
	answerCallback   answerMode = iota // POST …/callback: within the answer window
	answerInlineHTTP                   // the app's HTTP response to the delivery (timed by the deliverer)
	answerLaunch                       // the service itself: an entry point with handler 2
)

var errActivitiesDisabled = apierr.Invalid(interaction.CodeResponseTypeInvalid,
	"Activities are not enabled for this application", "type")

// answered is an interaction with its initial answer, and the message the
// answer stored, when this process stored it.
type answered struct {
	store.Interaction
	msg *store.Message
	// encoded: msg's body is what this request's encoder just wrote
	// (not read back from the store), so responses splice it unchecked.
	encoded bool
}

// answerRecord stores the initial answer of interaction rec (as read; its
// stored state is checked again inside the transaction): its state and,
// for message answers, the message, in one transaction. A second answer
// is 40060; a callback after the answer window, 10062. meta is rec's
// metadata when the caller still has it decoded (an inline answer), else
// nil.
func (s *Server) answerRecord(ctx context.Context, rec store.Interaction, meta *interaction.InteractionMetadata,
	cb interaction.Callback, mode answerMode) (answered, error) {
	if rec.ResponseType != 0 {
		return answered{}, errAlreadyAcked
	}
	// Everything that reads the world is done before the transaction,
	// which only decides and writes.
	put, result, err := s.prepareAnswer(ctx, rec, meta, cb)
	if err != nil {
		return answered{}, err
	}
	now := s.nowIn(ctx).UTC()
	rec, err = s.answerStored(ctx, rec.ID, func(cur store.Interaction) (store.Answer, error) {
		if cur.ResponseType != 0 {
			return store.Answer{}, errAlreadyAcked
		}
		if mode == answerCallback && now.Sub(cur.CreatedAt) > answerWindow {
			return store.Answer{}, errUnknownInteraction
		}
		cur.ResponseType, cur.AnsweredAt, cur.Result = cb.Type, now, result
		switch cb.Type {
		case interaction.CallbackChannelMessage, interaction.CallbackDeferredChannelMessage:
			cur.OriginalMessageID, cur.Ephemeral = put.ID, put.VisibleTo != 0
		case interaction.CallbackUpdateMessage, interaction.CallbackDeferredUpdateMessage:
			// A component's answer edits its message: that is @original.
			cur.OriginalMessageID = cur.MessageID
		}
		return store.Answer{Interaction: cur, Put: put}, nil
	})
	if err == nil && put != nil {
		s.noteFiles(ctx, put.Files)
	}
	if errors.Is(err, store.ErrNotFound) && put != nil {
		// The interaction was read above: what is gone is the channel
		// the message goes to (deleted during the delivery).
		return answered{}, errUnknownChannel
	}
	if err != nil {
		return answered{}, store.NotFoundAs(err, errUnknownInteraction)
	}
	// Wake what waits for the answer on this node: the invocation (a
	// callback's answer), a follow-up sent before it.
	s.answers.notify(rec.ID)
	if mode == answerCallback {
		// The invocation may wait on another node: wake it, through the
		// bus. An inline answer (or the service's own) is stored by the
		// invoking request itself; a follow-up that another node holds
		// finds it at its next poll.
		s.events.Publish(context.WithoutCancel(ctx), event.Event{Type: eventInteractionAnswered,
			ApplicationID: rec.ApplicationID, GuildID: rec.GuildID, Data: answeredEvent{ID: rec.ID}})
	}
	return answered{Interaction: rec, msg: put, encoded: put != nil}, nil
}

// eventInteractionAnswered tells every node an interaction was answered,
// so that an invocation waiting on another node than the answer's
// returns at once rather than at its next store poll.
const eventInteractionAnswered = "INTERACTION_ANSWERED"

type answeredEvent struct {
	ID snowflake.ID `json:"id"`
}

// wakeOnAnswers wakes this node's waiting invocations when an answer is
// stored on any node, until the bus's events end.
func (s *Server) wakeOnAnswers(events <-chan event.Event) {
	for e := range events {
		if e.Type != eventInteractionAnswered {
			continue
		}
		var a answeredEvent
		if event.DecodeData(e.Data, &a) == nil && a.ID != 0 {
			s.answers.notify(a.ID)
		}
	}
}

// prepareAnswer builds what an answer stores: a message to put, and the
// result the invoking client is shown.
func (s *Server) prepareAnswer(ctx context.Context, rec store.Interaction, meta *interaction.InteractionMetadata,
	cb interaction.Callback) (*store.Message, []byte, error) {
	switch cb.Type {
	case interaction.CallbackChannelMessage:
		m, err := s.interactionMessage(ctx, rec, meta, s.ids.Next(), cb.Message, false)
		return &m, nil, err
	case interaction.CallbackDeferredChannelMessage:
		m, err := s.interactionMessage(ctx, rec, meta, s.ids.Next(), interaction.MessageData{Flags: cb.Message.Flags}, true)
		return &m, nil, err
	case interaction.CallbackAutocompleteResult:
		return nil, cb.Choices, nil
	case interaction.CallbackModal:
		return nil, cb.Modal, nil
	case interaction.CallbackLaunchActivity:
		return s.launchActivity(ctx, rec)
	case interaction.CallbackUpdateMessage:
		m, err := s.updatedComponentMessage(ctx, rec, cb.Message)
		return m, nil, err
	}
	return nil, nil, nil
}

// updatedComponentMessage is UPDATE_MESSAGE: the message whose component
// was used, edited by the answer.
func (s *Server) updatedComponentMessage(ctx context.Context, rec store.Interaction, d interaction.MessageData) (*store.Message, error) {
	if rec.MessageID == 0 {
		return nil, errUnknownMessage
	}
	m, err := s.store.Message(ctx, rec.MessageID)
	if err != nil {
		return nil, store.NotFoundAs(err, errUnknownMessage)
	}
	var msg interaction.Message
	if err := json.Unmarshal(m.Body, &msg); err != nil {
		return nil, err
	}
	if err := interaction.CheckEdit(d, msg.Flags, "data"); err != nil {
		return nil, err
	}
	if err := interaction.CheckPollEdit(d, msg); err != nil {
		return nil, err
	}
	if m.Files, err = s.applyMessage(&msg, d); err != nil {
		return nil, err
	}
	ts := timestamp(s.nowIn(ctx))
	msg.EditedTimestamp = &ts
	if messageEmpty(msg) {
		return nil, interaction.ErrEmptyMessage
	}
	if m.Body, err = encodeMessage(&msg); err != nil {
		return nil, err
	}
	return &m, nil
}

// launchActivity starts the app's Activity in the channel: an instance id
// for the invoking client and a message in the channel saying so.
func (s *Server) launchActivity(ctx context.Context, rec store.Interaction) (*store.Message, []byte, error) {
	app, err := s.store.Application(ctx, rec.ApplicationID)
	if err != nil {
		return nil, nil, err
	}
	if app.Flags&command.ApplicationFlagEmbedded == 0 {
		return nil, nil, errActivitiesDisabled
	}
	instance := &interaction.ActivityInstance{ID: fmt.Sprintf("i-%d-gc-%d-%d", rec.ID, rec.GuildID, rec.ChannelID)}
	m, err := s.interactionMessage(ctx, rec, nil, s.ids.Next(), interaction.MessageData{}, false)
	if err != nil {
		return nil, nil, err
	}
	var msg interaction.Message
	if err := json.Unmarshal(m.Body, &msg); err != nil {
		return nil, nil, err
	}
	msg.ActivityInstance = instance
	if m.Body, err = encodeMessage(&msg); err != nil {
		return nil, nil, err
	}
	result, err := jsonenc.Marshal(instance)
	return &m, result, err
}

// interactionMessage shapes a message the app posts through interaction
// rec: its reply (type 20 or 23), or a follow-up. EPHEMERAL in d's flags
// makes it visible to the invoking user only; loading marks a deferred
// answer's placeholder. known is rec's metadata decoded, when the caller
// has it (nil: decoded here).
func (s *Server) interactionMessage(ctx context.Context, rec store.Interaction, known *interaction.InteractionMetadata,
	id snowflake.ID, d interaction.MessageData, loading bool) (store.Message, error) {
	bot, err := s.store.User(ctx, rec.ApplicationID)
	if err != nil {
		return store.Message{}, fmt.Errorf("bot user of app %d: %w", rec.ApplicationID, err)
	}
	var meta interaction.InteractionMetadata
	if known != nil {
		meta = *known // a copy: it is changed below
	} else if err := json.Unmarshal(rec.Metadata, &meta); err != nil {
		return store.Message{}, fmt.Errorf("metadata of interaction %d: %w", rec.ID, err)
	}
	now := s.nowIn(ctx).UTC()
	m := interaction.NewMessage(id, rec.ChannelID, wireUser(bot), timestamp(now))
	switch {
	case meta.Type == interaction.MessageComponent:
		m.Type = interaction.MessageDefault
	case meta.CommandType == command.User || meta.CommandType == command.Message:
		m.Type = interaction.MessageContextMenu
	default:
		m.Type = interaction.MessageChatInputCommand
	}
	m.ApplicationID, m.WebhookID = rec.ApplicationID, rec.ApplicationID
	if rec.OriginalMessageID != 0 && rec.OriginalMessageID != id {
		meta.OriginalResponseMessageID = rec.OriginalMessageID
	}
	m.InteractionMetadata = &meta
	m.Interaction = &interaction.MessageInteraction{ID: rec.ID, Type: meta.Type, Name: meta.Name, User: meta.User}
	m.Flags = d.Flags & interaction.FlagEphemeral
	files, err := s.applyMessage(&m, d)
	if err != nil {
		return store.Message{}, err
	}
	if m.Flags&interaction.FlagEphemeral == 0 && rec.GuildID != 0 && userOwnedOnly(meta.AuthorizingIntegrationOwners) {
		public, err := s.externalAppsAllowed(ctx, rec)
		if err != nil {
			return store.Message{}, err
		}
		if !public {
			m.Flags |= interaction.FlagEphemeral
		}
	}
	if loading {
		m.Flags |= interaction.FlagLoading
	}
	out := store.Message{ID: id, ChannelID: rec.ChannelID, GuildID: rec.GuildID, AuthorID: bot.ID,
		InteractionID: rec.ID, CreatedAt: now, Files: files}
	if m.Flags&interaction.FlagEphemeral != 0 {
		out.VisibleTo = rec.UserID
		interaction.MarkEphemeral(&m, d.Uploads)
	}
	out.Body, err = encodeMessage(&m)
	return out, err
}

// encodeMessage is a message's body as stored and served: jsonenc.Marshal's
// bytes (interaction.Message.AppendJSON), without reflection.
func encodeMessage(m *interaction.Message) ([]byte, error) {
	return m.AppendJSON(make([]byte, 0, messageBodySize))
}

// messageBodySize is what an interaction's answer message takes encoded,
// with room to spare: its buffer is allocated once.
const messageBodySize = 2048

// externalAppsAllowed reports whether an app the guild did not install
// may answer the invoker publicly in the interaction's channel: the real
// service's USE_EXTERNAL_APPS, without which "users will still be allowed
// to use their apps but the responses will be ephemeral". An invoker who
// has left the guild or the channel gets ephemeral answers.
func (s *Server) externalAppsAllowed(ctx context.Context, rec store.Interaction) (bool, error) {
	ch, err := s.store.Channel(ctx, rec.ChannelID)
	if errors.Is(err, store.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	view, err := s.loadMemberView(ctx, rec.GuildID, rec.UserID)
	if errors.Is(err, errNotMember) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return view.permissionsIn(ch).Has(guild.UseExternalApps), nil
}

// answerWaiters wakes invocations waiting for their answer. It only
// shortens the wait: waiters also poll the store, so that an answer
// stored by another process is seen too.
type answerWaiters struct {
	mu      sync.Mutex
	waiting map[snowflake.ID][]chan struct{}
}

func (a *answerWaiters) register(id snowflake.ID) (<-chan struct{}, func()) {
	ch := make(chan struct{}, 1)
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.waiting == nil {
		a.waiting = map[snowflake.ID][]chan struct{}{}
	}
	a.waiting[id] = append(a.waiting[id], ch)
	return ch, func() {
		a.mu.Lock()
		defer a.mu.Unlock()
		l := a.waiting[id]
		for i, c := range l {
			if c == ch {
				l = append(l[:i], l[i+1:]...)
				break
			}
		}
		if len(l) == 0 {
			delete(a.waiting, id)
		} else {
			a.waiting[id] = l
		}
	}
}

func (a *answerWaiters) notify(id snowflake.ID) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, ch := range a.waiting[id] {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

// answerPoll is how often a waiting invocation re-reads the store.
const answerPoll = 100 * time.Millisecond

// awaitAnswer waits until interaction id is answered or the deadline
// passes (then the invoking user sees "The application did not respond",
// and d says so); an interaction deleted meanwhile (with its channel) is
// Unknown Channel. The deadline is on the server's clock (its timer too):
// a poll finding it passed ends the wait too.
func (s *Server) awaitAnswer(ctx context.Context, id snowflake.ID, deadline time.Time, d *delivery) (answered, error) {
	woken, done := s.answers.register(id)
	defer done()
	if err := s.pending.flush(ctx, s.store, id); err != nil {
		return answered{}, fmt.Errorf("record interaction: %w", err)
	}
	expired := make(chan struct{})
	timer := s.afterFunc(max(deadline.Sub(s.nowIn(ctx)), 0), func() { close(expired) })
	defer timer.Stop()
	poll := time.NewTicker(answerPoll)
	defer poll.Stop()
	// Each turn reads the store: the timer's turn is the last read, so
	// an answer that committed just before the deadline still counts.
	late := false // the timer fired (even if the wall clock went back)
	for {
		rec, err := s.store.Interaction(ctx, id)
		if errors.Is(err, store.ErrNotFound) {
			// Deleted while it waited: an interaction goes with its
			// channel (and the channel with its guild).
			d.outcome, d.reason = outcomeError, "the interaction's channel was deleted"
			return answered{}, errUnknownChannel
		}
		if err != nil {
			return answered{}, err
		}
		if rec.ResponseType != 0 {
			return answered{Interaction: rec}, nil
		}
		if late || s.nowIn(ctx).After(deadline) {
			d.outcome, d.reason = outcomeTimeout, fmt.Sprintf("no answer within %v", answerWindow)
			return answered{}, errNoResponse
		}
		select {
		case <-woken:
		case <-poll.C:
		case <-expired:
			late = true
		case <-ctx.Done():
			return answered{}, ctx.Err()
		}
	}
}

// callbackResult is the body of a callback with ?with_response=true, and
// of an invocation's answer: the real service's interaction callback
// response. slashd adds resource.choices (autocomplete) and
// resource.modal, which the real client receives over its gateway.
type callbackResult struct {
	Interaction callbackInteraction `json:"interaction"`
	Resource    *callbackResource   `json:"resource,omitempty"`
}

type callbackInteraction struct {
	ID                       snowflake.ID `json:"id"`
	Type                     int          `json:"type"`
	ActivityInstanceID       string       `json:"activity_instance_id,omitempty"`
	ResponseMessageID        snowflake.ID `json:"response_message_id,omitempty"`
	ResponseMessageLoading   *bool        `json:"response_message_loading,omitempty"`
	ResponseMessageEphemeral *bool        `json:"response_message_ephemeral,omitempty"`
}

type callbackResource struct {
	Type             int             `json:"type"`
	ActivityInstance json.RawMessage `json:"activity_instance,omitempty"`
	Message          json.RawMessage `json:"message,omitempty"`
	Choices          json.RawMessage `json:"choices,omitempty"`
	Modal            json.RawMessage `json:"modal,omitempty"`
	// encoded: Message is this request's own encoding (answered.encoded).
	encoded bool
}

// encode is r's JSON, the same bytes as jsonenc.Marshal(r), written by
// hand (FuzzCallbackResultEncode): its stored message and result spliced
// in as they are (checked once, or not at all when encoded by this
// request) rather than compacted again by encoding/json, which was the
// most of the encoding's work on a message of a kilobyte. As the
// journal splices (journal.Encode): a member that is not JSON is left
// out.
func (r callbackResult) encode() ([]byte, error) {
	res, in := r.Resource, r.Interaction
	// Room for what surrounds the resource's own JSON: about 200 bytes
	// for an answered message (with 192, every such answer was encoded
	// through a second buffer, twice as large).
	size := 320 + len(in.ActivityInstanceID)
	if res != nil {
		size += len(res.ActivityInstance) + len(res.Message) + len(res.Choices) + len(res.Modal)
	}
	b := make([]byte, 0, size)
	b = append(b, `{"interaction":{"id":`...)
	b = jsonenc.AppendID(b, uint64(in.ID))
	b = append(b, `,"type":`...)
	b = strconv.AppendInt(b, int64(in.Type), 10)
	if in.ActivityInstanceID != "" {
		b = append(b, `,"activity_instance_id":`...)
		b = jsonenc.AppendString(b, in.ActivityInstanceID)
	}
	if in.ResponseMessageID != 0 {
		b = append(b, `,"response_message_id":`...)
		b = jsonenc.AppendID(b, uint64(in.ResponseMessageID))
	}
	if in.ResponseMessageLoading != nil {
		b = append(b, `,"response_message_loading":`...)
		b = strconv.AppendBool(b, *in.ResponseMessageLoading)
	}
	if in.ResponseMessageEphemeral != nil {
		b = append(b, `,"response_message_ephemeral":`...)
		b = strconv.AppendBool(b, *in.ResponseMessageEphemeral)
	}
	b = append(b, '}')
	if res != nil {
		b = append(b, `,"resource":{"type":`...)
		b = strconv.AppendInt(b, int64(res.Type), 10)
		for _, m := range [...]struct {
			name    string
			raw     json.RawMessage
			checked bool
		}{
			{"activity_instance", res.ActivityInstance, false},
			{"message", res.Message, res.encoded},
			{"choices", res.Choices, false},
			{"modal", res.Modal, false},
		} {
			if len(m.raw) == 0 || !m.checked && !json.Valid(m.raw) {
				continue
			}
			b = append(b, `,"`...)
			b = append(b, m.name...)
			b = append(b, `":`...)
			b = append(b, m.raw...)
		}
		b = append(b, '}')
	}
	// A stored message an older slashd wrote may hold HTML escapes.
	return jsonenc.UnescapeHTML(append(b, '}')), nil
}

// writeCallbackResult answers with r.
func writeCallbackResult(w http.ResponseWriter, r callbackResult) {
	b, err := r.encode()
	if err != nil {
		writeJSON(w, http.StatusOK, r) // reports the failure as writeJSON does
		return
	}
	writeRawJSON(w, http.StatusOK, b)
}

// callbackResponse renders an answered interaction.
func (s *Server) callbackResponse(ctx context.Context, rec answered) (callbackResult, error) {
	out := callbackResult{Interaction: callbackInteraction{ID: rec.ID, Type: rec.Type},
		Resource: &callbackResource{Type: rec.ResponseType}}
	switch rec.ResponseType {
	case interaction.CallbackAutocompleteResult:
		out.Resource.Choices = rec.Result
	case interaction.CallbackModal:
		out.Resource.Modal = rec.Result
	case interaction.CallbackLaunchActivity:
		out.Resource.ActivityInstance = rec.Result
		var inst interaction.ActivityInstance
		if json.Unmarshal(rec.Result, &inst) == nil {
			out.Interaction.ActivityInstanceID = inst.ID
		}
	}
	if rec.OriginalMessageID == 0 {
		return out, nil
	}
	m, err := s.originalMessage(ctx, rec)
	if errors.Is(err, store.ErrNotFound) {
		return out, nil // deleted since
	}
	if err != nil {
		return callbackResult{}, err
	}
	loading, ephemeral := rec.ResponseType == interaction.CallbackDeferredChannelMessage, rec.Ephemeral
	out.Interaction.ResponseMessageID = m.ID
	out.Interaction.ResponseMessageLoading, out.Interaction.ResponseMessageEphemeral = &loading, &ephemeral
	out.Resource.Message = m.Body
	out.Resource.encoded = rec.encoded && rec.msg != nil && rec.msg.ID == m.ID
	return out, nil
}

// originalMessage is the answer's message: the one just stored, else as
// stored now.
func (s *Server) originalMessage(ctx context.Context, rec answered) (store.Message, error) {
	if rec.msg != nil && rec.msg.ID == rec.OriginalMessageID {
		return *rec.msg, nil
	}
	return s.store.Message(ctx, rec.OriginalMessageID)
}
