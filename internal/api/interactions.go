package api

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"time"

	"github.com/slashd/slashd/internal/access"
	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/event"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/interaction"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/webhook"
	"github.com/slashd/slashd/internal/wire"
)

// Interaction errors, with the real service's codes.
var (
	errUnknownInteraction = apierr.New(http.StatusNotFound, 10062, "Unknown interaction")
	errAlreadyAcked       = apierr.New(http.StatusBadRequest, 40060, "Interaction has already been acknowledged.")
	errUnknownWebhook     = apierr.New(http.StatusNotFound, 10015, "Unknown Webhook")
	errInvalidWebhookTok  = apierr.New(http.StatusUnauthorized, 50027, "Invalid Webhook Token")
	errUnknownMessage     = apierr.New(http.StatusNotFound, 10008, "Unknown Message")
	// An invocation the app did not answer in time, or answered with
	// something unusable: the real client shows these words.
	errNoResponse        = apierr.New(http.StatusGatewayTimeout, apierr.CodeGeneral, webhook.MessageNoResponse)
	errInteractionFailed = apierr.New(http.StatusBadGateway, apierr.CodeGeneral, webhook.MessageFailed)
)

// Interaction timing (api-facts §4.2).
const (
	// answerWindow is how long an app has for its initial answer.
	answerWindow = webhook.DefaultTimeout
	// tokenLifetime is how long the token serves follow-ups and edits.
	tokenLifetime = 15 * time.Minute
	// attachmentSizeLimit is a non-boosted guild's upload limit.
	attachmentSizeLimit = 10 << 20
	// defaultLocale is the locale of users and guilds that set none.
	defaultLocale = "en-US"
)

// invocation is one accepted invocation, on its way to the app.
type invocation struct {
	app     store.Application
	cmd     command.Command
	record  store.Interaction
	payload interaction.Payload
	body    []byte                          // the payload's JSON, as delivered
	meta    interaction.InteractionMetadata // record.Metadata, decoded
	base    string                          // the server's URL for the invoking request (files' links)
}

// invoke is POST /interactions: a user runs a command (type 2), types in
// an autocomplete option (type 4), uses a component of an app's message
// (type 3) or submits an app's modal (type 5), as the real chat client
// does. The
// invocation is checked, delivered to the app (its Interactions Endpoint
// URL, else INTERACTION_CREATE on the event bus) and, unlike the real
// endpoint's bare 204, answered with the outcome once the app has
// answered: the same body as a callback's ?with_response=true.
func (s *Server) invoke(w http.ResponseWriter, r *http.Request) error {
	ctx := r.Context()
	v, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	user := principalFrom(ctx).Token.UserID
	var in invocation
	it := invocationType(v)
	switch it {
	case interaction.MessageComponent:
		in, err = s.prepareComponentInvocation(ctx, user, v)
	case interaction.ModalSubmit:
		in, err = s.prepareModalInvocation(ctx, user, v)
	default:
		inv, perrs := interaction.ParseInvocation(v)
		if perrs != nil {
			s.countInteraction(it, outcomeRejected)
			return perrs.Err()
		}
		it = inv.Type
		in, err = s.prepareInvocation(ctx, user, inv)
	}
	in.base = s.publicBase(r)
	if err != nil {
		s.countInteraction(it, refusalOutcome(err))
		return err
	}
	delivered, err := s.record(ctx, in)
	if err != nil {
		s.countInteraction(it, outcomeError)
		return fmt.Errorf("record interaction: %w", err)
	}
	defer delivered() // settles the record before the handler returns, panics included
	interaction.ReportID(ctx, in.record.ID)
	rec, err := s.dispatch(ctx, in)
	if err != nil {
		return err
	}
	out, err := s.callbackResponse(ctx, rec)
	if err != nil {
		return err
	}
	writeCallbackResult(w, out)
	return nil
}

// invocationType peeks at a body's type: components (3) and modal
// submissions (5) have their own parsers; everything else goes to the
// command parser, which reports a bad type.
func invocationType(v any) interaction.Type {
	o, ok := v.(map[string]any)
	if !ok {
		return 0
	}
	n, ok := o["type"].(json.Number)
	if !ok {
		return 0
	}
	switch n.String() {
	case "3":
		return interaction.MessageComponent
	case "5":
		return interaction.ModalSubmit
	}
	return 0
}

