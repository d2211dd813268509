package main

// slashd invoke: a command run as a member would run it, through a
// running server's API only (the command picker's index, then POST
// /interactions), with the credentials of the data directory's
// bootstrap.json.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/slashline"
	"github.com/slashd/slashd/internal/snowflake"
)

const invokeAbout = `It reads the server's address and credentials from bootstrap.json in the data
directory, finds the command in the command picker the member sees in the channel
(GET /api/v10/channels/{id}/application-command-index) and runs it with
POST /api/v10/interactions. By default the member is the demo guild's owner
(owner_client_token) in its #general (channel_id); --as mints a client token for
another user through the admin API (admin_token).

The command line is what a member types: the command's name, its subcommand group
and subcommand, then options as name:value. A value with spaces goes in double
quotes (name:"two words"; inside them \" \\ \n \t). Values are typed by the
option: integers, numbers, true/false, users as an id or <@id>, channels as an id
or <#id>, roles as an id or <@&id>, choices by value or name. Attachments cannot
be given. Where an application has a guild command and a global command of the
name, both are in the picker and the guild command runs (--global: the global one).

It prints the answer (its text, embeds and components; a deferred answer once the
app has filled it in) and exits 0; a command the service refuses or the app does
not answer prints the error and exits 1. --json prints the answer of
POST /api/v10/interactions as it is.

  slashd invoke '/echo text:hi'
  slashd invoke --as 123456789012345678 '/pick fruit:mango amount:3' --json`

// invokeOptions are invoke's flags.
type invokeOptions struct {
	dataDir, as, channel, app string
	asJSON, global            bool
	wait                      time.Duration
}

// defineInvoke is `slashd invoke`.
func defineInvoke(fs *flagSet) runFunc {
	o := &invokeOptions{}
	fs.envString(&o.dataDir, "data", "./slashd-data", "the server's data directory `DIR`, where its bootstrap.json is")
	fs.envString(&o.as, "as", "", "run the command as the user with this `ID` (a member of the channel's guild): "+
		"a client token is minted for them through the admin API; default: the demo guild's owner")
	fs.envString(&o.channel, "channel", "", "the `ID` of the channel to run it in; default: the demo guild's #general (bootstrap.json's channel_id)")
	fs.envString(&o.app, "app", "", "the `ID` of the application whose command it is, when several have one of that name")
	fs.envBool(&o.global, "global", false, "run the application's global command where it also has a guild command of the name "+
		"(the picker lists both; by default the guild command runs)")
	fs.envBool(&o.asJSON, "json", false, "print the answer of POST /api/v10/interactions as it is (a deferred answer: its loading message)")
	fs.envDuration(&o.wait, "wait", 15*time.Minute,
		"how long (a `DURATION`: 30s, 2m) to wait for a deferred answer to be filled in (the app's token lasts 15 minutes)")
	return func(ctx context.Context, out io.Writer) error {
		args := fs.commandArgs()
		switch {
		case len(args) == 0:
			return usageErrorf("invoke: no command given: slashd invoke '/COMMAND [NAME:VALUE …]' (see slashd invoke --help)")
		case len(args) > 1:
			return usageErrorf("invoke: %d arguments: put the command line in quotes, as in slashd invoke '/echo text:\"two words\"'", len(args))
		}
		line, err := slashline.Parse(args[0])
		if err != nil {
			return usageErrorf("invoke: %s: %v", args[0], err)
		}
		var ids struct{ as, channel, app snowflake.ID }
		for _, f := range []struct {
			name, v string
			p       *snowflake.ID
		}{{"as", o.as, &ids.as}, {"channel", o.channel, &ids.channel}, {"app", o.app, &ids.app}} {
			if f.v == "" {
				continue
			}
			if *f.p, err = parseIDFlag(f.name, f.v); err != nil {
				return usageErrorf("invoke: %v", err)
			}
		}
		return invoke(ctx, out, o, line, ids.as, ids.channel, ids.app)
	}
}

