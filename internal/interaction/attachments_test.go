package interaction

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/snowflake"
)

// testLink is a Linker for tests: the path alone.
func testLink(channel, id snowflake.ID, filename string) string {
	return fmt.Sprintf("https://slashd.test/attachments/%d/%d/%s", channel, id, filename)
}

func TestAttachUploads(t *testing.T) {
	upload := func(i int, name string) Upload {
		return Upload{Index: i, Filename: name, ContentType: "application/x-ignored", Data: []byte(strings.Repeat("x", 10+i))}
	}
	link := func(id int, name string) string { return testLink(7, snowflake.ID(id), name) }
	text := func(id, size int, name, extra string) string {
		return fmt.Sprintf(`{"content_type":"text/plain; charset=utf-8",%s"filename":%q,"id":"%d","proxy_url":%q,"size":%d,"url":%q}`,
			extra, name, id, link(id, name), size, link(id, name))
	}
	cases := []struct {
		name     string
		msg      string // payload_json
		edit     bool
		uploads  []Upload
		want     string // the attachments after, as JSON
		unlisted int
	}{
		{name: "no uploads leave the message as sent", msg: `{"attachments":[{"id":"9"}]}`,
			want: `[{"id":"9"}]`},
		{name: "uploads without entries are added", msg: `{"content":"x"}`,
			uploads: []Upload{upload(0, "a.txt"), upload(1, "b.txt")},
			want:    `[` + text(100, 10, "a.txt", "") + `,` + text(101, 11, "b.txt", "") + `]`},
		{name: "an entry naming an upload describes it; others stay for ResolveAttachments",
			msg:     `{"attachments":[{"id":"123456789012345678"},{"id":1,"filename":"my file.txt","description":"d","title":"t"}]}`,
			uploads: []Upload{upload(1, "b.txt")},
			want:    `[{"id":"123456789012345678"},` + text(100, 11, "my file.txt", `"description":"d",`) + `]`},
		{name: "an edit without a list leaves the uploads unlisted", msg: `{"content":"x"}`, edit: true,
			uploads: []Upload{upload(0, "a.txt")}, want: `null`, unlisted: 1},
		{name: "an edit's list gets the unnamed uploads", msg: `{"attachments":[{"id":"5"}]}`, edit: true,
			uploads: []Upload{upload(0, "a.txt")}, want: `[{"id":"5"},` + text(100, 10, "a.txt", "") + `]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := form.DecodeJSON([]byte(c.msg)) // as payload_json is read
			if err != nil {
				t.Fatal(err)
			}
			msg := v.(map[string]any)
			next := snowflake.ID(99)
			att, err := AttachUploads(msg, c.uploads, 7, c.edit, func() snowflake.ID { next++; return next }, testLink)
			if err != nil {
				t.Fatal(err)
			}
			got, err := json.Marshal(msg["attachments"])
			if err != nil {
				t.Fatal(err)
			}
			if strings.ReplaceAll(string(got), `"title":"t",`, "") != c.want {
				t.Errorf("attachments:\n got %s\nwant %s", got, c.want)
			}
			if len(att.Files) != len(c.uploads) || len(att.Unlisted) != c.unlisted {
				t.Errorf("%d files, %d unlisted; want %d, %d", len(att.Files), len(att.Unlisted), len(c.uploads), c.unlisted)
			}
		})
	}
	t.Run("more than 10 files", func(t *testing.T) {
		var uploads []Upload
		for i := range MaxFiles + 1 {
			uploads = append(uploads, upload(i, "a.txt"))
		}
		_, err := AttachUploads(map[string]any{}, uploads, 7, false, func() snowflake.ID { return 1 }, testLink)
		if !errors.Is(err, ErrTooManyFiles) {
			t.Fatalf("error %v, want %v", err, ErrTooManyFiles)
		}
	})
}

func TestResolveAttachments(t *testing.T) {
	had := []json.RawMessage{json.RawMessage(`{"id":"10","filename":"old.txt","url":"u10"}`),
		json.RawMessage(`{"id":"11","filename":"old2.txt","url":"u11"}`)}
	fresh := Attached{Files: []File{{ID: 20, Filename: "new.png"}}}
	newEntry := json.RawMessage(`{"id":"20","filename":"new.png","size":0,"url":"u20","proxy_url":"u20"}`)
	cases := []struct {
		name     string
		d        MessageData
		att      Attached
		ephem    bool
		wantIDs  string
		wantPath string // the refused entry's error path ("": none)
	}{
		{name: "a new message keeps its uploads", d: MessageData{Attachments: []json.RawMessage{newEntry}, Set: map[string]bool{"attachments": true}},
			att: fresh, wantIDs: "[20]"},
		{name: "a new message's entry naming no upload", d: MessageData{Attachments: []json.RawMessage{newEntry, json.RawMessage(`{"id":"5"}`)},
			Set: map[string]bool{"attachments": true}}, att: fresh, wantPath: "attachments.1"},
		{name: "an edit keeps what it lists (stored as it was) and its uploads",
			d:   MessageData{Attachments: []json.RawMessage{json.RawMessage(`{"id":"11"}`), newEntry}, Set: map[string]bool{"attachments": true}},
			att: fresh, wantIDs: "[11 20]"},
		{name: "an edit without a list keeps all and adds the unlisted", d: MessageData{Set: map[string]bool{"content": true}},
			att: Attached{Files: fresh.Files, Unlisted: []json.RawMessage{newEntry}}, wantIDs: "[10 11 20]"},
		{name: "an edit naming an attachment it does not have",
			d: MessageData{Attachments: []json.RawMessage{json.RawMessage(`{"id":"12"}`)}, Set: map[string]bool{"attachments": true}}, wantPath: "attachments.0"},
		{name: "an ephemeral message's uploads say so", d: MessageData{Attachments: []json.RawMessage{newEntry}, Set: map[string]bool{"attachments": true}},
			att: fresh, ephem: true, wantIDs: "[20]"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			m := Message{Attachments: had}
			if c.ephem {
				m.Flags = FlagEphemeral
			}
			ids, err := ResolveAttachments(&m, c.d, c.att, had)
			if c.wantPath != "" {
				var ae *apierr.Error
				if !errors.As(err, &ae) || ae.Code != 50035 {
					t.Fatalf("error %v, want 50035", err)
				}
				b, _ := json.Marshal(ae)
				want := strings.ReplaceAll(c.wantPath, ".", `":{"`)
				if !strings.Contains(string(b), want) || !strings.Contains(string(b), "ATTACHMENT_NOT_FOUND") {
					t.Fatalf("error %s, want ATTACHMENT_NOT_FOUND at %s", b, c.wantPath)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := fmt.Sprint(ids); got != c.wantIDs {
				t.Errorf("ids %s, want %s", got, c.wantIDs)
			}
			if len(m.Attachments) != len(ids) {
				t.Errorf("%d attachments for %d ids", len(m.Attachments), len(ids))
			}
			for _, a := range m.Attachments {
				if strings.Contains(string(a), `"id":"11"`) && !strings.Contains(string(a), "old2.txt") {
					t.Errorf("a kept attachment was not kept as stored: %s", a)
				}
				if got := strings.Contains(string(a), `"ephemeral":true`); got != (c.ephem && strings.Contains(string(a), `"20"`)) {
					t.Errorf("ephemeral %v in %s", got, a)
				}
			}
		})
	}
}

func TestContentType(t *testing.T) {
	cases := []struct{ name, data, want string }{
		{"a.png", "", "image/png"},
		{"A.JPG", "", "image/jpeg"},
		{"notes.txt", "hello", "text/plain; charset=utf-8"},
		{"latin1.txt", "caf\xe9", "text/plain"},
		{"data.json", "{}", "application/json; charset=utf-8"},
		{"page.html", "<p>", "text/html; charset=utf-8"},
		{"archive.mp3.gz", "", "application/gzip"},
		{"noext", "", ""},
		{"x.unknownext", "", ""},
	}
	for _, c := range cases {
		if got := ContentType(c.name, []byte(c.data)); got != c.want {
			t.Errorf("ContentType(%q) = %q, want %q", c.name, got, c.want)
		}
	}
}

// encoded is a w×h image in the standard library's encoders.
func encoded(t testing.TB, format string, w, h int) []byte {
	img := image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{color.Black, color.White})
	var b bytes.Buffer
	var err error
	switch format {
	case "png":
		err = png.Encode(&b, img)
	case "jpeg":
		err = jpeg.Encode(&b, img, nil)
	case "gif":
		err = gif.Encode(&b, img, nil)
	}
	if err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// webp is a RIFF WebP header with one chunk of kind and payload.
func webp(kind string, payload []byte) []byte {
	b := []byte("RIFF\x00\x00\x00\x00WEBP" + kind + "\x00\x00\x00\x00")
	b = append(b, payload...)
	return append(b, make([]byte, 32)...)
}

func TestImageSize(t *testing.T) {
	cases := []struct {
		name       string
		data       []byte
		w, h       int
		recognized bool
	}{
		{"png", encoded(t, "png", 3, 2), 3, 2, true},
		{"jpeg", encoded(t, "jpeg", 17, 9), 17, 9, true},
		{"gif", encoded(t, "gif", 5, 40), 5, 40, true},
		// VP8X: flags, reserved, width-1 = 399, height-1 = 299 (24-bit little endian)
		{"webp extended", webp("VP8X", []byte{0, 0, 0, 0, 0x8f, 0x01, 0, 0x2b, 0x01, 0}), 400, 300, true},
		// VP8L: 0x2f, 14 bits width-1 = 99, 14 bits height-1 = 49
		{"webp lossless", webp("VP8L", []byte{0x2f, 0x63, 0x40, 0x0c, 0x00}), 100, 50, true},
		// VP8: frame tag, start code, width 640, height 480
		{"webp lossy", webp("VP8 ", []byte{0, 0, 0, 0x9d, 0x01, 0x2a, 0x80, 0x02, 0xe0, 0x01}), 640, 480, true},
		{"text", []byte("hello"), 0, 0, false},
		{"a truncated png", encoded(t, "png", 3, 2)[:10], 0, 0, false},
	}
	for _, c := range cases {
		w, h, ok := ImageSize(c.data)
		if ok != c.recognized || w != c.w || h != c.h {
			t.Errorf("%s: %d×%d %v, want %d×%d %v", c.name, w, h, ok, c.w, c.h, c.recognized)
		}
	}
}

// FuzzImageSize: any bytes are read without panicking, and a size found
// is positive.
func FuzzImageSize(f *testing.F) {
	f.Add(encoded(f, "png", 2, 2))
	f.Add(webp("VP8X", []byte{0, 0, 0, 0, 1, 0, 0, 1, 0, 0}))
	f.Add(webp("VP8L", []byte{0x2f, 1, 2, 3, 4}))
	f.Add(webp("VP8 ", []byte{0, 0, 0, 0x9d, 0x01, 0x2a, 1, 0, 1, 0}))
	f.Add([]byte("RIFF\x00\x00\x00\x00WEBPVP8X"))
	f.Fuzz(func(t *testing.T, data []byte) {
		if w, h, ok := ImageSize(data); ok && (w <= 0 || h <= 0) {
			t.Fatalf("%d×%d", w, h)
		}
	})
}

// FuzzAttachUploads: any payload and uploads are attached without
// panicking; each upload becomes one file.
func FuzzAttachUploads(f *testing.F) {
	f.Add(`{"attachments":[{"id":0,"description":"d"},{"id":"9"}]}`, 0, 1, false)
	f.Add(`{"content":"x"}`, 3, 2, true)
	f.Add(`{"attachments":"no"}`, 0, 0, true)
	f.Fuzz(func(t *testing.T, payload string, first, count int, edit bool) {
		v, err := form.DecodeJSON([]byte(payload))
		msg, ok := v.(map[string]any)
		if err != nil || !ok {
			return
		}
		count = max(0, min(count, MaxFiles))
		var uploads []Upload
		for i := range count {
			uploads = append(uploads, Upload{Index: first + i, Filename: "f.txt", Data: []byte("x")})
		}
		next := snowflake.ID(1000)
		att, err := AttachUploads(msg, uploads, 7, edit, func() snowflake.ID { next++; return next }, testLink)
		if err != nil || len(att.Files) != count {
			t.Fatalf("%d files for %d uploads, %v", len(att.Files), count, err)
		}
	})
}
