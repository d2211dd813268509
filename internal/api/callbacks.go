package api

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"errors"
	"io"
	"mime"
	"mime/multipart"
	"net/http"
	"strconv"
	"strings"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/interaction"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// interactionCallback is POST /interactions/{id}/{token}/callback: the
// app's initial answer. 204, or with ?with_response=true 200 and the
// interaction callback response.
func (s *Server) interactionCallback(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	id, err := pathID(r, "interaction_id")
	if err != nil {
		return err
	}
	if err := s.pending.flush(ctx, s.store, id); err != nil {
		return err
	}
	rec, err := s.store.Interaction(ctx, id)
	if err != nil {
		return store.NotFoundAs(err, errUnknownInteraction)
	}
	if subtle.ConstantTimeCompare(rec.TokenHash, auth.Hash(r.PathValue("interaction_token"))) != 1 {
		return errUnknownInteraction
	}
	v, uploads, err := s.readPayload(w, r)
	if err != nil {
		return err
	}
	att, err := s.attachCallbackUploads(r, v, uploads, rec.ChannelID)
	if err != nil {
		return err
	}
	cb, err := interaction.ParseCallback(v, interaction.Type(rec.Type))
	if errors.Is(err, interaction.ErrNoMessageToUpdate) {
		return errUnknownMessage // the real service: an UPDATE_MESSAGE to a command
	}
	if err != nil {
		return err
	}
	cb.Message.Uploads = att
	ans, err := s.answerRecord(ctx, rec, nil, cb, answerCallback)
	if err != nil {
		return err
	}
	if r.URL.Query().Get("with_response") != "true" {
		writeNoContent(w)
		return nil
	}
	out, err := s.callbackResponse(ctx, ans)
	if err != nil {
		return err
	}
	if ans.ResponseType == interaction.CallbackDeferredChannelMessage {
		// The real service shows resource.message only for types 4 and 7;
		// the loading placeholder is named by response_message_id. (The
		// invoking client's answer keeps it.)
		out.Resource.Message = nil
	}
	writeCallbackResult(w, out)
	return nil
}

// webhookInteraction resolves the interaction a …/webhooks/{app}/{token}
// route names: unknown tokens and interactions left unanswered are 10015,
// tokens older than 15 minutes 50027.
func (s *Server) webhookInteraction(r *http.Request) (store.Interaction, error) {
	appID, err := pathID(r, "application_id")
	if err != nil {
		return store.Interaction{}, err
	}
	// The token names its interaction; its hash must match the one stored.
	token := r.PathValue("interaction_token")
	id, ok := tokenInteractionID(token)
	if !ok {
		return store.Interaction{}, errUnknownWebhook
	}
	if err := s.pending.flush(r.Context(), s.store, id); err != nil {
		return store.Interaction{}, err
	}
	rec, err := s.store.Interaction(r.Context(), id)
	if err != nil {
		return store.Interaction{}, store.NotFoundAs(err, errUnknownWebhook)
	}
	if subtle.ConstantTimeCompare(rec.TokenHash, auth.Hash(token)) != 1 || rec.ApplicationID != appID {
		return store.Interaction{}, errUnknownWebhook
	}
	if rec.ResponseType == 0 {
		// An app that answers inline and follows up at once can be faster
		// than its own answer: wait for it within the answer window
		// rather than refuse a token that is about to work.
		ans, err := s.awaitAnswer(r.Context(), rec.ID, rec.CreatedAt.Add(answerWindow), &delivery{})
		if errors.Is(err, errNoResponse) || errors.Is(err, errUnknownChannel) {
			return store.Interaction{}, errUnknownWebhook
		}
		if err != nil {
			return store.Interaction{}, err
		}
		rec = ans.Interaction
	}
	if s.nowIn(r.Context()).Sub(rec.CreatedAt) > tokenLifetime {
		return store.Interaction{}, errInvalidWebhookTok
	}
	return rec, nil
}