// invoke runs line and prints the answer.
func invoke(ctx context.Context, out io.Writer, o *invokeOptions, line slashline.Line, as, channel, app snowflake.ID) error {
	creds, err := readBootstrap(o.dataDir)
	if err != nil {
		return fmt.Errorf("invoke: %w", err)
	}
	c := &apiClient{base: strings.TrimSuffix(creds.BaseURL, "/"), http: &http.Client{Timeout: time.Minute}}
	token := creds.OwnerClientToken
	if as != 0 {
		var minted struct {
			Token string `json:"token"`
		}
		if err := c.do(ctx, http.MethodPost, "/admin/v1/users/"+as.String()+"/tokens", "Admin "+creds.AdminToken,
			map[string]string{"type": "client"}, &minted); err != nil {
			return fmt.Errorf("invoke: --as %s: a client token: %w", as, err)
		}
		token = minted.Token
	}
	if channel == 0 {
		if channel, err = snowflake.Parse(creds.ChannelID); err != nil {
			return fmt.Errorf("invoke: bootstrap.json's channel_id %q: %w", creds.ChannelID, err)
		}
	}
	var index struct {
		Commands []command.ListItem `json:"application_commands"`
	}
	if err := c.do(ctx, http.MethodGet, "/api/v10/channels/"+channel.String()+"/application-command-index", token, nil, &index); err != nil {
		return fmt.Errorf("invoke: the commands in channel %s: %w", channel, err)
	}
	inv, err := slashline.Resolve(line, index.Commands, slashline.Filter{App: app, Global: o.global})
	if err != nil {
		return fmt.Errorf("invoke: %w", err)
	}
	body := map[string]any{"type": 2, "application_id": inv.ApplicationID, "channel_id": channel, "data": inv.Data}
	var raw json.RawMessage
	if err := c.do(ctx, http.MethodPost, "/api/v10/interactions", token, body, &raw); err != nil {
		var ae *apiError
		if errors.As(err, &ae) {
			ae.options = inv.Data.Options
		}
		return fmt.Errorf("invoke: %s: %w", line, err)
	}
	if o.asJSON {
		_, err := out.Write(append(bytes.TrimSpace(raw), '\n'))
		return err
	}
	var answer invokeAnswer
	if err := json.Unmarshal(raw, &answer); err != nil {
		return fmt.Errorf("invoke: the answer %.200s: %w", raw, err)
	}
	if m := answer.Resource.Message; answer.Resource.Type == callbackDeferredMessage && m != nil && m.Flags&messageLoading != 0 {
		filled, err := waitFilled(ctx, c, token, channel, m.ID, o.wait)
		if err != nil {
			return fmt.Errorf("invoke: %s: %w", line, err)
		}
		answer.Resource.Message = filled
	}
	_, err = io.WriteString(out, answer.text())
	return err
}

// readBootstrap reads the credentials invoke needs from dir's
// bootstrap.json.
func readBootstrap(dir string) (bootstrap.Credentials, error) {
	var c bootstrap.Credentials
	path := filepath.Join(dir, bootstrap.FileName)
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return c, fmt.Errorf("no %s in %s: point --data (or SLASHD_DATA) at the data directory of the server's first start", bootstrap.FileName, dir)
	}
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(raw, &c); err != nil {
		return c, fmt.Errorf("read %s: %w", path, err)
	}
	if c.BaseURL == "" || c.AdminToken == "" {
		return c, fmt.Errorf("%s lacks base_url or admin_token: it is not the file of a server's first start", path)
	}
	if c.ChannelID == "" || c.OwnerClientToken == "" {
		return c, fmt.Errorf("%s lacks channel_id or owner_client_token: start the server once (it completes the file)", path)
	}
	return c, nil
}

// apiClient calls a running server's API.
type apiClient struct {
	base string
	http *http.Client
}

// apiError is an error the API answered with.
type apiError struct {
	Status  int
	Code    int             `json:"code"`
	Message string          `json:"message"`
	Errors  json.RawMessage `json:"errors"`
	// options are the interaction's, whose names the field errors under
	// data.options are told with.
	options []slashline.OptionValue
}

// Error is the API's message, then each field error as
// "path: message (CODE)".
func (e *apiError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.Status)
	}
	var tree any
	if len(e.Errors) > 0 && json.Unmarshal(e.Errors, &tree) == nil {
		var lines []string
		walkFieldErrors(tree, nil, e.options, &lines)
		if len(lines) > 0 {
			msg += ": " + strings.Join(lines, "; ")
		}
	}
	return msg
}

