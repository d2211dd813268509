package slashdtest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// APIError is slashd's answer to a request it refused or could not
// complete: the HTTP status and the JSON error body, as the real service
// sends it. Find it with errors.As:
//
//	var apiErr *slashdtest.APIError
//	if errors.As(err, &apiErr) && apiErr.Code == 50013 { … }
//
// Common ones when invoking: 403 with code 50013 (Missing Permissions:
// the member may not use the command there), 504 with message "The
// application did not respond" (no answer within 3 seconds), 502 with
// "This interaction failed" (the app answered with an error status or an
// invalid response), 400 with code 50035 (invalid options, Errors says
// which).
type APIError struct {
	// Status is the HTTP status code.
	Status int
	// Code is the JSON error code (0 for general errors).
	Code int
	// Message is the error message.
	Message string
	// Errors is the "errors" object of validation errors (code 50035),
	// nested by field path; nil when absent.
	Errors json.RawMessage
	// Method and Path are the request that failed.
	Method, Path string
}

func (e *APIError) Error() string {
	s := fmt.Sprintf("slashdtest: %s %s: %d %s (code %d)", e.Method, e.Path, e.Status, e.Message, e.Code)
	if len(e.Errors) > 0 {
		s += ": " + string(e.Errors)
	}
	return s
}

// do sends a request to the server. body is sent as it is when it is
// []byte, json.RawMessage or string, and JSON-encoded otherwise (nil: no
// body). A 2xx answer is decoded into out unless out is nil; any other is
// an *APIError.
func (s *Server) do(ctx context.Context, method, path, auth string, body, out any) error {
	return send(ctx, s.client, s.URL, method, path, auth, "", body, out)
}

// send is do for any server: base is its URL, contentType the body's
// type ("" for JSON).
func send(ctx context.Context, hc *http.Client, base, method, path, auth, contentType string, body, out any) error {
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case json.RawMessage:
		rd = bytes.NewReader(b)
	case []byte:
		rd = bytes.NewReader(b)
	case string:
		rd = strings.NewReader(b)
	default:
		enc, err := json.Marshal(b)
		if err != nil {
			return fmt.Errorf("slashdtest: encode the body of %s %s: %w", method, path, err)
		}
		rd = bytes.NewReader(enc)
	}
	req, err := http.NewRequestWithContext(ctx, method, base+path, rd)
	if err != nil {
		return fmt.Errorf("slashdtest: %w", err)
	}
	if rd != nil {
		if contentType == "" {
			contentType = "application/json"
		}
		req.Header.Set("Content-Type", contentType)
	}
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	resp, err := hc.Do(req)
	if err != nil {
		return fmt.Errorf("slashdtest: %s %s: %w", method, path, err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("slashdtest: %s %s: read the answer: %w", method, path, err)
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return apiError(method, path, resp.StatusCode, raw)
	}
	if out == nil || resp.StatusCode == http.StatusNoContent {
		return nil
	}
	if err := json.Unmarshal(raw, out); err != nil {
		return fmt.Errorf("slashdtest: %s %s: decode %s: %w", method, path, raw, err)
	}
	return nil
}

// apiError reads an error body; one that is not the JSON envelope is kept
// whole as the message.
func apiError(method, path string, status int, body []byte) *APIError {
	e := &APIError{Status: status, Method: method, Path: path}
	var env struct {
		Code    *int            `json:"code"`
		Message string          `json:"message"`
		Errors  json.RawMessage `json:"errors"`
	}
	if json.Unmarshal(body, &env) == nil && env.Code != nil {
		e.Code, e.Message = *env.Code, env.Message
		if len(env.Errors) > 0 && string(env.Errors) != "null" {
			e.Errors = env.Errors
		}
		return e
	}
	e.Message = strings.TrimSpace(string(body))
	if e.Message == "" {
		e.Message = http.StatusText(status)
	}
	return e
}
