package interactions

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Client calls the REST endpoints an app uses to answer an interaction
// outside of the HTTP response to its delivery: the callback endpoint,
// and the follow-up and edit endpoints of the interaction's webhook. They
// need no Authorization: the interaction token in the path is the
// credential (the initial answer within 3 seconds, the rest for 15
// minutes).
//
// The zero value is not usable: set BaseURL. A Client is safe for
// concurrent use.
type Client struct {
	// BaseURL is the service's root, such as http://127.0.0.1:8080 for
	// slashd or https://discord.com; "/api/v10" is appended (unless
	// BaseURL already ends with it).
	BaseURL string
	// HTTP sends the requests; nil means http.DefaultClient.
	HTTP *http.Client
}

// userAgent is sent with every request (the real service asks bots for
// one of this shape).
const userAgent = "DiscordBot (https://github.com/slashd/slashd, 1)"

// maxResponseBytes caps how much of an answer the client reads.
const maxResponseBytes = 8 << 20

// JSON error codes the interaction endpoints answer with (APIError.Code).
const (
	CodeUnknownMessage      = 10008 // the message does not exist or is not the interaction's
	CodeUnknownWebhook      = 10015 // unknown token, or the initial answer is not in yet
	CodeUnknownInteraction  = 10062 // unknown interaction, or its 3 seconds are over
	CodeAlreadyAcknowledged = 40060 // the interaction already has its initial answer
	CodeEmptyMessage        = 50006 // a message with nothing to show
	CodeInvalidWebhookToken = 50027 // the token is older than 15 minutes
)

// APIError is a non-2xx answer from the service.
type APIError struct {
	// Status is the HTTP status code.
	Status int
	// Code is the JSON error code (CodeUnknownWebhook, …); 0 for a
	// general error or when the body held none.
	Code int
	// Message is the body's "message", or the HTTP status text when the
	// body held none.
	Message string
	// Errors is the body's "errors" object (which fields were refused
	// and why), nil when absent.
	Errors json.RawMessage
	// RetryAfter is how long to wait before retrying, after a 429.
	RetryAfter time.Duration
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("interactions: HTTP %d: %s", e.Status, e.Message)
	if e.Code != 0 {
		s += fmt.Sprintf(" (code %d)", e.Code)
	}
	if len(e.Errors) > 0 {
		s += ": " + string(e.Errors)
	}
	return s
}

// EditData is an edit of a sent message: only the fields that are set are
// sent, and only those change. A nil pointer or nil slice leaves the
// field as it is; a pointer to "" clears the content, and an empty
// non-nil slice removes every embed or component. With Go 1.26:
//
//	interactions.EditData{Content: new("done")}
//
// marshals as {"content":"done"}. Embeds are raw JSON objects, as the
// service defines them; Components are action rows (Row) or raw JSON
// objects, as in MessageData.
type EditData struct {
	Content         *string
	Flags           *int
	AllowedMentions *AllowedMentions
	Embeds          []json.RawMessage
	Components      []any
}

// MarshalJSON writes the fields that are set.
func (e EditData) MarshalJSON() ([]byte, error) {
	m := map[string]any{}
	if e.Content != nil {
		m["content"] = *e.Content
	}
	if e.Flags != nil {
		m["flags"] = *e.Flags
	}
	if e.AllowedMentions != nil {
		m["allowed_mentions"] = e.AllowedMentions
	}
	if e.Embeds != nil {
		m["embeds"] = e.Embeds
	}
	if e.Components != nil {
		m["components"] = e.Components
	}
	return marshal(m)
}

// ChannelMessage is a message as the service returns it (the follow-up
// and webhook message endpoints), with its commonly used fields; Raw holds
// the whole JSON.
type ChannelMessage struct {
	ID              string            `json:"id"`
	Type            int               `json:"type"`
	ChannelID       string            `json:"channel_id"`
	Author          User              `json:"author"`
	Content         string            `json:"content"`
	Flags           int               `json:"flags"`
	Embeds          []json.RawMessage `json:"embeds"`
	Components      []json.RawMessage `json:"components"`
	Timestamp       time.Time         `json:"timestamp"`
	EditedTimestamp *time.Time        `json:"edited_timestamp"`
	ApplicationID   string            `json:"application_id,omitempty"`
	WebhookID       string            `json:"webhook_id,omitempty"`

	// Raw is the message's JSON as received.
	Raw json.RawMessage `json:"-"`
}

// FlagLoading is the message flag of a Defer answer's message that is
// not filled in yet (1<<7, LOADING); the service sets it.
const FlagLoading = 1 << 7