// walkFieldErrors collects the errors of an error body's field tree with
// their paths (data.type), an option's told by its name.
func walkFieldErrors(node any, path []string, opts []slashline.OptionValue, lines *[]string) {
	m, _ := node.(map[string]any)
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if k != "_errors" {
			walkFieldErrors(m[k], append(path, k), opts, lines)
			continue
		}
		leaves, _ := m[k].([]any)
		for _, l := range leaves {
			leaf, _ := l.(map[string]any)
			msg := fmt.Sprintf("%v (%v)", leaf["message"], leaf["code"])
			if p := describeFieldPath(path, opts); p != "" {
				msg = p + ": " + msg
			}
			*lines = append(*lines, msg)
		}
	}
}

// describeFieldPath names the field of an error: an option by its name
// (and its subcommand's: "user set who"), "" for the options as a whole
// (their errors say which option), any other field by its path.
func describeFieldPath(path []string, opts []slashline.OptionValue) string {
	if len(path) < 2 || path[0] != "data" || path[1] != "options" {
		return strings.Join(path, ".")
	}
	rest := path[2:]
	var names []string
	for len(rest) > 0 {
		n, err := strconv.Atoi(rest[0])
		if err != nil || n < 0 || n >= len(opts) {
			break
		}
		names = append(names, opts[n].Name)
		if len(rest) > 1 && rest[1] == "options" {
			opts, rest = opts[n].Options, rest[2:]
			continue
		}
		rest = rest[1:]
		break
	}
	switch {
	case len(names) == 0 && len(rest) == 0:
		return ""
	case len(names) == 0:
		return strings.Join(path, ".")
	case len(rest) == 0 || (len(rest) == 1 && rest[0] == "value"):
		return strings.Join(names, " ")
	}
	return strings.Join(names, " ") + " " + strings.Join(rest, ".")
}