// createFollowup is POST /webhooks/{app}/{token}: a follow-up message
// (Execute Webhook with wait=true). Right after a deferred answer it fills
// the loading message instead, as the real service still does.
func (s *Server) createFollowup(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	rec, err := s.webhookInteraction(r)
	if err != nil {
		return err
	}
	d, err := s.readMessage(w, r, false, rec.ChannelID)
	if err != nil {
		return err
	}
	if orig, ok := s.loadingOriginal(r, rec); ok {
		d.Flags &^= interaction.FlagEphemeral // the placeholder's visibility stays
		body, err := s.editMessage(r, orig, d)
		if err != nil {
			return err
		}
		writeRaw(w, http.StatusOK, body)
		return nil
	}
	m, err := s.interactionMessage(ctx, rec, nil, s.ids.Next(), d, false)
	if err != nil {
		return err
	}
	defer s.noteFiles(ctx, m.Files)
	limit := 0
	if userInstallOnly(rec) {
		limit = userInstallFollowups
	}
	if err := s.store.CreateFollowup(ctx, rec.ID, limit, m); err != nil {
		if errors.Is(err, store.ErrConflict) {
			return errMaxFollowups
		}
		return store.NotFoundAs(err, errUnknownChannel)
	}
	writeRaw(w, http.StatusOK, m.Body)
	return nil
}

// userInstallFollowups is how many follow-ups an interaction authorized
// by a user's install alone may create (the real service's limit).
const userInstallFollowups = 5

var errMaxFollowups = apierr.New(http.StatusBadRequest, 40094, "This interaction has hit the maximum number of follow up messages")

// userInstallOnly reports whether only a user's install authorized the
// interaction (its owners hold USER_INSTALL and not GUILD_INSTALL): the
// app is not installed where it was used.
func userInstallOnly(rec store.Interaction) bool {
	var meta struct {
		Owners map[string]json.RawMessage `json:"authorizing_integration_owners"`
	}
	if json.Unmarshal(rec.Metadata, &meta) != nil {
		return false
	}
	return userOwnedOnly(meta.Owners)
}

// userOwnedOnly reports whether authorizing integration owners name the
// user installation (key "1") and not the guild's (key "0").
func userOwnedOnly[V any](owners map[string]V) bool {
	_, guild := owners["0"]
	_, user := owners["1"]
	return user && !guild
}

// loadingOriginal returns the deferred answer's placeholder while it is
// still loading.
func (s *Server) loadingOriginal(r *http.Request, rec store.Interaction) (store.Message, bool) {
	if rec.ResponseType != interaction.CallbackDeferredChannelMessage || rec.OriginalMessageID == 0 {
		return store.Message{}, false
	}
	m, err := s.store.Message(r.Context(), rec.OriginalMessageID)
	if err != nil {
		return store.Message{}, false
	}
	var msg struct {
		Flags uint64 `json:"flags"`
	}
	if json.Unmarshal(m.Body, &msg) != nil || msg.Flags&interaction.FlagLoading == 0 {
		return store.Message{}, false
	}
	return m, true
}

// webhookMessage finds the message a …/messages/{message_id} route names
// ("@original": the initial answer's). The token reaches its
// interaction's own messages (its answer and follow-ups) and, for a
// component or a modal opened from one, the message the component is on
// (docs/compat.md, "What an interaction's token reaches").
func (s *Server) webhookMessage(r *http.Request, rec store.Interaction) (store.Message, error) {
	raw := r.PathValue("message_id")
	var id snowflake.ID
	if raw == "@original" {
		id = rec.OriginalMessageID
		if id == 0 {
			return store.Message{}, errUnknownMessage
		}
	} else {
		var err error
		if id, err = pathID(r, "message_id"); err != nil {
			return store.Message{}, err
		}
	}
	m, err := s.store.Message(r.Context(), id)
	if err != nil {
		return store.Message{}, store.NotFoundAs(err, errUnknownMessage)
	}
	if m.InteractionID != rec.ID && m.ID != rec.OriginalMessageID && m.ID != rec.MessageID {
		return store.Message{}, errUnknownMessage
	}
	return m, nil
}

// webhookTarget resolves both: the token's interaction and the message
// the route names.
func (s *Server) webhookTarget(r *http.Request) (store.Message, error) {
	rec, err := s.webhookInteraction(r)
	if err != nil {
		return store.Message{}, err
	}
	return s.webhookMessage(r, rec)
}

// getWebhookMessage is GET /webhooks/{app}/{token}/messages/{id|@original}.
func (s *Server) getWebhookMessage(w http.ResponseWriter, r *http.Request) error {
	m, err := s.webhookTarget(r)
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, m.Body)
	return nil
}

// editWebhookMessage is PATCH /webhooks/{app}/{token}/messages/{id|@original}:
// only the keys sent change; editing a deferred answer's placeholder
// fills it.
func (s *Server) editWebhookMessage(w http.ResponseWriter, r *http.Request) error {
	m, err := s.webhookTarget(r)
	if err != nil {
		return err
	}
	d, err := s.readMessage(w, r, true, m.ChannelID)
	if err != nil {
		return err
	}
	body, err := s.editMessage(r, m, d)
	if err != nil {
		return err
	}
	writeRaw(w, http.StatusOK, body)
	return nil
}