// UnmarshalJSON decodes a message and keeps its JSON in Raw.
func (m *ChannelMessage) UnmarshalJSON(b []byte) error {
	type plain ChannelMessage
	var p plain
	if err := json.Unmarshal(b, &p); err != nil {
		return err
	}
	*m = ChannelMessage(p)
	m.Raw = append(json.RawMessage(nil), b...)
	return nil
}

// CallbackResult is the interaction callback response: what
// RespondWithResult returns.
type CallbackResult struct {
	Interaction CallbackInteraction `json:"interaction"`
	// Resource is what the answer created; nil when the service sent none.
	Resource *CallbackResource `json:"resource,omitempty"`

	// Raw is the whole JSON as received.
	Raw json.RawMessage `json:"-"`
}

// CallbackInteraction describes the interaction that was answered.
type CallbackInteraction struct {
	ID   string          `json:"id"`
	Type InteractionType `json:"type"`
	// ActivityInstanceID is set after a LaunchActivity answer.
	ActivityInstanceID string `json:"activity_instance_id,omitempty"`
	// ResponseMessageID is the answer's message, for message answers.
	ResponseMessageID        string `json:"response_message_id,omitempty"`
	ResponseMessageLoading   bool   `json:"response_message_loading,omitempty"`
	ResponseMessageEphemeral bool   `json:"response_message_ephemeral,omitempty"`
}

// CallbackResource is what an answer created.
type CallbackResource struct {
	Type CallbackType `json:"type"`
	// ActivityInstance is the launched Activity (LaunchActivity).
	ActivityInstance *ActivityInstance `json:"activity_instance,omitempty"`
	// Message is the message posted or updated (types 4 and 7).
	Message *ChannelMessage `json:"message,omitempty"`
}

// ActivityInstance is a launched Activity.
type ActivityInstance struct {
	ID string `json:"id"`
}

// Respond sends the initial answer to an interaction (POST
// /interactions/{id}/{token}/callback), within 3 seconds of its creation.
// An app answering this way answers the delivery's HTTP request with 202
// and no body (Handler answers inline instead: use VerifyRequest and
// Decode to do this), or received the interaction over the gateway.
func (c *Client) Respond(ctx context.Context, interactionID, token string, r Response) error {
	p, err := callbackPath(interactionID, token)
	if err != nil {
		return err
	}
	return c.do(ctx, http.MethodPost, p, r, nil)
}

// RespondWithResult is Respond asking for the callback response
// (?with_response=true): the message created, the Activity launched.
func (c *Client) RespondWithResult(ctx context.Context, interactionID, token string, r Response) (CallbackResult, error) {
	p, err := callbackPath(interactionID, token)
	if err != nil {
		return CallbackResult{}, err
	}
	var raw json.RawMessage
	if err := c.do(ctx, http.MethodPost, p+"?with_response=true", r, &raw); err != nil {
		return CallbackResult{}, err
	}
	var out CallbackResult
	if len(raw) == 0 {
		return out, nil
	}
	if err := json.Unmarshal(raw, &out); err != nil {
		return CallbackResult{}, fmt.Errorf("interactions: decoding callback response: %w", err)
	}
	out.Raw = raw
	return out, nil
}

// Followup posts a follow-up message (POST /webhooks/{app}/{token}) and
// returns it. Right after a Defer answer the service fills the loading
// message instead of posting a new one. Set FlagEphemeral in m.Flags for a
// message only the invoking user sees.
func (c *Client) Followup(ctx context.Context, appID, token string, m MessageData) (ChannelMessage, error) {
	p, err := webhookPath(appID, token)
	if err != nil {
		return ChannelMessage{}, err
	}
	return c.message(ctx, http.MethodPost, p, m)
}

// GetOriginal returns the message of the initial answer.
func (c *Client) GetOriginal(ctx context.Context, appID, token string) (ChannelMessage, error) {
	return c.GetFollowup(ctx, appID, token, "@original")
}

// EditOriginal edits the message of the initial answer; editing a Defer
// answer's loading message fills it in.
func (c *Client) EditOriginal(ctx context.Context, appID, token string, e EditData) (ChannelMessage, error) {
	return c.EditFollowup(ctx, appID, token, "@original", e)
}

// DeleteOriginal deletes the message of the initial answer.
func (c *Client) DeleteOriginal(ctx context.Context, appID, token string) error {
	return c.DeleteFollowup(ctx, appID, token, "@original")
}

