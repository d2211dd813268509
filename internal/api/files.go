package api

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/interaction"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// Files uploaded with messages are kept by the store (store.Files) and
// served here, at the real CDN's path under slashd's own base URL:
//
//	{base}/attachments/{channel_id}/{attachment_id}/{filename}?ex=…&is=…&hm=…
//
// The query is the CDN's signature: ex and is are the hex Unix times the
// link expires and was issued, hm the hex HMAC-SHA256 of the channel,
// the attachment and both times under a key the store keeps (so every
// node of a cluster checks what any node signed). Ids alone reach
// nothing: a file of another world, app or channel is read only through
// the link its message carries. docs/design.md ("Uploaded files") says
// why the store holds them; docs/compat.md ("Message bodies: attachments
// and files") what the real service does.

// DefaultFilesQuota bounds the bytes of all stored files unless
// configured: the oldest go first past it.
const DefaultFilesQuota int64 = 1 << 30

// DefaultUploadBudget bounds the bytes of multipart bodies this node
// holds at once (files are read whole before their message is stored):
// ten requests of the largest size.
const DefaultUploadBudget int64 = 10 * interaction.MaxMessageRequest

// linkLifetime is how long after issue a link's ex says it expires (the
// real CDN's 24 hours). slashd stores messages rendered, links included,
// and does not sign them again on each read as the real service does:
// it checks the signature, not the expiry.
const linkLifetime = 24 * time.Hour

// fileKeyLen is the signing key's length.
const fileKeyLen = 32

// fileKey loads the signing key from the store once (an error is tried
// again on the next use).
type fileKey struct {
	mu  sync.Mutex
	key []byte
}

func (k *fileKey) get(ctx context.Context, st store.Store) ([]byte, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.key != nil {
		return k.key, nil
	}
	candidate := make([]byte, fileKeyLen)
	if _, err := rand.Read(candidate); err != nil {
		return nil, fmt.Errorf("file signing key: %w", err)
	}
	key, err := st.FileSigningKey(ctx, candidate)
	if err != nil {
		return nil, err
	}
	k.key = key
	return key, nil
}

// fileSignature is hm of a link.
func fileSignature(key []byte, channel, id snowflake.ID, expires, issued int64) []byte {
	mac := hmac.New(sha256.New, key)
	fmt.Fprintf(mac, "%d/%d?ex=%x&is=%x", channel, id, expires, issued)
	return mac.Sum(nil)
}

// fileLinker signs the links of uploaded files, under base (the
// server's URL: publicBase).
func (s *Server) fileLinker(ctx context.Context, base string) (interaction.Linker, error) {
	key, err := s.fileKey.get(ctx, s.store)
	if err != nil {
		return nil, err
	}
	issued := s.now().Unix()
	expires := issued + int64(linkLifetime/time.Second)
	return func(channel, id snowflake.ID, filename string) string {
		return fmt.Sprintf("%s/attachments/%d/%d/%s?ex=%x&is=%x&hm=%x&", base, channel, id, url.PathEscape(filename),
			expires, issued, fileSignature(key, channel, id, expires, issued))
	}, nil
}