// prepareInvocation runs every check of an invocation by user and builds
// the interaction the app will receive.
func (s *Server) prepareInvocation(ctx context.Context, user snowflake.ID, inv interaction.Invocation) (invocation, error) {
	ch, view, err := s.invokerChannel(ctx, user, inv.ChannelID, inv.GuildID)
	if err != nil {
		return invocation{}, err
	}
	inv.GuildID = ch.GuildID
	cmd, ac, err := s.invokedCommand(ctx, view, inv)
	if err != nil {
		return invocation{}, err
	}
	if err := interaction.CheckVersion(inv, cmd); err != nil {
		return invocation{}, err
	}
	res, err := interaction.Validate(inv, cmd)
	if err != nil {
		return invocation{}, err
	}
	decision := access.NewViewer(view.context(ch, ac.app.ID)).Decide(ac.index, cmd)
	if !decision.Allowed {
		return invocation{}, errMissingPerms
	}
	userPerms := view.permissionsIn(ch)
	if cmd.Type == command.User && !userPerms.Has(guild.SendMessages) {
		return invocation{}, errMissingPerms // spec §7.2
	}
	resolved, err := s.resolve(ctx, view, ch, inv, res)
	if err != nil {
		return invocation{}, err
	}
	return s.buildInvocation(ctx, view, ch, ac.app, cmd, inv, res, resolved, userPerms, decision.Owners)
}

// invokedCommand finds the command data.id names among those the app has
// where the user is (in a guild, its guild commands and the global ones:
// a guild command and a global one of one name are two commands, each
// run by its own id; outside guilds, global commands only).
func (s *Server) invokedCommand(ctx context.Context, view memberView, inv interaction.Invocation) (command.Command, appCommands, error) {
	if !view.installed(inv.ApplicationID) && !view.userApps[inv.ApplicationID] {
		app, err := s.store.Application(ctx, inv.ApplicationID)
		if errors.Is(err, store.ErrNotFound) || (err == nil && app.WorldID != view.user.WorldID) {
			return command.Command{}, appCommands{}, errUnknownApp // another world's app is unknown
		}
		return command.Command{}, appCommands{}, errUnknownCommand
	}
	ac, err := s.loadAppCommands(ctx, inv.ApplicationID, view.snap.Guild.ID)
	if err != nil {
		return command.Command{}, appCommands{}, store.NotFoundAs(err, errUnknownApp)
	}
	i := slices.IndexFunc(ac.commands, func(c command.Command) bool { return c.ID == inv.Data.ID })
	if i < 0 {
		return command.Command{}, appCommands{}, errUnknownCommand
	}
	cmd := ac.commands[i]
	if cmd.Type == command.PrimaryEntryPoint && !ac.embedded() {
		return command.Command{}, appCommands{}, errUnknownCommand // invisible without Activities (spec §2.3)
	}
	return cmd, ac, nil
}

// buildInvocation shapes a command's interaction object and its stored
// record.
func (s *Server) buildInvocation(ctx context.Context, view memberView, ch guild.Channel, app store.Application,
	cmd command.Command, inv interaction.Invocation, res interaction.Resolved, resolved *interaction.ResolvedData,
	userPerms guild.Permissions, owners access.Owners) (invocation, error) {
	p, err := s.newPayload(ctx, view, ch, app, inv.Type, userPerms, integrationOwners(owners, view, ch))
	if err != nil {
		return invocation{}, err
	}
	data := &interaction.PayloadData{Data: interaction.BuildData(cmd, res)}
	if !resolved.Empty() {
		data.Resolved = resolved
	}
	p.Data = data
	in, err := s.sealInvocation(ctx, p, interactionMetadata(p, cmd, res, resolved), app)
	if err != nil {
		return invocation{}, err
	}
	in.cmd, in.record.CommandID = cmd, cmd.ID
	return in, nil
}