// editMessage applies d to stored message m and stores it: a loading
// placeholder is filled (no longer loading, not marked edited), any other
// message gets its edited_timestamp.
func (s *Server) editMessage(r *http.Request, m store.Message, d interaction.MessageData) ([]byte, error) {
	var msg interaction.Message
	if err := json.Unmarshal(m.Body, &msg); err != nil {
		return nil, err
	}
	if err := interaction.CheckEdit(d, msg.Flags); err != nil {
		return nil, err
	}
	if err := interaction.CheckPollEdit(d, msg); err != nil {
		return nil, err
	}
	loading := msg.Flags&interaction.FlagLoading != 0
	files, err := s.applyMessage(&msg, d)
	if err != nil {
		return nil, err
	}
	if loading {
		msg.Flags &^= interaction.FlagLoading
	} else {
		ts := timestamp(s.nowIn(r.Context()))
		msg.EditedTimestamp = &ts
	}
	if messageEmpty(msg) {
		return nil, interaction.ErrEmptyMessage
	}
	body, err := encodeMessage(&msg)
	if err != nil {
		return nil, err
	}
	if err := s.store.UpdateMessage(r.Context(), m.ID, body, files); err != nil {
		return nil, store.NotFoundAs(err, errUnknownMessage)
	}
	s.noteFiles(r.Context(), files)
	return body, nil
}

// messageEmpty reports whether a message would show nothing.
func messageEmpty(m interaction.Message) bool {
	return m.Content == "" && len(m.Embeds) == 0 && len(m.Components) == 0 && len(m.Attachments) == 0 &&
		len(m.Poll) == 0 && m.ActivityInstance == nil
}

// deleteWebhookMessage is DELETE /webhooks/{app}/{token}/messages/{id|@original}.
func (s *Server) deleteWebhookMessage(w http.ResponseWriter, r *http.Request) error {
	m, err := s.webhookTarget(r)
	if err != nil {
		return err
	}
	if err := s.store.DeleteMessage(r.Context(), m.ID); err != nil {
		return store.NotFoundAs(err, errUnknownMessage)
	}
	writeNoContent(w)
	return nil
}

// readMessage reads a message body for channel: a new message (which may
// not be empty) or an edit (only the keys sent). Its files become its
// attachments (d.Uploads).
func (s *Server) readMessage(w http.ResponseWriter, r *http.Request, edit bool, channel snowflake.ID) (interaction.MessageData, error) {
	v, uploads, err := s.readPayload(w, r)
	if err != nil {
		return interaction.MessageData{}, err
	}
	att, err := s.attachUploads(r, v, uploads, channel, edit)
	if err != nil {
		return interaction.MessageData{}, err
	}
	d, err := interaction.ParseMessage(v, edit)
	if err != nil {
		return interaction.MessageData{}, err
	}
	d.Uploads = att
	if !edit && d.Empty() {
		return interaction.MessageData{}, interaction.ErrEmptyMessage
	}
	return d, nil
}

// readPayload reads a JSON body, or a multipart/form-data one
// (readMultipart) within the bound of a message request with its files.
func (s *Server) readPayload(w http.ResponseWriter, r *http.Request) (any, []interaction.Upload, error) {
	boundary, ok := multipartBoundary(r.Header.Get("Content-Type"))
	if !ok {
		v, err := s.readBody(w, r)
		return v, nil, err
	}
	return readMultipart(http.MaxBytesReader(w, r.Body, s.multipartLimit()), boundary)
}

// multipartLimit bounds a multipart body: the real service's 25 MiB per
// message request, or the configured body cap if larger.
func (s *Server) multipartLimit() int64 {
	return max(s.cfg.MaxBodyBytes, interaction.MaxMessageRequest)
}

// multipartBoundary reports whether a Content-Type is multipart/form-data,
// and its boundary ("" when it names none).
func multipartBoundary(contentType string) (string, bool) {
	mt, params, err := mime.ParseMediaType(contentType)
	if err != nil || !strings.EqualFold(mt, "multipart/form-data") {
		return "", false
	}
	return params["boundary"], true
}

