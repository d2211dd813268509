package api_test

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"net/textproto"
	"net/url"
	"strings"
	"testing"

	"github.com/slashd/slashd/internal/api"
	"github.com/slashd/slashd/internal/testenv"
)

// served is a file as slashd served it.
type served struct {
	status int
	header http.Header
	body   []byte
}

// fetchFile GETs a file's link (no Authorization, as a browser or a
// test does) and checks the status.
func fetchFile(t testing.TB, e *testenv.Env, link string, status int) served {
	t.Helper()
	resp, err := e.Server.Client().Get(link)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != status {
		t.Fatalf("GET %s: %d %s, want %d", link, resp.StatusCode, body, status)
	}
	return served{status: resp.StatusCode, header: resp.Header, body: body}
}

// upload is one files[n] part.
type upload struct {
	field, name string
	data        []byte
}

// sendFiles sends payload_json and files as a multipart body.
func sendFiles(t testing.TB, e *testenv.Env, method, path, auth, payload string, files ...upload) testenv.Response {
	t.Helper()
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	if payload != "" {
		if err := mw.WriteField("payload_json", payload); err != nil {
			t.Fatal(err)
		}
	}
	for _, f := range files {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", fmt.Sprintf(`form-data; name=%q; filename=%q`, f.field, f.name))
		h.Set("Content-Type", "application/octet-stream")
		pw, err := mw.CreatePart(h)
		if err != nil {
			t.Fatal(err)
		}
		_, _ = pw.Write(f.data)
	}
	if err := mw.Close(); err != nil {
		t.Fatal(err)
	}
	headers := map[string]string{"Content-Type": mw.FormDataContentType()}
	if auth != "" {
		headers["Authorization"] = auth
	}
	return send(t, e, method, path, headers, b.Bytes())
}