// newPayload is the part of an interaction object every type shares: who
// invokes where, with a fresh id and token, and the installations that
// authorize it (authorizing_integration_owners).
func (s *Server) newPayload(ctx context.Context, view memberView, ch guild.Channel, app store.Application,
	it interaction.Type, userPerms guild.Permissions, owners map[string]snowflake.ID) (interaction.Payload, error) {
	id := s.ids.Next()
	token, err := s.newInteractionToken(id)
	if err != nil {
		return interaction.Payload{}, err
	}
	appPerms, err := s.appPermissions(ctx, view, ch, app.ID)
	if err != nil {
		return interaction.Payload{}, err
	}
	user := wireUser(view.user)
	locale := view.user.Locale
	if locale == "" {
		locale = defaultLocale
	}
	p := interaction.Payload{
		ID: id, ApplicationID: app.ID, Type: it, ChannelID: ch.ID,
		Token: token, Version: 1, AppPermissions: appPerms, Locale: locale,
		Entitlements:                 []json.RawMessage{},
		AuthorizingIntegrationOwners: owners,
		Context:                      view.where(app.ID),
		AttachmentSizeLimit:          attachmentSizeLimit,
	}
	if view.private != nil {
		p.User = &user
		p.Channel, err = s.privatePayload(ctx, view.private, app.ID, userPerms)
		return p, err
	}
	member := interaction.NewMember(view.member, &user, userPerms)
	chp := interaction.NewChannel(ch, userPerms)
	p.Guild = &interaction.PartialGuild{ID: ch.GuildID, Locale: defaultLocale, Features: []string{}}
	p.GuildID, p.Channel, p.Member, p.GuildLocale = ch.GuildID, &chp, &member, defaultLocale
	return p, nil
}

// integrationOwners is authorizing_integration_owners: for a guild
// install the guild's id ("0" in the DM with the app's bot), for the
// user's own install the user's id.
func integrationOwners(o access.Owners, view memberView, ch guild.Channel) map[string]snowflake.ID {
	out := make(map[string]snowflake.ID, 2)
	if o.Has(access.OwnerGuild) {
		out["0"] = ch.GuildID // 0 outside guilds
	}
	if o.Has(access.OwnerUser) {
		out["1"] = view.user.ID
	}
	return out
}

// privatePayload is a DM or group DM as an interaction of app in it
// carries it: the channel object the API serves, its recipients being the
// participants other than the app's bot, with the invoker's permissions.
func (s *Server) privatePayload(ctx context.Context, p *privateChannel, appID snowflake.ID, perms guild.Permissions) (any, error) {
	last, err := s.lastMessageID(ctx, p.channel.ID)
	if err != nil {
		return nil, err
	}
	users := make([]wire.User, 0, len(p.recipients))
	for _, u := range p.recipients {
		if u.ID != appID {
			users = append(users, wireUser(u))
		}
	}
	dm := wire.NewDMChannel(p.channel.ID, p.channel.Type, last, users)
	if p.channel.Type == guild.ChannelGroupDM {
		return &interaction.PrivateGroupChannel{GroupDMChannel: wire.NewGroupDMChannel(dm, p.channel.Name, p.ownerID),
			Permissions: perms}, nil
	}
	return &interaction.PrivateChannel{DMChannel: dm, Permissions: perms}, nil
}

// inheritedOwners is who authorizes a component or modal interaction:
// the owners of the interaction it follows from (the one whose message
// carries the component, or that opened the modal), as the real service
// tells an app the authorizing user apart from the one who clicked; when
// unknown, the installations of app that reach the viewer.
func inheritedOwners(from map[string]snowflake.ID, view memberView, ch guild.Channel, appID snowflake.ID) map[string]snowflake.ID {
	if from != nil {
		return from
	}
	var o access.Owners
	if view.installed(appID) {
		o |= access.OwnerGuild
	}
	if view.userApps[appID] {
		o |= access.OwnerUser
	}
	return integrationOwners(o, view, ch)
}

// payloadSize is what an interaction takes encoded, with room to spare:
// its buffer is allocated once.
const payloadSize = 2048

// sealInvocation encodes a finished payload (jsonenc.Marshal's bytes, by
// hand: Payload.AppendJSON) and makes its stored record.
func (s *Server) sealInvocation(ctx context.Context, p interaction.Payload, meta interaction.InteractionMetadata, app store.Application) (invocation, error) {
	body, err := p.AppendJSON(make([]byte, 0, payloadSize))
	if err != nil {
		return invocation{}, fmt.Errorf("encode interaction: %w", err)
	}
	metaJSON, err := meta.AppendJSON(make([]byte, 0, 512))
	if err != nil {
		return invocation{}, fmt.Errorf("encode interaction metadata: %w", err)
	}
	rec := store.Interaction{
		ID: p.ID, ApplicationID: app.ID, Type: int(p.Type), TokenHash: auth.Hash(p.Token),
		GuildID: p.GuildID, ChannelID: p.ChannelID, UserID: p.Invoker().ID,
		CreatedAt: s.nowIn(ctx).UTC(), Metadata: metaJSON,
	}
	return invocation{app: app, record: rec, payload: p, body: body, meta: meta}, nil
}