// do sends a request with auth as its Authorization and decodes a 2xx
// answer into v; any other answer is an *apiError.
func (c *apiClient) do(ctx context.Context, method, path, auth string, body, v any) error {
	var rd io.Reader
	if body != nil {
		b, err := jsonenc.Marshal(body)
		if err != nil {
			return err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, rd)
	if err != nil {
		return err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	req.Header.Set("Authorization", auth)
	req.Header.Set("User-Agent", "slashd-invoke/"+currentBuild().Version)
	resp, err := c.http.Do(req)
	if err != nil && ctx.Err() != nil {
		return context.Cause(ctx) // interrupted, most often
	}
	if err != nil {
		return fmt.Errorf("is the server running? %w", err)
	}
	defer resp.Body.Close()
	raw, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		e := &apiError{Status: resp.StatusCode}
		if json.Unmarshal(raw, e) != nil || e.Message == "" {
			e.Message = fmt.Sprintf("HTTP %d %.200s", resp.StatusCode, bytes.TrimSpace(raw))
		}
		return e
	}
	if err := json.Unmarshal(raw, v); err != nil {
		return fmt.Errorf("%s %s: %.200s: %w", method, path, raw, err)
	}
	return nil
}

// waitFilled waits until the app fills in its deferred answer, the
// loading message id, and returns it. The loading message is read as the
// member sees it, a quarter second apart, for at most wait.
func waitFilled(ctx context.Context, c *apiClient, token string, channel, id snowflake.ID, wait time.Duration) (*invokeMessage, error) {
	waited := errors.New("the application did not fill in its deferred answer in " + wait.String())
	ctx, cancel := context.WithTimeoutCause(ctx, wait, waited)
	defer cancel()
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	q := url.Values{"before": {strconv.FormatUint(uint64(id)+1, 10)}, "limit": {"1"}}
	for {
		var msgs []invokeMessage
		err := c.do(ctx, http.MethodGet, "/api/v10/channels/"+channel.String()+"/messages?"+q.Encode(), token, nil, &msgs)
		switch {
		case ctx.Err() != nil && context.Cause(ctx) == waited:
			return nil, waited
		case ctx.Err() != nil:
			// Ctrl-C, most often: the wait was cut short, not over.
			return nil, fmt.Errorf("%w while waiting for the application to fill in its deferred answer", context.Cause(ctx))
		case err != nil:
			return nil, err
		case len(msgs) == 0 || msgs[0].ID != id:
			return nil, errors.New("the deferred answer was deleted")
		case msgs[0].Flags&messageLoading == 0:
			return &msgs[0], nil
		}
		select {
		case <-ctx.Done():
		case <-tick.C:
		}
	}
}

// Interaction callback types and message flags the answer is read with.
const (
	callbackDeferredMessage = 5
	callbackModal           = 9
	callbackLaunchActivity  = 12
	messageEphemeral        = 1 << 6
	messageLoading          = 1 << 7
)

// invokeAnswer is what POST /interactions answers.
type invokeAnswer struct {
	Resource struct {
		Type             int            `json:"type"`
		Message          *invokeMessage `json:"message"`
		Modal            *invokeModal   `json:"modal"`
		ActivityInstance *struct {
			ID string `json:"id"`
		} `json:"activity_instance"`
	} `json:"resource"`
}

// invokeMessage is a message, as far as invoke prints it.
type invokeMessage struct {
	ID          snowflake.ID      `json:"id"`
	Content     string            `json:"content"`
	Flags       int               `json:"flags"`
	Embeds      []invokeEmbed     `json:"embeds"`
	Components  []invokeComponent `json:"components"`
	Attachments []struct {
		Filename string `json:"filename"`
		Size     int    `json:"size"`
	} `json:"attachments"`
}

type invokeEmbed struct {
	Title       string `json:"title"`
	URL         string `json:"url"`
	Description string `json:"description"`
	Author      *struct {
		Name string `json:"name"`
	} `json:"author"`
	Fields []struct {
		Name  string `json:"name"`
		Value string `json:"value"`
	} `json:"fields"`
	Image *struct {
		URL string `json:"url"`
	} `json:"image"`
	Thumbnail *struct {
		URL string `json:"url"`
	} `json:"thumbnail"`
	Footer *struct {
		Text string `json:"text"`
	} `json:"footer"`
}

// invokeComponent is any message or modal component: the fields of
// every kind invoke prints.
type invokeComponent struct {
	Type        int               `json:"type"`
	CustomID    string            `json:"custom_id"`
	Label       string            `json:"label"`
	Style       int               `json:"style"`
	URL         string            `json:"url"`
	Disabled    bool              `json:"disabled"`
	Placeholder string            `json:"placeholder"`
	Content     string            `json:"content"` // text display
	Options     []invokeSelectOpt `json:"options"`
	Components  []invokeComponent `json:"components"`
	Component   *invokeComponent  `json:"component"` // a label's
	Accessory   *invokeComponent  `json:"accessory"` // a section's
	Items       []struct {
		Media struct {
			URL string `json:"url"`
		} `json:"media"`
	} `json:"items"`
	File *struct {
		URL string `json:"url"`
	} `json:"file"`
}

type invokeSelectOpt struct {
	Label string `json:"label"`
	Value string `json:"value"`
}

type invokeModal struct {
	CustomID   string            `json:"custom_id"`
	Title      string            `json:"title"`
	Components []invokeComponent `json:"components"`
}

// text is the answer as invoke prints it.
func (a invokeAnswer) text() string {
	var b strings.Builder
	r := a.Resource
	switch {
	case r.Type == callbackModal && r.Modal != nil:
		fmt.Fprintf(&b, "The app opened a form (modal %q): %s\n", r.Modal.CustomID, r.Modal.Title)
		writeComponents(&b, r.Modal.Components, "  ")
	case r.Type == callbackLaunchActivity && r.ActivityInstance != nil:
		fmt.Fprintf(&b, "The app launched its activity (instance %s)\n", r.ActivityInstance.ID)
	case r.Message != nil:
		writeMessage(&b, r.Message)
	default:
		fmt.Fprintf(&b, "The app answered with an interaction callback of type %d\n", r.Type)
	}
	return b.String()
}

// writeMessage prints a message: its text, attachments, embeds and
// components; an ephemeral one says so last.
func writeMessage(b *strings.Builder, m *invokeMessage) {
	if m.Content != "" {
		b.WriteString(m.Content)
		b.WriteByte('\n')
	}
	for _, a := range m.Attachments {
		fmt.Fprintf(b, "[attachment: %s, %d bytes]\n", a.Filename, a.Size)
	}
	for _, e := range m.Embeds {
		writeEmbed(b, e)
	}
	if len(m.Components) > 0 {
		b.WriteString("components:\n")
		writeComponents(b, m.Components, "  ")
	}
	if m.Flags&messageEphemeral != 0 {
		b.WriteString("(only you can see this)\n")
	}
}

// writeEmbed prints an embed as lines starting with "| ".
func writeEmbed(b *strings.Builder, e invokeEmbed) {
	before := b.Len()
	line := func(s string) {
		for l := range strings.SplitSeq(s, "\n") {
			b.WriteString("| " + l + "\n")
		}
	}
	if e.Author != nil && e.Author.Name != "" {
		line(e.Author.Name)
	}
	switch {
	case e.Title != "" && e.URL != "":
		line(e.Title + " <" + e.URL + ">")
	case e.Title != "":
		line(e.Title)
	case e.URL != "":
		line("<" + e.URL + ">")
	}
	if e.Description != "" {
		line(e.Description)
	}
	for _, f := range e.Fields {
		line(f.Name + ": " + f.Value)
	}
	if e.Image != nil && e.Image.URL != "" {
		line("image: " + e.Image.URL)
	}
	if e.Thumbnail != nil && e.Thumbnail.URL != "" {
		line("thumbnail: " + e.Thumbnail.URL)
	}
	if e.Footer != nil && e.Footer.Text != "" {
		line(e.Footer.Text)
	}
	if b.Len() == before {
		line("(an embed)")
	}
}

// buttonStyles names the button styles, by number.
var buttonStyles = []string{1: "primary", 2: "secondary", 3: "success", 4: "danger", 5: "link", 6: "premium"}

// writeComponents prints components as an indented list, one a line.
func writeComponents(b *strings.Builder, cs []invokeComponent, indent string) {
	for _, c := range cs {
		var desc string
		switch c.Type {
		case 1: // action row
			fmt.Fprintf(b, "%srow:\n", indent)
			writeComponents(b, c.Components, indent+"  ")
			continue
		case 2:
			style := "button"
			if c.Style > 0 && c.Style < len(buttonStyles) {
				style = buttonStyles[c.Style] + " button"
			}
			desc = fmt.Sprintf("%s %q", style, c.Label)
			if c.URL != "" {
				desc += " → " + c.URL
			}
		case 3, 5, 6, 7, 8:
			kind := map[int]string{3: "select menu", 5: "user select", 6: "role select", 7: "user or role select", 8: "channel select"}[c.Type]
			desc = kind
			if c.Placeholder != "" {
				desc += fmt.Sprintf(" %q", c.Placeholder)
			}
			if len(c.Options) > 0 {
				labels := make([]string, len(c.Options))
				for i, o := range c.Options {
					labels[i] = o.Label
				}
				desc += ": " + strings.Join(labels, ", ")
			}
		case 4:
			kind := "text input"
			if c.Style == 2 {
				kind = "paragraph input"
			}
			desc = fmt.Sprintf("%s %q", kind, c.Label)
		case 9: // section
			fmt.Fprintf(b, "%ssection:\n", indent)
			writeComponents(b, c.Components, indent+"  ")
			if c.Accessory != nil {
				writeComponents(b, []invokeComponent{*c.Accessory}, indent+"  ")
			}
			continue
		case 10:
			desc = fmt.Sprintf("text %q", c.Content)
		case 11:
			desc = "thumbnail"
		case 12:
			urls := make([]string, len(c.Items))
			for i, it := range c.Items {
				urls[i] = it.Media.URL
			}
			desc = "media gallery: " + strings.Join(urls, ", ")
		case 13:
			desc = "file"
			if c.File != nil {
				desc += " " + c.File.URL
			}
		case 14:
			desc = "separator"
		case 17: // container
			fmt.Fprintf(b, "%scontainer:\n", indent)
			writeComponents(b, c.Components, indent+"  ")
			continue
		case 18: // label
			fmt.Fprintf(b, "%slabel %q:\n", indent, c.Label)
			if c.Component != nil {
				writeComponents(b, []invokeComponent{*c.Component}, indent+"  ")
			}
			continue
		default:
			desc = fmt.Sprintf("component of type %d", c.Type)
		}
		if c.CustomID != "" {
			desc += " (custom_id " + c.CustomID + ")"
		}
		if c.Disabled {
			desc += " (disabled)"
		}
		fmt.Fprintf(b, "%s- %s\n", indent, desc)
	}
}
