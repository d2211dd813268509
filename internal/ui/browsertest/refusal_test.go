package browsertest

import (
	"bytes"
	"context"
	"encoding/json"
	"image"
	"image/color"
	"image/png"
	"io"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"net/textproto"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/slashd/slashd/sdk/interactions"
)

// tooLong is a message content one character over the limit.
var tooLong = strings.Repeat("x", 2001)

// startMisbehavingBot runs an Interactions endpoint that answers each of
// its commands in its own way, most of them wrongly, and makes it the
// demo app's:
//   - /toolong answers inline with 2,001 characters;
//   - /broken answers 202, then calls back with 2,001 characters, and
//     gives up when refused;
//   - /followup answers, then posts an empty follow-up and edits its
//     answer to 2,001 characters;
//   - /files calls back with a PNG and a text file, then follows up
//     with an embed: the PNG's URL as its image, another host's as its
//     thumbnail.
func (w *world) startMisbehavingBot(t *testing.T) {
	t.Helper()
	var cmds []map[string]string
	for _, n := range []string{"toolong", "broken", "followup", "files"} {
		cmds = append(cmds, map[string]string{"name": n, "description": "Answers " + n})
	}
	w.call(t, "PUT", "/api/v10/applications/"+w.creds.ApplicationID+"/guilds/"+w.creds.GuildID+"/commands",
		"Bot "+w.creds.BotToken, cmds, nil)
	ctx, cancel := context.WithCancel(context.Background())
	bot := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		body, ok := interactions.Verify(w.creds.PublicKey, r)
		if !ok {
			http.Error(rw, "bad signature", http.StatusUnauthorized)
			return
		}
		var in struct {
			Type  int
			ID    string
			Token string
			Data  struct{ Name string }
		}
		_ = json.Unmarshal(body, &in)
		answer := func(v any) {
			rw.Header().Set("Content-Type", "application/json")
			_ = json.NewEncoder(rw).Encode(v)
		}
		msg := func(content string) map[string]any {
			return map[string]any{"type": 4, "data": map[string]any{"content": content}}
		}
		callback := w.url + "/api/v10/interactions/" + in.ID + "/" + in.Token + "/callback"
		hook := w.url + "/api/v10/webhooks/" + w.creds.ApplicationID + "/" + in.Token
		switch {
		case in.Type == 1:
			answer(map[string]int{"type": 1})
		case in.Data.Name == "toolong":
			answer(msg(tooLong))
		case in.Data.Name == "broken":
			rw.WriteHeader(http.StatusAccepted)
			go botCall(ctx, "POST", callback, msg(tooLong))
		case in.Data.Name == "followup":
			answer(msg("Here is the answer."))
			go func() {
				botCall(ctx, "POST", hook, map[string]any{})
				botCall(ctx, "PATCH", hook+"/messages/@original", map[string]any{"content": tooLong})
			}()
		case in.Data.Name == "files":
			rw.WriteHeader(http.StatusAccepted)
			go botUpload(ctx, callback, hook)
		default:
			answer(msg("?"))
		}
	}))
	t.Cleanup(func() { cancel(); bot.Close() })
	w.admin(t, "PUT", "/applications/"+w.creds.ApplicationID+"/interactions-endpoint",
		map[string]any{"interactions_endpoint_url": bot.URL}, nil)
}

// botCall makes one request of the bot's; what it answers is the
// playground's to show.
func botCall(ctx context.Context, method, url string, body any) {
	b, _ := json.Marshal(body)
	req, err := http.NewRequestWithContext(ctx, method, url, bytes.NewReader(b))
	if err != nil {
		return
	}
	req.Header.Set("Content-Type", "application/json")
	if resp, err := http.DefaultClient.Do(req); err == nil {
		_, _ = io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
}

// botUpload answers with a message of two files, as libraries send
// them (payload_json and files[n] parts), then follows up with an embed
// showing the image it uploaded.
func botUpload(ctx context.Context, url, hook string) {
	img := image.NewRGBA(image.Rect(0, 0, 160, 90))
	for x := range 160 {
		for y := range 90 {
			img.Set(x, y, color.RGBA{R: uint8(x * 255 / 160), G: 100, B: uint8(y * 255 / 90), A: 255})
		}
	}
	var pngBytes bytes.Buffer
	_ = png.Encode(&pngBytes, img)
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	payload, _ := json.Marshal(map[string]any{"type": 4, "data": map[string]any{"content": "Two files.",
		"attachments": []map[string]any{{"id": 0, "filename": "chart.png", "description": "A small chart"},
			{"id": 1, "filename": "notes.txt"}}}})
	_ = mw.WriteField("payload_json", string(payload))
	for i, f := range []struct {
		name, typ string
		data      []byte
	}{{"chart.png", "image/png", pngBytes.Bytes()}, {"notes.txt", "text/plain", []byte("Some notes.\n")}} {
		h := textproto.MIMEHeader{}
		h.Set("Content-Disposition", `form-data; name="files[`+string(rune('0'+i))+`]"; filename="`+f.name+`"`)
		h.Set("Content-Type", f.typ)
		part, _ := mw.CreatePart(h)
		_, _ = part.Write(f.data)
	}
	_ = mw.Close()
	req, err := http.NewRequestWithContext(ctx, "POST", url+"?with_response=true", &body)
	if err != nil {
		return
	}
	req.Header.Set("Content-Type", mw.FormDataContentType())
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return
	}
	var out struct {
		Resource struct {
			Message struct {
				Attachments []struct{ URL string }
			}
		}
	}
	err = json.NewDecoder(resp.Body).Decode(&out)
	resp.Body.Close()
	if err != nil || len(out.Resource.Message.Attachments) == 0 {
		return
	}
	botCall(ctx, "POST", hook, map[string]any{"embeds": []map[string]any{{"title": "The chart again",
		"image":     map[string]any{"url": out.Resource.Message.Attachments[0].URL},
		"thumbnail": map[string]any{"url": "https://example.com/thumb.png"}}}})
}

