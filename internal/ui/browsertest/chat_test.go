package browsertest

import (
	"context"
	"encoding/json"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

// typeInto types text into the element of id, emptied first.
func typeInto(t *testing.T, ctx context.Context, id, text string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { const e = document.getElementById(`+jsString(id)+`); e.value = ""; return true; })()`)); err != nil {
		t.Fatalf("empty #%s: %v", id, err)
	}
	run(t, ctx, "type "+text, chromedp.WaitVisible(chromedp.ID(id)), chromedp.SendKeys(chromedp.ID(id), text))
}

// choose sets a select's value as a person would (a change event).
func choose(t *testing.T, ctx context.Context, id, value string) {
	t.Helper()
	chooseIn(t, ctx, "#"+id, value)
}

// chooseIn is choose for the first select css matches.
func chooseIn(t *testing.T, ctx context.Context, css, value string) {
	t.Helper()
	// A select's options may still be on their way (the members of a
	// place just chosen are fetched): wait for the one wanted first.
	sel := `document.querySelector(` + jsString(css) + `)`
	waitJS(t, ctx, "option "+value+" in "+css,
		`(() => { const s = `+sel+`; return !!s && [...s.options].some(o => o.value === `+jsString(value)+`); })()`)
	js := `(() => { const s = ` + sel + `; s.value = ` + jsString(value) +
		`; s.dispatchEvent(new Event("change")); return s.value; })()`
	got, err := chromedp.Run(ctx, chromedp.Evaluate[string](js))
	if err != nil || got != value {
		t.Fatalf("choose %s in %s: got %q, %v", value, css, got, err)
	}
}

func click(t *testing.T, ctx context.Context, css string) {
	t.Helper()
	wctx, cancel := context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(wctx, chromedp.WaitVisible(chromedp.CSS(css)), chromedp.Click(chromedp.CSS(css))); err != nil {
		shot(t, ctx, "failed-click")
		page, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
		t.Fatalf("click %s: %v; the page says:\n%s", css, err, page)
	}
}

// TestChat: the flow of issue 14 with examples/bot as the app: choose
// the guild, channel and member; the picker lists the member's commands
// and the hidden one with its reason; /pick's option is filled through
// autocomplete and the answer arrives; /multi's follow-up arrives live;
// /ping's ephemeral answer is marked; /counter's "+1" button sends a
// component interaction whose answer updates the message live;
// /feedback's modal is submitted and its text quoted back; the
// interaction log shows each delivery with its payload and answer.
func TestChat(t *testing.T) {
	w := newWorld(t)
	cmds := w.registerBotCommands(t)
	w.hideFromEveryone(t, cmds["slow"])
	bob := w.addMember(t, "bob")
	w.startBot(t)
	ctx := browser(t)
	login(t, ctx, w, w.creds.AdminToken)
	waitText(t, ctx, "#world-pane", "Application ID")
	run(t, ctx, "open the chat", chromedp.Click(chromedp.ID("nav-chat")), chromedp.WaitVisible(chromedp.ID("composer-input")))
	waitText(t, ctx, "#chat-channel", "#general")
	choose(t, ctx, "chat-place", w.creds.GuildID)
	choose(t, ctx, "chat-user", bob)
	waitText(t, ctx, "#messages", "No message yet")

	// The picker: bob's commands, and /slow hidden, with the reason.
	typeInto(t, ctx, "composer-input", "/")
	waitText(t, ctx, "#picker", "/pick")
	waitText(t, ctx, "#picker", "Hidden: denied by command")
	shot(t, ctx, "05-picker")

	// /pick: autocomplete, then send.
	typeInto(t, ctx, "composer-input", "/pi")
	click(t, ctx, `#picker button[data-name="pick"]`)
	typeInto(t, ctx, "opt-fruit", "berr")
	waitJS(t, ctx, "berr's suggestions", `(() => { const s = document.getElementById("suggest-fruit").innerText;
		return s.includes("blueberry") && !s.includes("apple"); })()`)
	shot(t, ctx, "06-autocomplete")
	click(t, ctx, `#suggest-fruit button:nth-child(2)`) // blueberry
	typeInto(t, ctx, "opt-amount", "3")
	click(t, ctx, "#send")
	waitText(t, ctx, "#messages", "You picked 3 × blueberry")
	waitText(t, ctx, "#messages", "bob used /pick")

	// A message command from the message's Apps menu: Quote.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
		const m = [...document.querySelectorAll("#messages .msg")].find((x) => x.innerText.includes("You picked"));
		const s = m.querySelector("select.ctx");
		s.value = [...s.options].find((o) => o.text === "Message: Quote").value;
		s.dispatchEvent(new Event("change")); return true; })()`)); err != nil {
		t.Fatalf("Quote from the Apps menu: %v", err)
	}
	waitText(t, ctx, "#messages", "> You picked 3 × blueberry.")
	waitText(t, ctx, "#messages", "bob used Quote")

	// An option out of range: the API's error, named by its option.
	typeInto(t, ctx, "composer-input", "/pick")
	click(t, ctx, `#picker button[data-name="pick"]`)
	typeInto(t, ctx, "opt-fruit", "mango")
	waitJS(t, ctx, "mango's suggestions", `document.getElementById("suggest-fruit").innerText.trim() === "mango"`)
	typeInto(t, ctx, "opt-amount", "99")
	click(t, ctx, "#send")
	waitText(t, ctx, "#composer-error", "amount:")
	shot(t, ctx, "06b-option-error")
	click(t, ctx, "#command-form button.secondary") // cancel

	// /multi: the answer, then the follow-up the bot posts later, which
	// arrives over the chat's event stream: no read of the messages
	// happens meanwhile (the page reads them only when a stream opens).
	waitJS(t, ctx, "the live stream", `document.getElementById("chat-live").dataset.state === "open"`)
	reads := messageReads(t, ctx)
	typeInto(t, ctx, "composer-input", "/multi")
	click(t, ctx, `#picker button[data-name="multi"]`)
	waitText(t, ctx, "#messages", "This is the answer.")
	waitText(t, ctx, "#messages", "And this is a follow-up.")
	if n := messageReads(t, ctx); n != reads {
		t.Fatalf("the page read the messages %d times while the follow-up arrived: it polls", n-reads)
	}

	// /ping: an ephemeral answer, for bob only.
	typeInto(t, ctx, "composer-input", "/ping")
	click(t, ctx, `#picker button[data-name="ping"]`)
	waitText(t, ctx, "#messages .ephemeral", "pong")
	waitText(t, ctx, "#messages .ephemeral", "Only you can see this")
	shot(t, ctx, "07-chat")

	// /counter: the bot's message with a "+1" button. Pressing it sends a
	// component interaction; the bot answers UPDATE_MESSAGE, and the
	// message changes in place, over the event stream (no read of the
	// messages meanwhile).
	typeInto(t, ctx, "composer-input", "/counter")
	click(t, ctx, `#picker button[data-name="counter"]`)
	waitText(t, ctx, "#messages", "Count: 0")
	waitText(t, ctx, "#messages", "bob used /counter")
	shot(t, ctx, "07b-counter")
	reads = messageReads(t, ctx)
	click(t, ctx, `#messages button[data-custom-id="counter:0"]`)
	waitJS(t, ctx, "Count: 1 in place of Count: 0", `(() => {
		const msgs = [...document.querySelectorAll("#messages .msg")].filter((m) => /Count: \d/.test(m.innerText));
		return msgs.length === 1 && msgs[0].innerText.includes("Count: 1") && msgs[0].innerText.includes("(edited)") &&
			!!msgs[0].querySelector('button[data-custom-id="counter:1"]') && !msgs[0].querySelector('button[data-custom-id="counter:0"]'); })()`)
	if n := messageReads(t, ctx); n != reads {
		t.Fatalf("the page read the messages %d times while the counter changed: it polls", n-reads)
	}
	click(t, ctx, `#messages button[data-custom-id="counter:1"]`)
	waitText(t, ctx, "#messages", "Count: 2")
	shot(t, ctx, "07c-counter-pressed")

	// /feedback: the modal, submitted; the bot quotes it back to bob.
	typeInto(t, ctx, "composer-input", "/feedback")
	click(t, ctx, `#picker button[data-name="feedback"]`)
	run(t, ctx, "the modal", chromedp.WaitVisible(chromedp.ID("modal")))
	typeInto(t, ctx, "modal-text", "Lovely playground")
	shot(t, ctx, "08-modal")
	click(t, ctx, "#modal-submit")
	waitJS(t, ctx, "the quoted feedback, for bob only", `[...document.querySelectorAll("#messages .msg.ephemeral")]
		.some((m) => m.innerText.includes("Thanks for your feedback: Lovely playground") && m.innerText.includes("Only you can see this"))`)
	waitText(t, ctx, "#messages", "bob submitted a form")
	shot(t, ctx, "09-chat-after")

	// The interaction log: every delivery, the payload as delivered.
	click(t, ctx, "#nav-log")
	waitText(t, ctx, "#log-list", "/pick")
	waitText(t, ctx, "#log-list", "modal feedback")
	waitText(t, ctx, "#log-list", "component counter:1")
	waitText(t, ctx, "#log-list", "autocomplete")
	click(t, ctx, "#log-list tbody tr:first-child")
	waitText(t, ctx, "#log-payload", `"custom_id": "feedback"`)
	waitText(t, ctx, "#log-payload", "Lovely playground")
	waitText(t, ctx, "#log-answer", "Thanks for your feedback: Lovely playground")
	waitText(t, ctx, "#log-detail", "endpoint http://127.0.0.1:")
	// The signature headers the endpoint got.
	sig := text(t, ctx, "#log-signature")
	if !regexp.MustCompile(`X-Signature-Ed25519: [0-9a-f]{128}\s+X-Signature-Timestamp: \d{10}`).MatchString(sig) {
		t.Fatalf("signature headers: %q", sig)
	}
	run(t, ctx, "scroll to the signature", chromedp.ScrollIntoView(chromedp.ID("log-signature")))
	shot(t, ctx, "10-log")

	// /multi's entry: the answer, then the follow-up it posted later.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
		const row = [...document.querySelectorAll("#log-list tbody tr")].find((r) => r.cells[1].innerText === "/multi");
		row.click(); return true; })()`)); err != nil {
		t.Fatalf("open the /multi row: %v", err)
	}
	waitText(t, ctx, "#log-answer", "This is the answer.")
	waitText(t, ctx, "#log-later", "follow-up")
	waitText(t, ctx, "#log-later", "And this is a follow-up.")
	run(t, ctx, "scroll to the follow-up", chromedp.ScrollIntoView(chromedp.ID("log-later")))
	shot(t, ctx, "10b-log-follow-up")

	// Copy as curl: the /pick row's command invokes /pick again as bob.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
		const row = [...document.querySelectorAll("#log-list tbody tr")].find((r) => r.cells[1].innerText === "/pick");
		row.click(); return true; })()`)); err != nil {
		t.Fatalf("open the /pick row: %v", err)
	}
	waitText(t, ctx, "#log-curl", "/api/v10/interactions")
	cmdline := text(t, ctx, "#log-curl")
	_, quoted, ok := strings.Cut(cmdline, "-d '")
	if !ok || !strings.HasSuffix(quoted, "'") {
		t.Fatalf("copy as curl: %s", cmdline)
	}
	body := strings.ReplaceAll(strings.TrimSuffix(quoted, "'"), `'\''`, "'")
	var tok struct{ Token string }
	w.admin(t, "POST", "/users/"+bob+"/tokens", map[string]any{"type": "client"}, &tok)
	var again struct {
		Resource struct{ Message struct{ Content string } }
	}
	w.call(t, "POST", "/api/v10/interactions", tok.Token, json.RawMessage(body), &again)
	if again.Resource.Message.Content != "You picked 3 × blueberry." {
		t.Fatalf("the curl's interaction answered %+v", again)
	}

	// Back to the chat as bob, the picker open (the README's picture,
	// docs/playground.png).
	click(t, ctx, "#nav-chat")
	waitText(t, ctx, "#chat-user", "bob")
	choose(t, ctx, "chat-user", bob)
	waitText(t, ctx, "#messages", "You picked 3 × blueberry")
	typeInto(t, ctx, "composer-input", "/")
	waitText(t, ctx, "#picker", "Hidden: denied")
	shot(t, ctx, "11-playground")
}