// interactionMetadata is what the messages answering the interaction say
// about it.
func interactionMetadata(p interaction.Payload, cmd command.Command, res interaction.Resolved,
	resolved *interaction.ResolvedData) interaction.InteractionMetadata {
	m := interaction.InteractionMetadata{ID: p.ID, Type: p.Type, User: p.Invoker(),
		AuthorizingIntegrationOwners: p.AuthorizingIntegrationOwners, Name: cmd.Name, CommandType: cmd.Type}
	switch cmd.Type {
	case command.User:
		if u, ok := resolved.Users[res.TargetID]; ok {
			m.TargetUser = &u
		}
	case command.Message:
		m.TargetMessageID = res.TargetID
	}
	return m
}

// appPermissions is what the app's bot may do in the channel; an app
// without a bot member gets what @everyone gets there. Outside guilds
// they are fixed: the real service's documented set for the bot's DM and
// for other DMs and group DMs.
func (s *Server) appPermissions(ctx context.Context, view memberView, ch guild.Channel, appID snowflake.ID) (guild.Permissions, error) {
	switch view.where(appID) {
	case command.ContextBotDM:
		return guild.AppPermissionsBotDM, nil
	case command.ContextPrivateChannel:
		return guild.AppPermissionsPrivateChannel, nil
	}
	bot, err := s.store.Member(ctx, ch.GuildID, appID)
	if errors.Is(err, store.ErrNotFound) {
		bot = guild.Member{GuildID: ch.GuildID, UserID: appID}
	} else if err != nil {
		return 0, err
	}
	return view.permissionsOf(bot, ch), nil
}

// newInteractionToken makes the interaction's continuation token, shaped
// like the real ones: base64url of "interaction:<id>:<random>".
func (s *Server) newInteractionToken(id snowflake.ID) (string, error) {
	secret := make([]byte, 48)
	if _, err := io.ReadFull(s.rand, secret); err != nil {
		return "", fmt.Errorf("interaction token: %w", err)
	}
	raw := "interaction:" + id.String() + ":" + base64.RawURLEncoding.EncodeToString(secret)
	return base64.RawURLEncoding.EncodeToString([]byte(raw)), nil
}

// dispatch hands the invocation to the app and waits (within the answer
// window) for its answer; what became of it is logged and counted.
func (s *Server) dispatch(ctx context.Context, in invocation) (answered, error) {
	start := time.Now()
	d := delivery{target: targetGateway}
	s.journalDelivered(in)
	rec, err := s.deliverWithFaults(ctx, in, &d)
	switch {
	case err == nil && (rec.ResponseType == interaction.CallbackDeferredChannelMessage ||
		rec.ResponseType == interaction.CallbackDeferredUpdateMessage):
		d.outcome = outcomeDeferred
	case err == nil:
		d.outcome = outcomeAnswered
	case d.outcome == "":
		d.outcome, d.reason = outcomeError, err.Error()
	}
	took := time.Since(start)
	s.deliveryDone(in, d, took)
	rec = s.journalDelivery(ctx, in, d, took, rec, err)
	s.noteDelivery(ctx, in, d, took, rec, err)
	s.publishInlineRefusal(ctx, in, d)
	return rec, err
}

// delivery is what became of handing an invocation to its app.
type delivery struct {
	target   string // targetEndpoint, targetGateway or targetService
	endpoint string // the endpoint URL as logged (no query, no credentials)
	status   int    // the endpoint's HTTP status; 0: none
	outcome  string // one of the outcome* labels
	reason   string // why it failed, for the log
	signed   webhook.Signed
	// refused is why an inline answer was refused (nil: it was not).
	refused error
}