// pngOf is a w×h PNG.
func pngOf(t testing.TB, w, h int) []byte {
	t.Helper()
	img := image.NewRGBA(image.Rect(0, 0, w, h))
	for x := range w {
		img.Set(x, 0, color.RGBA{R: uint8(x), A: 255})
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// attachmentsOf lists a message's attachment objects.
func attachmentsOf(t testing.TB, m jsonObj) []jsonObj {
	t.Helper()
	list, ok := m["attachments"].([]any)
	if !ok {
		t.Fatalf("attachments: %v", m["attachments"])
	}
	out := make([]jsonObj, len(list))
	for i, a := range list {
		out[i], _ = a.(jsonObj)
	}
	return out
}

// answeredHook is an invocation answered with a message, and its webhook
// path (follow-ups, edits: the token is the credential).
func (w *gatewayWorld) answeredHook(t *testing.T) (*pending, string) {
	t.Helper()
	p := w.start(t, w.invocation(2))
	w.callback(t, p, "", jsonObj{"type": 4, "data": jsonObj{"content": "answer"}}, 204)
	wantStatus(t, p.wait(t), 200)
	return p, "/api/v10/webhooks/" + w.app + "/" + p.token
}

// An image answered through the callback is stored and served byte for
// byte, described as the real service describes it, with the headers a
// CDN answers with (length, type, ETag, ranges) and none that would let
// it run on slashd's origin.
func TestFilesServedByteForByte(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGatewayWorld(t, e)
	img := pngOf(t, 64, 48)
	p := w.start(t, w.invocation(2))
	wantStatus(t, sendFiles(t, e, "POST", p.callbackPath(""), "",
		`{"type":4,"data":{"content":"chart","attachments":[{"id":0,"description":"a chart"}]}}`,
		upload{"files[0]", "chart.png", img}), 204)
	_, _, msg := answerParts(t, p.wait(t))
	a := attachmentsOf(t, msg)[0]
	if a["filename"] != "chart.png" || a["content_type"] != "image/png" || a["size"] != float64(len(img)) ||
		a["width"] != 64.0 || a["height"] != 48.0 || a["description"] != "a chart" || a["proxy_url"] != a["url"] {
		t.Fatalf("attachment %v", a)
	}
	link := str(a, "url")
	if !strings.HasPrefix(link, e.URL+"/attachments/"+w.channel+"/"+str(a, "id")+"/chart.png?ex=") ||
		!strings.Contains(link, "&is=") || !strings.Contains(link, "&hm=") {
		t.Fatalf("url %s", link)
	}
	got := fetchFile(t, e, link, 200)
	if !bytes.Equal(got.body, img) {
		t.Fatalf("served %d bytes, not the %d uploaded", len(got.body), len(img))
	}
	for k, want := range map[string]string{"Content-Type": "image/png", "Content-Length": fmt.Sprint(len(img)),
		"X-Content-Type-Options": "nosniff", "Content-Disposition": `inline; filename=chart.png`,
		"ETag": `"` + str(a, "id") + `"`, "Accept-Ranges": "bytes"} {
		if h := got.header.Get(k); h != want {
			t.Errorf("%s: %q, want %q", k, h, want)
		}
	}
	if csp := got.header.Get("Content-Security-Policy"); !strings.Contains(csp, "sandbox") {
		t.Errorf("Content-Security-Policy %q: want a sandbox", csp)
	}

	// A range, a conditional request and HEAD, as http.ServeContent.
	req, _ := http.NewRequest("GET", link, nil)
	req.Header.Set("Range", "bytes=0-7")
	resp, err := e.Server.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	part, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 206 || !bytes.Equal(part, img[:8]) {
		t.Errorf("range: %d %q", resp.StatusCode, part)
	}
	req, _ = http.NewRequest("GET", link, nil)
	req.Header.Set("If-None-Match", got.header.Get("ETag"))
	if resp, err = e.Server.Client().Do(req); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 304 {
		t.Errorf("If-None-Match: %d, want 304", resp.StatusCode)
	}
	if resp, err = e.Server.Client().Head(link); err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.ContentLength != int64(len(img)) {
		t.Errorf("HEAD: %d, length %d", resp.StatusCode, resp.ContentLength)
	}
}

// An uploaded page never runs on slashd's origin: it downloads, in a
// sandbox, with its charset said and no sniffing.
func TestFilesHTMLDownloads(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGatewayWorld(t, e)
	_, hook := w.answeredHook(t)
	page := []byte("<script>alert(document.cookie)</script>")
	m := decodeObj(t, sendFiles(t, e, "POST", hook, "", `{"content":"page"}`, upload{"files[0]", "x.html", page},
		upload{"files[1]", "x.svg", []byte(`<svg xmlns="http://www.w3.org/2000/svg" onload="alert(1)"/>`)}))
	for i, want := range []struct{ ct, name string }{{"text/html; charset=utf-8", "x.html"}, {"image/svg+xml", "x.svg"}} {
		a := attachmentsOf(t, m)[i]
		got := fetchFile(t, e, str(a, "url"), 200)
		if a["content_type"] != want.ct || got.header.Get("Content-Type") != want.ct ||
			got.header.Get("Content-Disposition") != "attachment; filename="+want.name ||
			got.header.Get("X-Content-Type-Options") != "nosniff" || !strings.Contains(got.header.Get("Content-Security-Policy"), "sandbox") {
			t.Errorf("%s: %v; served %v", want.name, a, got.header)
		}
	}
}

// A link whose signature does not check reaches nothing, with the CDN's
// 404: ids alone read no file, so a world's files stay its own.
func TestFilesSignedLinks(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGatewayWorld(t, e)
	_, hook := w.answeredHook(t)
	m := decodeObj(t, sendFiles(t, e, "POST", hook, "", `{"content":"two"}`,
		upload{"files[0]", "a.txt", []byte("first")}, upload{"files[1]", "b.txt", []byte("second")}))
	a, b := attachmentsOf(t, m)[0], attachmentsOf(t, m)[1]
	link := str(a, "url")
	fetchFile(t, e, link, 200)
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	q := u.Query()
	tampered := func(change func(u *url.URL, q url.Values)) string {
		v, _ := url.Parse(link)
		vq := v.Query()
		change(v, vq)
		v.RawQuery = vq.Encode()
		return v.String()
	}
	for name, bad := range map[string]string{
		"signature": tampered(func(_ *url.URL, q url.Values) { q.Set("hm", strings.Repeat("0", 64)) }),
		"expiry":    tampered(func(_ *url.URL, q url.Values) { q.Set("ex", "ffffffff") }),
		"issue":     tampered(func(_ *url.URL, q url.Values) { q.Set("is", "1") }),
		"no query":  e.URL + u.Path,
		"another file's id with this signature": tampered(func(v *url.URL, _ url.Values) {
			v.Path = strings.Replace(v.Path, str(a, "id"), str(b, "id"), 1)
		}),
		"another channel": tampered(func(v *url.URL, _ url.Values) { v.Path = strings.Replace(v.Path, w.channel, "1", 1) }),
		"another name":    tampered(func(v *url.URL, _ url.Values) { v.Path = strings.Replace(v.Path, "a.txt", "b.txt", 1) }),
		"not an id":       e.URL + "/attachments/x/y/a.txt?" + q.Encode(),
	} {
		got := fetchFile(t, e, bad, 404)
		if string(got.body) != "This content is no longer available." {
			t.Errorf("%s: %q", name, got.body)
		}
	}

	// Another server's store (another deployment) signs with its own key.
	other := testenv.New(t)
	otherLink := strings.Replace(link, e.URL, other.URL, 1)
	fetchFile(t, other, otherLink, 404)
}

// Edits keep the attachments they list, drop the others (their files
// with them) and add their uploads; an edit without a list keeps all.
func TestFilesEdits(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGatewayWorld(t, e)
	_, hook := w.answeredHook(t)
	m := decodeObj(t, sendFiles(t, e, "POST", hook, "", `{"content":"two"}`,
		upload{"files[0]", "a.txt", []byte("first")}, upload{"files[1]", "b.txt", []byte("second")}))
	a, b := attachmentsOf(t, m)[0], attachmentsOf(t, m)[1]
	edit := hook + "/messages/" + str(m, "id")

	// Content only: both stay.
	r := mustDo(t, e, "PATCH", edit, "", jsonObj{"content": "edited"}, 200)
	if got := attachmentsOf(t, decodeObj(t, r)); len(got) != 2 {
		t.Fatalf("attachments after a content edit: %v", got)
	}
	// Keep a, drop b, add c (named by its placeholder, with a description).
	r = sendFiles(t, e, "PATCH", edit, "",
		`{"attachments":[{"id":"`+str(a, "id")+`"},{"id":0,"description":"new"}]}`, upload{"files[0]", "c.txt", []byte("third")})
	wantStatus(t, r, 200)
	after := attachmentsOf(t, decodeObj(t, r))
	if len(after) != 2 || after[0]["id"] != a["id"] || after[0]["url"] != a["url"] || after[1]["filename"] != "c.txt" ||
		after[1]["description"] != "new" {
		t.Fatalf("attachments after the edit: %v", after)
	}
	fetchFile(t, e, str(a, "url"), 200)
	fetchFile(t, e, str(b, "url"), 404)
	if got := fetchFile(t, e, str(after[1], "url"), 200); string(got.body) != "third" {
		t.Fatalf("the added file: %q", got.body)
	}
	// An edit's upload without a list is added to what the message has.
	r = sendFiles(t, e, "PATCH", edit, "", `{"content":"more"}`, upload{"files[0]", "d.txt", []byte("fourth")})
	wantStatus(t, r, 200)
	if got := attachmentsOf(t, decodeObj(t, r)); len(got) != 3 || got[2]["filename"] != "d.txt" {
		t.Fatalf("attachments after an unlisted upload: %v", got)
	}
	// Naming an attachment the message does not have (b's, dropped).
	wantError(t, mustDo(t, e, "PATCH", edit, "", jsonObj{"attachments": []jsonObj{{"id": b["id"]}}}, -1), 400,
		fe("attachments.0", "ATTACHMENT_NOT_FOUND", "Attachment data not found"))
	// An empty list drops them all.
	r = mustDo(t, e, "PATCH", edit, "", jsonObj{"attachments": []jsonObj{}}, 200)
	if got := attachmentsOf(t, decodeObj(t, r)); len(got) != 0 {
		t.Fatalf("attachments after []: %v", got)
	}
	fetchFile(t, e, str(a, "url"), 404)
	fetchFile(t, e, str(after[1], "url"), 404)
}

// Every route that writes a message keeps its files: the callback's
// answer (above), a follow-up, an edit of @original, a user's channel
// post and its edit; an ephemeral answer's attachments say so.
func TestFilesEveryRoute(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGatewayWorld(t, e)
	p, hook := w.answeredHook(t)
	check := func(t *testing.T, r testenv.Response, name, content string) jsonObj {
		t.Helper()
		wantStatus(t, r, 200)
		m := decodeObj(t, r)
		list := attachmentsOf(t, m)
		a := list[len(list)-1]
		if a["filename"] != name {
			t.Fatalf("attachments %v", list)
		}
		if got := fetchFile(t, e, str(a, "url"), 200); string(got.body) != content {
			t.Fatalf("%s: %q", name, got.body)
		}
		return a
	}
	t.Run("follow-up", func(t *testing.T) {
		check(t, sendFiles(t, e, "POST", hook, "", `{"content":"f"}`, upload{"files[0]", "f.txt", []byte("follow")}), "f.txt", "follow")
	})
	t.Run("ephemeral follow-up", func(t *testing.T) {
		a := check(t, sendFiles(t, e, "POST", hook, "", `{"content":"e","flags":64}`, upload{"files[0]", "e.txt", []byte("secret")}), "e.txt", "secret")
		if a["ephemeral"] != true {
			t.Fatalf("attachment %v", a)
		}
	})
	t.Run("edit of @original", func(t *testing.T) {
		check(t, sendFiles(t, e, "PATCH", hook+"/messages/@original", "", `{"content":"o"}`, upload{"files[0]", "o.txt", []byte("original")}),
			"o.txt", "original")
	})
	t.Run("channel post and edit", func(t *testing.T) {
		path := "/api/v10/channels/" + w.channel + "/messages"
		a := check(t, sendFiles(t, e, "POST", path, w.aliceTok, `{"content":"mine"}`, upload{"files[0]", "u.txt", []byte("user")}),
			"u.txt", "user")
		if a["ephemeral"] != nil {
			t.Fatalf("a channel post's attachment: %v", a)
		}
		msgs := decodeList(t, mustDo(t, e, "GET", path+"?limit=1", w.aliceTok, nil, 200))
		one := path + "/" + str(msgs[0], "id")
		check(t, sendFiles(t, e, "PATCH", one, w.aliceTok, `{}`, upload{"files[0]", "v.txt", []byte("again")}), "v.txt", "again")
		// Someone else's message takes no files (only its flags change).
		wantStatus(t, sendFiles(t, e, "PATCH", one, w.bobTok, `{}`, upload{"files[0]", "w.txt", []byte("no")}), 403)
	})
	_ = p
}

// An endpoint's inline answer with a file is served too (the inline
// multipart tests check its bytes: inline_multipart_test.go).

// The attachment rules: an attachments entry names an upload; at most 10
// files; at most 10 MiB each.
func TestFilesRules(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGatewayWorld(t, e)
	_, hook := w.answeredHook(t)
	note := upload{"files[0]", "a.txt", []byte("x")}
	wantError(t, sendFiles(t, e, "POST", hook, "", `{"attachments":[{"id":1}]}`, note), 400,
		fe("attachments.0", "ATTACHMENT_NOT_FOUND", "Attachment data not found"))
	wantError(t, mustDo(t, e, "POST", hook, "", jsonObj{"content": "x", "attachments": []jsonObj{{"id": "0"}}}, -1), 400,
		fe("attachments.0", "ATTACHMENT_NOT_FOUND", "Attachment data not found"))
	var eleven []upload
	for i := range 11 {
		eleven = append(eleven, upload{fmt.Sprintf("files[%d]", i), fmt.Sprintf("f%d.txt", i), []byte("x")})
	}
	wantError(t, sendFiles(t, e, "POST", hook, "", `{"content":"many"}`, eleven...), 400,
		apiError(30015, "Maximum number of attachments in a message reached (10)"))
	wantError(t, sendFiles(t, e, "POST", hook, "", `{"content":"big"}`, upload{"files[0]", "big.bin", make([]byte, 10<<20+1)}),
		413, apiError(40005, "Request entity too large"))
	// Ten files of up to 10 MiB are fine, well past the JSON body cap.
	m := decodeObj(t, sendFiles(t, e, "POST", hook, "", `{"content":"ok"}`, append(eleven[:9],
		upload{"files[9]", "big.bin", make([]byte, 10<<20)})...))
	if got := attachmentsOf(t, m); len(got) != 10 || got[9]["size"] != float64(10<<20) {
		t.Fatalf("attachments: %d", len(got))
	}
}

// Files go with their message: deleted by the app, by the user, with
// their channel, with their guild.
func TestFilesDeletedWithMessages(t *testing.T) {
	t.Parallel()
	e := testenv.New(t)
	w := newGatewayWorld(t, e)
	_, hook := w.answeredHook(t)
	post := func(channel string) (jsonObj, string) {
		r := sendFiles(t, e, "POST", "/api/v10/channels/"+channel+"/messages", w.aliceTok, `{"content":"x"}`,
			upload{"files[0]", "a.txt", []byte("x")})
		wantStatus(t, r, 200)
		m := decodeObj(t, r)
		link := str(attachmentsOf(t, m)[0], "url")
		fetchFile(t, e, link, 200)
		return m, link
	}
	f := decodeObj(t, sendFiles(t, e, "POST", hook, "", `{"content":"f"}`, upload{"files[0]", "a.txt", []byte("x")}))
	mustDo(t, e, "DELETE", hook+"/messages/"+str(f, "id"), "", nil, 204)
	fetchFile(t, e, str(attachmentsOf(t, f)[0], "url"), 404)

	m, link := post(w.channel)
	mustDo(t, e, "DELETE", "/api/v10/channels/"+w.channel+"/messages/"+str(m, "id"), w.aliceTok, nil, 204)
	fetchFile(t, e, link, 404)

	other := w.world.channel(jsonObj{"name": "other", "type": 0})
	_, link = post(other)
	adminDo(t, e, "DELETE", "/guilds/"+w.guild+"/channels/"+other, nil, 204)
	fetchFile(t, e, link, 404)

	_, link = post(w.channel)
	adminDo(t, e, "DELETE", "/guilds/"+w.guild, nil, 204)
	fetchFile(t, e, link, 404)
}

// Past the quota the oldest files go: their messages keep the
// attachments, their links 404; the newest stay. The metrics count it.
func TestFilesQuotaEvictsOldest(t *testing.T) {
	t.Parallel()
	e := testenv.New(t, func(c *api.Config) { c.FilesQuota = 250 })
	w := newGatewayWorld(t, e)
	path := "/api/v10/channels/" + w.channel + "/messages"
	var links []string
	var ids []string
	for i := range 4 {
		r := sendFiles(t, e, "POST", path, w.aliceTok, `{"content":"x"}`, upload{"files[0]", "a.bin", bytes.Repeat([]byte{byte(i)}, 100)})
		wantStatus(t, r, 200)
		m := decodeObj(t, r)
		links = append(links, str(attachmentsOf(t, m)[0], "url"))
		ids = append(ids, str(m, "id"))
	}
	// 4 × 100 bytes in 250: the two oldest went.
	for i, status := range []int{404, 404, 200, 200} {
		fetchFile(t, e, links[i], status)
	}
	m := decodeObj(t, mustDo(t, e, "GET", path+"/"+ids[0], w.aliceTok, nil, 200))
	if len(attachmentsOf(t, m)) != 1 {
		t.Fatalf("an evicted file's message: %v", m)
	}
	metrics := string(mustDo(t, e, "GET", "/metrics", "", nil, 200).Body)
	for _, want := range []string{"slashd_files_stored_total 4", "slashd_file_bytes_stored_total 400",
		"slashd_files_evicted_total 2", "slashd_file_bytes_evicted_total 200"} {
		if !strings.Contains(metrics, want+"\n") {
			t.Errorf("/metrics lacks %q", want)
		}
	}
}