// messageReads counts the page's reads of a channel's messages so far.
func messageReads(t *testing.T, ctx context.Context) int {
	t.Helper()
	n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`performance.getEntriesByType("resource")
		.filter((e) => /\/api\/v10\/channels\/\d+\/messages\?/.test(e.name)).length`))
	if err != nil {
		t.Fatalf("count the reads: %v", err)
	}
	return n
}

// waitJS waits until the expression is true.
func waitJS(t *testing.T, ctx context.Context, what, js string) {
	t.Helper()
	if _, err := chromedp.Run(ctx, chromedp.Poll[bool](js, chromedp.WithPollingInterval(50*time.Millisecond),
		chromedp.WithPollingTimeout(60*time.Second))); err != nil {
		page, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.body.innerText`))
		t.Fatalf("wait for %s: %v; the page says:\n%s", what, err, page)
	}
}

// pressEnter presses Enter in the element of id.
func pressEnter(t *testing.T, ctx context.Context, id string) {
	t.Helper()
	run(t, ctx, "Enter in #"+id, chromedp.Focus(chromedp.ID(id)), chromedp.KeyEvent(kb.Enter))
}

// TestEmptyEnterSendsNothing: Enter picks the listed command; Enter in
// the emptied box afterwards sends nothing (it used to run the last
// command again). The page's POSTs to /interactions are counted as it
// makes them, and a real command sent next is the only new interaction
// the log and the channel get.
func TestEmptyEnterSendsNothing(t *testing.T) {
	w := newWorld(t)
	w.registerBotCommands(t)
	bob := w.addMember(t, "bob")
	w.startBot(t)
	ctx := browser(t)
	login(t, ctx, w, w.creds.AdminToken)
	waitText(t, ctx, "#world-pane", "Application ID")
	run(t, ctx, "open the chat", chromedp.Click(chromedp.ID("nav-chat")), chromedp.WaitVisible(chromedp.ID("composer-input")))
	choose(t, ctx, "chat-place", w.creds.GuildID)
	choose(t, ctx, "chat-user", bob)
	waitText(t, ctx, "#messages", "No message yet")

	// Count the page's invocations from here on, as fetch is called.
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => {
		window.invocations = 0;
		const f = window.fetch;
		window.fetch = (url, opts) => {
			if (String(url).endsWith("/api/v10/interactions") && opts?.method === "POST" && !String(opts.body).includes('"type":4')) window.invocations++;
			return f(url, opts);
		};
		return true; })()`)); err != nil {
		t.Fatal(err)
	}
	invocations := func() int {
		t.Helper()
		n, err := chromedp.Run(ctx, chromedp.Evaluate[int](`window.invocations`))
		if err != nil {
			t.Fatal(err)
		}
		return n
	}

	// Enter on a listed command runs it.
	typeInto(t, ctx, "composer-input", "/ping")
	waitText(t, ctx, "#picker", "/ping")
	pressEnter(t, ctx, "composer-input")
	waitText(t, ctx, "#messages .ephemeral", "pong")
	waitJS(t, ctx, "the emptied box", `document.getElementById("composer-input").value === ""`)
	if n := invocations(); n != 1 {
		t.Fatalf("Enter on /ping: %d invocations, want 1", n)
	}

	// Enter in the empty box, twice: nothing is sent.
	pressEnter(t, ctx, "composer-input")
	pressEnter(t, ctx, "composer-input")
	if n := invocations(); n != 1 {
		t.Fatalf("Enter in the empty box sent %d invocations", n-1)
	}
	shot(t, ctx, "12-empty-enter")

	// A real command next: it is the only new interaction.
	typeInto(t, ctx, "composer-input", "/counter")
	click(t, ctx, `#picker button[data-name="counter"]`)
	waitText(t, ctx, "#messages", "Count: 0")
	if n := invocations(); n != 2 {
		t.Fatalf("after /counter: %d invocations, want 2", n)
	}
	names, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`fetch("/ui/interactions").then((r) => r.json())
		.then((es) => es.filter((e) => e.type === 2).map((e) => e.payload.data.name))`,
		chromedp.EvalAwaitPromise))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Join(names, ",") != "counter,ping" {
		t.Fatalf("the log's commands, newest first: %v; want counter, ping", names)
	}
	pongs, err := chromedp.Run(ctx, chromedp.Evaluate[int](`[...document.querySelectorAll("#messages .msg")].filter((m) => m.innerText.includes("pong")).length`))
	if err != nil || pongs != 1 {
		t.Fatalf("%d pong messages, want 1 (%v)", pongs, err)
	}
}