// deliver is dispatch's work: it fills d as it goes. An entry point with
// handler 2 is the service's own to answer: it launches the Activity
// without involving the app.
func (s *Server) deliver(ctx context.Context, in invocation, d *delivery) (answered, error) {
	if serviceAnswers(in.cmd) {
		d.target = targetService
		return s.answerRecord(ctx, in.record, &in.meta, interaction.Callback{Type: interaction.CallbackLaunchActivity}, answerLaunch)
	}
	deadline := in.record.CreatedAt.Add(answerWindow)
	if in.app.InteractionsEndpointURL == "" {
		s.events.Publish(context.WithoutCancel(ctx), event.Event{Type: event.InteractionCreate,
			ApplicationID: in.app.ID, GuildID: in.record.GuildID, Data: json.RawMessage(in.body)})
		return s.awaitAnswer(ctx, in.record.ID, deadline, d)
	}
	d.target, d.endpoint = targetEndpoint, endpointForLog(in.app.InteractionsEndpointURL)
	resp, err := s.webhooks.Deliver(ctx, in.app.InteractionsEndpointURL, ed25519.PrivateKey(in.app.PrivateKey), in.body)
	d.signed = resp.Signed
	var de *webhook.DeliveryError
	if errors.As(err, &de) {
		d.status, d.reason, d.signed = de.Status, de.Diagnostic(), de.Signed
		switch de.Kind {
		case webhook.KindTimeout:
			d.outcome = outcomeTimeout
			return answered{}, errNoResponse
		case webhook.KindBadResponse:
			d.outcome = outcomeInvalidResponse
		default:
			d.outcome = outcomeDeliveryFailed
		}
		return answered{}, errInteractionFailed
	}
	if err != nil {
		return answered{}, err
	}
	defer resp.Release() // a multipart answer's share of the upload budget, once stored
	d.status = resp.Status
	if resp.ViaCallback {
		return s.awaitAnswer(ctx, in.record.ID, deadline, d)
	}
	return s.answerInline(ctx, in, resp, d)
}

// answerInline applies an answer the app gave in its HTTP response: JSON,
// or a multipart form read as a callback's is (its files become the
// message's attachments).
func (s *Server) answerInline(ctx context.Context, in invocation, resp webhook.Response, d *delivery) (answered, error) {
	refused := func(err error) (answered, error) {
		d.outcome, d.reason, d.refused = outcomeInvalidResponse, "inline answer refused: "+err.Error(), err
		return answered{}, errInteractionFailed
	}
	v, uploads, err := inlineAnswer(resp)
	if err != nil {
		return refused(err)
	}
	att, err := s.attachCallbackUploadsAt(ctx, in.base, v, uploads, in.record.ChannelID)
	if err != nil {
		return refused(err)
	}
	cb, err := interaction.ParseCallback(v, in.payload.Type)
	if err != nil {
		return refused(err)
	}
	cb.Message.Uploads = att
	rec, err := s.answerRecord(ctx, in.record, &in.meta, cb, answerInlineHTTP)
	if err != nil {
		var ae *apierr.Error
		if errors.As(err, &ae) {
			return refused(err)
		}
		return answered{}, err
	}
	return rec, nil
}

// inlineAnswer decodes an endpoint's inline answer: its JSON, or the
// payload_json and files of its multipart form.
func inlineAnswer(resp webhook.Response) (any, []interaction.Upload, error) {
	if resp.Multipart == "" {
		v, err := form.DecodeJSON(resp.Body)
		return v, nil, err
	}
	boundary, _ := multipartBoundary(resp.Multipart)
	return readMultipart(bytes.NewReader(resp.Body), boundary)
}

// resolve looks the ids of options and the target up in the world, the
// way the real service fills data.resolved.
func (s *Server) resolve(ctx context.Context, view memberView, ch guild.Channel, inv interaction.Invocation,
	res interaction.Resolved) (*interaction.ResolvedData, error) {
	rs := entityResolver{s: s, view: view, ch: ch, inv: inv, out: &interaction.ResolvedData{}, errs: &apierr.Fields{}}
	for _, ref := range res.Refs {
		if err := rs.ref(ctx, ref); err != nil {
			return nil, err
		}
	}
	if res.TargetID != 0 {
		if err := rs.target(ctx, inv.Data.Type, res.TargetID); err != nil {
			return nil, err
		}
	}
	if err := rs.errs.Err(); err != nil {
		return nil, err
	}
	return rs.out, nil
}

type entityResolver struct {
	s    *Server
	view memberView
	ch   guild.Channel
	inv  interaction.Invocation
	out  *interaction.ResolvedData
	errs *apierr.Fields
}

