package interactions

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"net/http"
)

// HandlerFunc answers one interaction. The context is the HTTP request's.
type HandlerFunc func(ctx context.Context, i *Interaction) (Response, error)

// Handler returns an http.Handler for an Interactions Endpoint URL. For
// every request it:
//
//   - refuses methods other than POST with 405;
//   - verifies the signature with publicKeyHex and answers 401 when it is
//     missing or wrong (413 when the body exceeds MaxBodyBytes);
//   - decodes the interaction (400 when the body is not one);
//   - answers a PING (type 1) with {"type":1} itself, without calling h;
//   - otherwise calls h and writes its Response as JSON with status 200 and
//     Content-Type application/json. An error from h, or a Response
//     without a Type, gives 500 and nothing is sent to the service.
//
// Handler panics when publicKeyHex is not a valid public key (check it
// first with ParsePublicKey when it comes from configuration).
func Handler(publicKeyHex string, h func(ctx context.Context, i *Interaction) (Response, error)) http.Handler {
	key, err := ParsePublicKey(publicKeyHex)
	if err != nil {
		panic(err)
	}
	if h == nil {
		panic("interactions: nil handler function")
	}
	return &handler{key: key, h: h}
}

type handler struct {
	key []byte
	h   HandlerFunc
}

func (s *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if r.Method != http.MethodPost {
		w.Header().Set("Allow", http.MethodPost)
		httpError(w, http.StatusMethodNotAllowed)
		return
	}
	body, err := VerifyRequest(s.key, r)
	switch {
	case errors.Is(err, ErrBodyTooLarge):
		httpError(w, http.StatusRequestEntityTooLarge)
		return
	case isSignatureError(err):
		httpError(w, http.StatusUnauthorized)
		return
	case err != nil:
		httpError(w, http.StatusBadRequest)
		return
	}
	i, err := Decode(body)
	if err != nil {
		httpError(w, http.StatusBadRequest)
		return
	}
	if i.Type == InteractionPing {
		writeJSON(w, Pong())
		return
	}
	resp, err := s.h(r.Context(), i)
	if err != nil || resp.Type == 0 {
		httpError(w, http.StatusInternalServerError)
		return
	}
	writeJSON(w, resp)
}

func writeJSON(w http.ResponseWriter, v any) {
	b, err := marshal(v)
	if err != nil {
		httpError(w, http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.Write(b)
}

func httpError(w http.ResponseWriter, status int) {
	http.Error(w, http.StatusText(status), status)
}

// marshal is json.Marshal without HTML escaping: < > & stay as they are
// in what an app sends, as every other client writes them.
func marshal(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte("\n")), nil
}