// TestRefusalsShown: a bot's refused requests are shown to its
// developer. In the chat, where the member invoked the command: a
// callback refused (then "The application did not respond"), an inline answer
// refused, a follow-up and an edit refused, each with the request, the
// status and each field error by its path. In the interaction log: the
// entry of each, reached from the chat's link.
func TestRefusalsShown(t *testing.T) {
	w := newWorld(t)
	w.startMisbehavingBot(t)
	bob := w.addMember(t, "bob")
	ctx := browser(t)
	login(t, ctx, w, w.creds.AdminToken)
	waitText(t, ctx, "#world-pane", "Application ID")
	run(t, ctx, "open the chat", chromedp.Click(chromedp.ID("nav-chat")), chromedp.WaitVisible(chromedp.ID("composer-input")))
	choose(t, ctx, "chat-place", w.creds.GuildID)
	choose(t, ctx, "chat-user", bob)
	waitText(t, ctx, "#messages", "No message yet")
	waitJS(t, ctx, "the live stream", `document.getElementById("chat-live").dataset.state === "open"`)

	// /broken: the callback is refused; the member is told the
	// interaction failed, the developer why.
	typeInto(t, ctx, "composer-input", "/broken")
	click(t, ctx, `#picker button[data-name="broken"]`)
	waitText(t, ctx, "#messages .msg.refusal", "answer (interaction callback) was refused")
	waitText(t, ctx, "#messages .msg.refusal", "Invalid Form Body (50035)")
	waitText(t, ctx, "#messages .msg.refusal .via", "bob used /broken")
	waitText(t, ctx, "#messages .msg.refusal .refusal-fields", "Must be 2000 or fewer in length.")
	waitText(t, ctx, "#messages .msg.refusal .refusal-req", "POST /api/v10/interactions/")
	if path := text(t, ctx, "#messages .msg.refusal .field-path"); !strings.HasSuffix(path, "content") {
		t.Fatalf("the field error's path is %q, want …content", path)
	}
	waitText(t, ctx, "#composer-error", "The application did not respond")
	shot(t, ctx, "20-refused-callback")

	// The error body, unfolded, stays so while the chat changes.
	click(t, ctx, "#messages .msg.refusal details.refusal-body summary")
	waitText(t, ctx, "#messages .msg.refusal details.refusal-body pre", `"code": 50035`)

	// /toolong: the inline answer is refused.
	typeInto(t, ctx, "composer-input", "/toolong")
	click(t, ctx, `#picker button[data-name="toolong"]`)
	waitText(t, ctx, "#messages", "inline answer (the endpoint's HTTP response) was refused")
	if open, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.querySelector("#messages .msg.refusal details.refusal-body").open`)); err != nil || !open {
		t.Fatalf("the first refusal's error body folded again (%v)", err)
	}

	// /followup: the answer arrives; the empty follow-up and the edit
	// too long are refused, each named.
	typeInto(t, ctx, "composer-input", "/followup")
	click(t, ctx, `#picker button[data-name="followup"]`)
	waitText(t, ctx, "#messages", "Here is the answer.")
	waitText(t, ctx, "#messages", "follow-up was refused")
	waitText(t, ctx, "#messages", "Cannot send an empty message (50006)")
	waitText(t, ctx, "#messages", "edit of its answer was refused")
	waitJS(t, ctx, "four refusals", `document.querySelectorAll("#messages .msg.refusal").length === 4`)
	shot(t, ctx, "21-refused-follow-up")

	// Another member's chat does not show bob's refusals.
	alice := w.addMember(t, "alice")
	run(t, ctx, "reload", chromedp.Reload())
	choose(t, ctx, "chat-place", w.creds.GuildID)
	choose(t, ctx, "chat-user", alice)
	waitText(t, ctx, "#messages", "Here is the answer.")
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll("#messages .msg.refusal").length`)); err != nil || n != 0 {
		t.Fatalf("alice's chat shows %d refusals (%v)", n, err)
	}
	// Back as bob, after the reload: the refusals kept are shown again.
	choose(t, ctx, "chat-user", bob)
	waitJS(t, ctx, "bob's four refusals again", `document.querySelectorAll("#messages .msg.refusal").length === 4`)

	// The log: the chat's link opens /broken's entry, with its refusal.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
		const card = [...document.querySelectorAll("#messages .msg.refusal")].find((c) => c.innerText.includes("interaction callback"));
		card.querySelector("a.log-link").click(); return true; })()`)); err != nil {
		t.Fatal(err)
	}
	waitText(t, ctx, "#log-detail h2", "/broken")
	waitText(t, ctx, "#log-refusals", "answer (interaction callback)")
	waitText(t, ctx, "#log-refusals", "Must be 2000 or fewer in length.")
	waitText(t, ctx, "#log-detail", "no answer within 3s · the app's request was refused: see below")
	waitText(t, ctx, "#log-list", "1 refused")
	run(t, ctx, "scroll to the list", chromedp.ScrollIntoView(chromedp.ID("log-list")))
	shot(t, ctx, "22a-log-list")
	run(t, ctx, "scroll to the refusals", chromedp.ScrollIntoView(chromedp.ID("log-refusals")))
	shot(t, ctx, "22-log-refusal")
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
		const row = [...document.querySelectorAll("#log-list tbody tr")].find((r) => r.cells[1].innerText === "/followup");
		row.click(); return true; })()`)); err != nil {
		t.Fatal(err)
	}
	waitText(t, ctx, "#log-refusals", "follow-up")
	waitText(t, ctx, "#log-refusals", "edit of its answer")
	waitText(t, ctx, "#log-later", "follow-up") // none was made: the answer's own message is not one
}

// TestAttachmentsShown: an answer's image attachment is shown inline,
// loaded from this server (the files it keeps), at most 400 px wide; any
// other file is a download link with its name and size.
func TestAttachmentsShown(t *testing.T) {
	w := newWorld(t)
	w.startMisbehavingBot(t)
	bob := w.addMember(t, "bob")
	ctx := browser(t)
	login(t, ctx, w, w.creds.AdminToken)
	waitText(t, ctx, "#world-pane", "Application ID")
	run(t, ctx, "open the chat", chromedp.Click(chromedp.ID("nav-chat")), chromedp.WaitVisible(chromedp.ID("composer-input")))
	choose(t, ctx, "chat-place", w.creds.GuildID)
	choose(t, ctx, "chat-user", bob)
	waitText(t, ctx, "#messages", "No message yet")
	typeInto(t, ctx, "composer-input", "/files")
	click(t, ctx, `#picker button[data-name="files"]`)
	waitText(t, ctx, "#messages", "Two files.")
	img := `document.querySelector('#messages a.attachment.image img[alt="A small chart"]')`
	waitJS(t, ctx, "the image, loaded", `(() => { const i = `+img+`; return !!i && i.complete && i.naturalWidth === 160 && i.naturalHeight === 90; })()`)
	src, err := chromedp.Run(ctx, chromedp.Evaluate[string](img+`.src`))
	if err != nil || !strings.HasPrefix(src, w.url+"/attachments/") {
		t.Fatalf("the image's src %q (%v), want under %s/attachments/", src, err, w.url)
	}
	link := `document.querySelector('#messages a.attachment.file')`
	waitText(t, ctx, "#messages a.attachment.file", "notes.txt")
	waitText(t, ctx, "#messages a.attachment.file", "12 B")
	dl, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[`+link+`.download, `+link+`.href]`))
	if err != nil || len(dl) != 2 || dl[0] != "notes.txt" || !strings.HasPrefix(dl[1], w.url+"/attachments/") {
		t.Fatalf("the file's link: %v (%v)", dl, err)
	}
	// The file behind the link is the one uploaded.
	resp, err := http.Get(dl[1])
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "Some notes.\n" {
		t.Fatalf("GET the link: %d %q", resp.StatusCode, b)
	}

	// The follow-up's embed: its image, this server's file, inline; its
	// thumbnail, another host's, a link (the page loads no other host's
	// images).
	waitText(t, ctx, "#messages .embed", "The chart again")
	waitJS(t, ctx, "the embed's image, loaded", `(() => { const i = document.querySelector("#messages .embed .embed-image img");
		return !!i && i.complete && i.naturalWidth === 160; })()`)
	if n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`document.querySelectorAll(
		'#messages .embed .embed-thumbnail a[href="https://example.com/thumb.png"]').length +
		document.querySelectorAll("#messages .embed .embed-thumbnail img").length * 10`)); err != nil || n != 1 {
		t.Fatalf("the embed's thumbnail: %d (%v), want one link and no image", n, err)
	}
	shot(t, ctx, "23-attachments")
}