func (rs *entityResolver) ref(ctx context.Context, ref interaction.Ref) error {
	at := rs.errs.At(ref.Path...)
	switch ref.Type {
	case command.UserOption:
		found, err := rs.user(ctx, ref.ID)
		if err == nil && !found {
			at.Add(interaction.CodeOptionInvalid, interaction.MsgUnknownUser)
		}
		return err
	case command.Role:
		if !rs.role(ref.ID) {
			at.Add(interaction.CodeOptionInvalid, interaction.MsgUnknownRole)
		}
	case command.Mentionable:
		if rs.role(ref.ID) {
			return nil
		}
		found, err := rs.user(ctx, ref.ID)
		if err == nil && !found {
			at.Add(interaction.CodeOptionInvalid, interaction.MsgUnknownMentionable)
		}
		return err
	case command.Channel:
		c, ok := rs.view.channels[ref.ID]
		switch {
		case !ok || !rs.view.canView(c):
			at.Add(interaction.CodeOptionInvalid, interaction.MsgUnknownChannel)
		case len(ref.ChannelTypes) > 0 && !slices.Contains(ref.ChannelTypes, c.Type):
			at.Add(interaction.CodeOptionInvalid, interaction.MsgChannelType)
		default:
			put(&rs.out.Channels, c.ID, interaction.NewChannel(c, rs.view.permissionsIn(c)))
		}
	case command.Attachment:
		i := slices.IndexFunc(rs.inv.Data.Attachments, func(a interaction.AttachmentInput) bool { return a.ID == ref.ID })
		if i < 0 {
			at.Add(interaction.CodeOptionInvalid, interaction.MsgUnknownAttachment)
			return nil
		}
		put(&rs.out.Attachments, ref.ID, rs.attachment(rs.inv.Data.Attachments[i]))
	}
	return nil
}

// user resolves a user and, when in the guild, their membership.
func (rs *entityResolver) user(ctx context.Context, id snowflake.ID) (bool, error) {
	u, err := rs.s.store.User(ctx, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && u.WorldID != rs.view.user.WorldID) {
		return false, nil // another world's user is unknown
	}
	if err != nil {
		return false, err
	}
	put(&rs.out.Users, id, wireUser(u))
	m, err := rs.s.store.Member(ctx, rs.ch.GuildID, id)
	if errors.Is(err, store.ErrNotFound) {
		return true, nil
	}
	if err != nil {
		return false, err
	}
	put(&rs.out.Members, id, interaction.NewMember(m, nil, rs.view.permissionsOf(m, rs.ch)))
	return true, nil
}

func (rs *entityResolver) role(id snowflake.ID) bool {
	r, ok := rs.view.roles[id]
	if ok {
		put(&rs.out.Roles, id, interaction.NewRole(r))
	}
	return ok
}

// attachment shapes a file of an ATTACHMENT option: the invoking client
// describes it but sends no bytes, so its URL is a placeholder (files a
// message is written with are kept and served: files.go).
func (rs *entityResolver) attachment(a interaction.AttachmentInput) interaction.Attachment {
	url := interaction.CDN + "/ephemeral-attachments/" + rs.inv.ApplicationID.String() + "/" +
		a.ID.String() + "/" + a.Filename
	return interaction.Attachment{ID: a.ID, Filename: a.Filename, Size: a.Size, URL: url, ProxyURL: url,
		ContentType: a.ContentType, Ephemeral: true}
}

// target resolves a USER or MESSAGE command's target.
func (rs *entityResolver) target(ctx context.Context, t command.Type, id snowflake.ID) error {
	at := rs.errs.At("data", "target_id")
	if t == command.User {
		found, err := rs.user(ctx, id)
		if err == nil && !found {
			at.Add(interaction.CodeOptionInvalid, interaction.MsgUnknownUser)
		}
		return err
	}
	m, err := rs.s.store.Message(ctx, id)
	if errors.Is(err, store.ErrNotFound) || (err == nil && !visibleIn(m, rs.ch.ID, rs.view.user.ID)) {
		at.Add(interaction.CodeOptionInvalid, interaction.MsgUnknownMessage)
		return nil
	}
	if err != nil {
		return err
	}
	put(&rs.out.Messages, id, json.RawMessage(m.Body))
	return nil
}

// visibleIn reports whether message m is in channel ch and user may see it.
func visibleIn(m store.Message, ch, user snowflake.ID) bool {
	return m.ChannelID == ch && (m.VisibleTo == 0 || m.VisibleTo == user)
}

func put[V any](m *map[snowflake.ID]V, id snowflake.ID, v V) {
	if *m == nil {
		*m = map[snowflake.ID]V{}
	}
	(*m)[id] = v
}