// publicBase is the URL slashd is reached at: Config.PublicURL, else the
// request's own scheme and Host (behind a proxy that terminates TLS or
// rewrites the host, set PublicURL).
func (s *Server) publicBase(r *http.Request) string {
	if s.cfg.PublicURL != "" {
		return strings.TrimSuffix(s.cfg.PublicURL, "/")
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	return scheme + "://" + r.Host
}

// fileGone is the CDN's answer for a link that reaches no file: an
// unknown or evicted one, or a signature that does not check.
const fileGone = "This content is no longer available."

// serveFile is GET (and HEAD) /attachments/{channel_id}/{attachment_id}/{filename}.
func (s *Server) serveFile(w http.ResponseWriter, r *http.Request) {
	f, ok := s.signedFile(r)
	if !ok {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		w.Header().Set("X-Content-Type-Options", "nosniff")
		w.WriteHeader(http.StatusNotFound)
		_, _ = w.Write([]byte(fileGone))
		return
	}
	h := w.Header()
	ct := f.ContentType
	if ct == "" {
		ct = "application/octet-stream"
	}
	h.Set("Content-Type", ct)
	h.Set("X-Content-Type-Options", "nosniff")
	// Never run what was uploaded on slashd's origin (the playground and
	// the admin API live there): no script, no plugin, no frame; only
	// images, audio and video show inline, anything else downloads.
	h.Set("Content-Security-Policy", "default-src 'none'; img-src 'self'; media-src 'self'; style-src 'unsafe-inline'; sandbox")
	h.Set("Content-Disposition", mime.FormatMediaType(disposition(ct), map[string]string{"filename": f.Filename}))
	h.Set("ETag", `"`+f.ID.String()+`"`)
	h.Set("Cache-Control", "private, max-age=86400")
	http.ServeContent(w, r, "", f.ID.Time(), bytes.NewReader(f.Data))
}

// disposition is how a file of content type ct is shown: inline for
// images, audio and video the browser renders as such (not SVG, which
// is a document that may run script), as an attachment otherwise.
func disposition(ct string) string {
	mt, _, _ := mime.ParseMediaType(ct)
	switch {
	case mt == "image/svg+xml":
		return "attachment"
	case strings.HasPrefix(mt, "image/"), strings.HasPrefix(mt, "audio/"), strings.HasPrefix(mt, "video/"):
		return "inline"
	}
	return "attachment"
}

// signedFile reads the file a link names, if its signature checks and
// the path matches the file's channel and name.
func (s *Server) signedFile(r *http.Request) (store.File, bool) {
	channel, err1 := snowflake.Parse(r.PathValue("channel_id"))
	id, err2 := snowflake.Parse(r.PathValue("attachment_id"))
	q := r.URL.Query()
	expires, err3 := strconv.ParseInt(q.Get("ex"), 16, 64)
	issued, err4 := strconv.ParseInt(q.Get("is"), 16, 64)
	hm, err5 := hex.DecodeString(q.Get("hm"))
	if err := errors.Join(err1, err2, err3, err4, err5); err != nil {
		return store.File{}, false
	}
	key, err := s.fileKey.get(r.Context(), s.store)
	if err != nil {
		s.log.ErrorContext(r.Context(), "file signing key", "err", err)
		return store.File{}, false
	}
	if !hmac.Equal(hm, fileSignature(key, channel, id, expires, issued)) {
		return store.File{}, false
	}
	f, err := s.store.File(r.Context(), id)
	if err != nil {
		if !errors.Is(err, store.ErrNotFound) {
			s.log.ErrorContext(r.Context(), "read file", "file", id, "err", err)
		}
		return store.File{}, false
	}
	if f.ChannelID != channel || f.Filename != r.PathValue("filename") {
		return store.File{}, false
	}
	return f, true
}

// noteFiles counts what a message write did to the stored files, and
// logs evictions.
func (s *Server) noteFiles(ctx context.Context, fw *store.FileWrite) {
	if fw == nil {
		return
	}
	var bytes int64
	for _, f := range fw.Add {
		bytes += int64(len(f.Data))
	}
	if len(fw.Add) > 0 {
		s.metrics.filesStored.With().Add(float64(len(fw.Add)))
		s.metrics.fileBytesStored.With().Add(float64(bytes))
		s.log.DebugContext(ctx, "files stored", "files", len(fw.Add), "bytes", bytes)
	}
	if fw.Evicted > 0 {
		s.metrics.filesEvicted.With().Add(float64(fw.Evicted))
		s.metrics.fileBytesEvicted.With().Add(float64(fw.EvictedBytes))
		s.log.InfoContext(ctx, "files evicted past the quota", slog.Int("files", fw.Evicted),
			slog.Int64("bytes", fw.EvictedBytes), slog.Int64("quota", fw.Quota))
	}
}

// uploadBudget bounds the multipart bytes held at once: a request takes
// its share (its Content-Length, or the most a message request may be)
// before its body is read and gives it back when answered; past the
// budget, requests wait their turn (or their client's patience). One
// request may take the whole budget, so none waits forever.
type uploadBudget struct {
	mu      sync.Mutex
	limit   int64
	held    int64
	waiting []uploadWaiter
}

type uploadWaiter struct {
	n     int64
	ready chan struct{}
}

// acquire takes n bytes of the budget (at most the whole of it).
func (b *uploadBudget) acquire(ctx context.Context, n int64) (int64, error) {
	n = min(n, b.limit)
	b.mu.Lock()
	if len(b.waiting) == 0 && b.held+n <= b.limit {
		b.held += n
		b.mu.Unlock()
		return n, nil
	}
	ready := make(chan struct{})
	b.waiting = append(b.waiting, uploadWaiter{n: n, ready: ready})
	b.mu.Unlock()
	select {
	case <-ready:
		return n, nil
	case <-ctx.Done():
		b.mu.Lock()
		defer b.mu.Unlock()
		select {
		case <-ready: // granted meanwhile: give it back
			b.held -= n
			b.wake()
		default:
			for i, w := range b.waiting {
				if w.ready == ready {
					b.waiting = append(b.waiting[:i], b.waiting[i+1:]...)
					break
				}
			}
			b.wake()
		}
		return 0, ctx.Err()
	}
}

// release gives n bytes back.
func (b *uploadBudget) release(n int64) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.held -= n
	b.wake()
}

// wake grants waiters in order while they fit (the first always does
// once nothing is held).
func (b *uploadBudget) wake() {
	for len(b.waiting) > 0 && b.held+b.waiting[0].n <= b.limit {
		w := b.waiting[0]
		b.waiting = b.waiting[1:]
		b.held += w.n
		close(w.ready)
	}
}

// inFlight is the bytes held.
func (b *uploadBudget) inFlight() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.held
}

// holdUploadBudget takes a multipart request's share of the upload
// budget; the function it returns gives it back. Other requests take
// nothing.
func (s *Server) holdUploadBudget(r *http.Request) (func(), error) {
	if _, ok := multipartBoundary(r.Header.Get("Content-Type")); !ok {
		return func() {}, nil
	}
	n := r.ContentLength
	if limit := s.multipartLimit(); n < 0 || n > limit {
		n = limit // the body is cut there
	}
	held, err := s.uploads.acquire(r.Context(), n)
	if err != nil {
		return nil, apierr.New(http.StatusServiceUnavailable, 0, "upload cancelled while waiting for memory")
	}
	return func() { s.uploads.release(held) }, nil
}