// readMultipart reads a multipart/form-data body: the JSON of its
// payload_json part, and the files the other parts carry (libraries send
// that when files are attached), each within the attachment size limit
// and at most MaxFiles of them. A callback's body and an endpoint's
// inline answer are read alike.
func readMultipart(body io.Reader, boundary string) (any, []interaction.Upload, error) {
	if boundary == "" {
		return nil, nil, errInvalidJSON
	}
	mr := multipart.NewReader(body, boundary)
	var (
		v       any
		uploads []interaction.Upload
	)
	for {
		part, err := mr.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, nil, multipartError(err)
		}
		switch {
		case part.FormName() == "payload_json":
			b, err := io.ReadAll(part)
			if err != nil {
				return nil, nil, multipartError(err)
			}
			if v, err = form.DecodeJSON(b); err != nil {
				return nil, nil, errInvalidJSON
			}
		case part.FileName() != "":
			if len(uploads) == interaction.MaxFiles {
				return nil, nil, interaction.ErrTooManyFiles
			}
			data, err := readFilePart(part)
			if err != nil {
				return nil, nil, err
			}
			uploads = append(uploads, interaction.Upload{Index: fileIndex(part.FormName(), len(uploads)),
				Filename: part.FileName(), ContentType: part.Header.Get("Content-Type"), Data: data})
		}
	}
	if v == nil {
		return nil, nil, apierr.Invalid(form.CodeRequired, form.MsgRequired, "payload_json")
	}
	return v, uploads, nil
}

// readFilePart reads a file part, refusing one over the attachment size
// limit as soon as it is.
func readFilePart(part io.Reader) ([]byte, error) {
	data, err := io.ReadAll(io.LimitReader(part, interaction.AttachmentSizeLimit+1))
	if err != nil {
		return nil, multipartError(err)
	}
	if len(data) > interaction.AttachmentSizeLimit {
		return nil, interaction.ErrFileTooLarge
	}
	return data, nil
}

// multipartError is a broken or oversized multipart body's error.
func multipartError(err error) error {
	var tooBig *http.MaxBytesError
	if errors.As(err, &tooBig) {
		return errTooLarge
	}
	return errInvalidJSON
}

// fileIndex is n of a files[n] part name, else position.
func fileIndex(name string, position int) int {
	inner, ok := strings.CutPrefix(name, "files[")
	if inner, ok2 := strings.CutSuffix(inner, "]"); ok && ok2 {
		if n, err := strconv.Atoi(inner); err == nil && n >= 0 {
			return n
		}
	}
	return position
}

// attachUploads makes uploaded files attachments of the message object v
// (payload_json's), in channel, served from this server (files.go).
func (s *Server) attachUploads(r *http.Request, v any, uploads []interaction.Upload, channel snowflake.ID, edit bool) (interaction.Attached, error) {
	return s.attachUploadsAt(r.Context(), s.publicBase(r), v, uploads, channel, edit)
}

// attachUploadsAt is attachUploads with the links under base.
func (s *Server) attachUploadsAt(ctx context.Context, base string, v any, uploads []interaction.Upload, channel snowflake.ID, edit bool) (interaction.Attached, error) {
	msg, ok := v.(map[string]any)
	if !ok || len(uploads) == 0 {
		return interaction.Attached{}, nil
	}
	link, err := s.fileLinker(ctx, base)
	if err != nil {
		return interaction.Attached{}, err
	}
	return interaction.AttachUploads(msg, uploads, channel, edit, s.ids.Next, link)
}

// attachCallbackUploads is attachUploads for an interaction response: the
// message is its data; an UPDATE_MESSAGE edits the component's message.
func (s *Server) attachCallbackUploads(r *http.Request, v any, uploads []interaction.Upload, channel snowflake.ID) (interaction.Attached, error) {
	return s.attachCallbackUploadsAt(r.Context(), s.publicBase(r), v, uploads, channel)
}

// attachCallbackUploadsAt is attachCallbackUploads with the links under
// base.
func (s *Server) attachCallbackUploadsAt(ctx context.Context, base string, v any, uploads []interaction.Upload, channel snowflake.ID) (interaction.Attached, error) {
	o, ok := v.(map[string]any)
	if !ok {
		return interaction.Attached{}, nil
	}
	if _, ok := o["data"].(map[string]any); !ok && len(uploads) > 0 && o["data"] == nil {
		o["data"] = map[string]any{} // files alone make the message
	}
	t, _ := form.ToInt(o["type"])
	return s.attachUploadsAt(ctx, base, o["data"], uploads, channel, t == interaction.CallbackUpdateMessage)
}

// writeRaw writes a JSON body already rendered.
func writeRaw(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body)
}