// GetFollowup returns a message the interaction posted.
func (c *Client) GetFollowup(ctx context.Context, appID, token, messageID string) (ChannelMessage, error) {
	p, err := webhookMessagePath(appID, token, messageID)
	if err != nil {
		return ChannelMessage{}, err
	}
	return c.message(ctx, http.MethodGet, p, nil)
}

// EditFollowup edits a message the interaction posted: only the fields
// set in e change.
func (c *Client) EditFollowup(ctx context.Context, appID, token, messageID string, e EditData) (ChannelMessage, error) {
	p, err := webhookMessagePath(appID, token, messageID)
	if err != nil {
		return ChannelMessage{}, err
	}
	return c.message(ctx, http.MethodPatch, p, e)
}

// DeleteFollowup deletes a message the interaction posted.
func (c *Client) DeleteFollowup(ctx context.Context, appID, token, messageID string) error {
	p, err := webhookMessagePath(appID, token, messageID)
	if err != nil {
		return err
	}
	return c.do(ctx, http.MethodDelete, p, nil, nil)
}

func callbackPath(interactionID, token string) (string, error) {
	if interactionID == "" || token == "" {
		return "", errors.New("interactions: empty interaction id or token")
	}
	return "/interactions/" + url.PathEscape(interactionID) + "/" + url.PathEscape(token) + "/callback", nil
}

func webhookPath(appID, token string) (string, error) {
	if appID == "" || token == "" {
		return "", errors.New("interactions: empty application id or token")
	}
	return "/webhooks/" + url.PathEscape(appID) + "/" + url.PathEscape(token), nil
}

func webhookMessagePath(appID, token, messageID string) (string, error) {
	p, err := webhookPath(appID, token)
	if err != nil {
		return "", err
	}
	if messageID == "" {
		return "", errors.New("interactions: empty message id")
	}
	return p + "/messages/" + url.PathEscape(messageID), nil
}

// message sends a request answered with a message.
func (c *Client) message(ctx context.Context, method, path string, body any) (ChannelMessage, error) {
	var m ChannelMessage
	if err := c.do(ctx, method, path, body, &m); err != nil {
		return ChannelMessage{}, err
	}
	if m.ID == "" {
		return ChannelMessage{}, fmt.Errorf("interactions: %s %s: answer is not a message", method, path)
	}
	return m, nil
}

// do sends body (JSON; none when nil) and decodes a 2xx answer's body into
// out (when out is not nil and there is a body). Other answers are an
// *APIError.
func (c *Client) do(ctx context.Context, method, path string, body, out any) error {
	base := strings.TrimRight(c.BaseURL, "/")
	if base == "" {
		return errors.New("interactions: Client.BaseURL is empty")
	}
	if !strings.HasSuffix(base, "/api/v10") {
		base += "/api/v10"
	}
	var rd io.Reader
	if body != nil {
		b, err := marshal(body)
		if err != nil {
			return fmt.Errorf("interactions: encoding request: %w", err)
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		return fmt.Errorf("interactions: %w", err)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("User-Agent", userAgent)
	hc := c.HTTP
	if hc == nil {
		hc = http.DefaultClient
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("interactions: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxResponseBytes))
	if err != nil {
		return fmt.Errorf("interactions: %s %s: reading answer: %w", method, path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return newAPIError(resp, b)
	}
	if out == nil || len(bytes.TrimSpace(b)) == 0 {
		return nil
	}
	if err := json.Unmarshal(b, out); err != nil {
		return fmt.Errorf("interactions: %s %s: decoding answer: %w", method, path, err)
	}
	return nil
}

// newAPIError reads the service's error body: {"code", "message",
// "errors"?, "retry_after"?}.
func newAPIError(resp *http.Response, body []byte) *APIError {
	e := &APIError{Status: resp.StatusCode}
	var v struct {
		Code       int             `json:"code"`
		Message    string          `json:"message"`
		Errors     json.RawMessage `json:"errors"`
		RetryAfter float64         `json:"retry_after"`
	}
	if json.Unmarshal(body, &v) == nil {
		e.Code, e.Message = v.Code, v.Message
		if len(v.Errors) > 0 && string(v.Errors) != "null" {
			e.Errors = v.Errors
		}
		e.RetryAfter = time.Duration(v.RetryAfter * float64(time.Second))
	}
	if s, err := strconv.ParseFloat(resp.Header.Get("Retry-After"), 64); e.RetryAfter == 0 && err == nil && s > 0 {
		e.RetryAfter = time.Duration(s * float64(time.Second))
	}
	if e.Message == "" {
		e.Message = http.StatusText(resp.StatusCode)
	}
	return e
}
