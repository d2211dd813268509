package main

// World-building verbs: users, roles, members, channels and users'
// tokens, written straight to the store of a data directory (a running
// server on it sees them at once). They print what the admin API
// (/admin/v1) answers for the same object.

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/oauth"
	"github.com/slashd/slashd/internal/secrets"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// worldVerbs maps "noun verb" to its implementation.
var worldVerbs = map[string]func(ctx context.Context, env bootstrap.Env, fs *worldFlags) (any, string, error){
	"user create":    userCreate,
	"role create":    roleCreate,
	"member add":     memberAdd,
	"channel create": channelCreate,
	"token mint":     tokenMint,
}

// worldVerb runs `slashd user create`, `role create`, `member add`,
// `channel create` or `token mint`.
func worldVerb(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	name := args[0]
	if len(args) > 1 && !strings.HasPrefix(args[1], "-") {
		name += " " + args[1]
	}
	verb, ok := worldVerbs[name]
	if !ok {
		fmt.Fprint(stderr, usage)
		return fmt.Errorf("unknown command %q", name)
	}
	wf := newWorldFlags(name, getenv, stderr)
	if err := wf.fs.Parse(args[2:]); err != nil {
		return err
	}
	if wf.fs.NArg() > 0 {
		return fmt.Errorf("%s: unexpected argument %q", name, wf.fs.Arg(0))
	}
	env, closeStore, err := cliEnv(ctx, wf.store, wf.dataDir, wf.keys, stderr)
	if err != nil {
		return err
	}
	defer closeStore()
	obj, text, err := verb(ctx, env, wf)
	if err != nil {
		return fmt.Errorf("%s: %w", name, err)
	}
	if wf.asJSON {
		return printJSON(stdout, obj)
	}
	fmt.Fprintln(stdout, text)
	return nil
}

// worldFlags are the flags of every world verb; each verb reads its own.
type worldFlags struct {
	fs                       *flag.FlagSet
	dataDir, store           string
	keys                     secrets.Config
	asJSON                   bool
	name, globalName, locale string
	adult, nsfw              bool
	guild, user, app, parent string
	permissions, roles, nick string
	scopes, password         string
	position, channelType    int
}

func newWorldFlags(verb string, getenv func(string) string, stderr io.Writer) *worldFlags {
	wf := &worldFlags{fs: flag.NewFlagSet(verb, flag.ContinueOnError)}
	fs := wf.fs
	fs.SetOutput(stderr)
	fs.StringVar(&wf.dataDir, "data", envOr(getenv, "SLASHD_DATA", "./slashd-data"), "data directory")
	storeFlag(fs, &wf.store, getenv)
	secretKeyFlags(fs, &wf.keys, getenv)
	fs.BoolVar(&wf.asJSON, "json", false, "print JSON (the admin API's object)")
	switch verb {
	case "user create":
		fs.StringVar(&wf.name, "name", "", "username, 1 to 32 characters (required)")
		fs.StringVar(&wf.globalName, "global-name", "", "display name")
		fs.StringVar(&wf.locale, "locale", "en-US", "locale (en-US, fr, …)")
		fs.BoolVar(&wf.adult, "adult", false, "the user is 18 or older (may see age-restricted commands)")
		fs.StringVar(&wf.password, "password", "", "also give the user a login for the OAuth2 consent page, named after --name, with this password (8 to 128 characters)")
	case "role create":
		fs.StringVar(&wf.guild, "guild", "", "guild id (required)")
		fs.StringVar(&wf.name, "name", "", "role name (required)")
		fs.StringVar(&wf.permissions, "permissions", "0", "permission bits, decimal (32 = MANAGE_GUILD, 268435456 = MANAGE_ROLES)")
		fs.IntVar(&wf.position, "position", 1, "position (1 is just above @everyone)")
	case "member add":
		fs.StringVar(&wf.guild, "guild", "", "guild id (required)")
		fs.StringVar(&wf.user, "user", "", "user id (required)")
		fs.StringVar(&wf.roles, "roles", "", "comma-separated role ids")
		fs.StringVar(&wf.nick, "nick", "", "nickname in the guild")
	case "channel create":
		fs.StringVar(&wf.guild, "guild", "", "guild id (required)")
		fs.StringVar(&wf.name, "name", "", "channel name (required)")
		fs.IntVar(&wf.channelType, "type", guild.ChannelText, "channel type (0 text, 2 voice, 4 category, 5 announcement, 11 thread, 15 forum, …)")
		fs.StringVar(&wf.parent, "parent", "", "parent id: a thread's channel, or a channel's category")
		fs.BoolVar(&wf.nsfw, "nsfw", false, "age-restricted channel")
		fs.IntVar(&wf.position, "position", 0, "position")
	case "token mint":
		fs.StringVar(&wf.user, "user", "", "user id (required)")
		fs.StringVar(&wf.app, "app", "", "application id: mint a Bearer token the user granted this app (default: a client token)")
		fs.StringVar(&wf.scopes, "scopes", strings.Join(bootstrap.OwnerTokenScopes, " "), "space-separated scopes of the Bearer token (with --app)")
	}
	return wf
}

// requireFlags returns an error naming the first empty flag of the
// name, value pairs.
func requireFlags(pairs ...string) error {
	for i := 0; i+1 < len(pairs); i += 2 {
		if pairs[i+1] == "" {
			return fmt.Errorf("--%s is required", pairs[i])
		}
	}
	return nil
}

// parseIDFlag reads a snowflake flag.
func parseIDFlag(flagName, v string) (snowflake.ID, error) {
	id, err := snowflake.Parse(v)
	if err != nil || id == 0 {
		return 0, fmt.Errorf("--%s %q: not a snowflake", flagName, v)
	}
	return id, nil
}

// lookupGuild finds a guild by flag value.
func lookupGuild(ctx context.Context, st store.Store, v string) (store.Guild, error) {
	id, err := parseIDFlag("guild", v)
	if err != nil {
		return store.Guild{}, err
	}
	g, err := st.Guild(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return g, fmt.Errorf("--guild %s: unknown guild", v)
	}
	return g, err
}

// lookupUser finds a user by flag value.
func lookupUser(ctx context.Context, st store.Store, v string) (store.User, error) {
	id, err := parseIDFlag("user", v)
	if err != nil {
		return store.User{}, err
	}
	u, err := st.User(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return u, fmt.Errorf("--user %s: unknown user", v)
	}
	return u, err
}

// ---- wire objects (the admin API's) ----

type cliUser struct {
	ID         snowflake.ID `json:"id"`
	Username   string       `json:"username"`
	GlobalName *string      `json:"global_name"`
	Bot        bool         `json:"bot"`
	Locale     *string      `json:"locale"`
	Adult      bool         `json:"adult"`
}

type cliMember struct {
	GuildID  snowflake.ID   `json:"guild_id"`
	UserID   snowflake.ID   `json:"user_id"`
	Nick     *string        `json:"nick"`
	Roles    []snowflake.ID `json:"roles"`
	JoinedAt time.Time      `json:"joined_at"`
}

type cliChannel struct {
	ID         snowflake.ID      `json:"id"`
	GuildID    snowflake.ID      `json:"guild_id"`
	Type       int               `json:"type"`
	Name       string            `json:"name"`
	ParentID   *snowflake.ID     `json:"parent_id"`
	NSFW       bool              `json:"nsfw"`
	Position   int               `json:"position"`
	Overwrites []guild.Overwrite `json:"permission_overwrites"`
}

func orNull(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// ---- verbs ----

func userCreate(ctx context.Context, env bootstrap.Env, wf *worldFlags) (any, string, error) {
	if err := requireFlags("name", wf.name); err != nil {
		return nil, "", err
	}
	if n := utf8.RuneCountInString(wf.name); n > 32 {
		return nil, "", fmt.Errorf("--name: must be between 1 and 32 characters")
	}
	if n := utf8.RuneCountInString(wf.globalName); n > 32 {
		return nil, "", fmt.Errorf("--global-name: must be 32 characters or fewer")
	}
	if !command.IsLocale(wf.locale) {
		return nil, "", fmt.Errorf("--locale %q: not a supported locale (%s)", wf.locale, strings.Join(command.Locales(), ", "))
	}
	var hash []byte
	if wf.password != "" {
		var err error
		if hash, err = oauth.HashPassword(env.Rand, wf.password); err != nil {
			return nil, "", fmt.Errorf("--password: %w", err)
		}
		if _, err := env.Store.LoginByName(ctx, wf.name); err == nil {
			return nil, "", fmt.Errorf("--name %q: another user has this login name", wf.name)
		} else if !errors.Is(err, store.ErrNotFound) {
			return nil, "", err
		}
	}
	u := store.User{ID: env.IDs.Next(), Username: wf.name, GlobalName: wf.globalName, Locale: wf.locale,
		Adult: wf.adult, CreatedAt: env.Now().UTC()}
	if err := env.Store.CreateUser(ctx, u); err != nil {
		return nil, "", err
	}
	text := fmt.Sprintf("user %s created", u.ID)
	if hash != nil {
		if err := env.Store.SetLogin(ctx, store.Login{UserID: u.ID, Name: wf.name, PasswordHash: hash}); err != nil {
			// Leave nothing half made: the user goes with the failed login.
			_ = env.Store.DeleteUser(ctx, u.ID)
			return nil, "", fmt.Errorf("set login %q: %w", wf.name, err)
		}
		text += fmt.Sprintf(", with the login %q", wf.name)
	}
	out := cliUser{ID: u.ID, Username: u.Username, GlobalName: orNull(u.GlobalName), Locale: orNull(u.Locale), Adult: u.Adult}
	return out, text, nil
}

func roleCreate(ctx context.Context, env bootstrap.Env, wf *worldFlags) (any, string, error) {
	if err := requireFlags("guild", wf.guild, "name", wf.name); err != nil {
		return nil, "", err
	}
	if utf8.RuneCountInString(wf.name) > 100 {
		return nil, "", fmt.Errorf("--name: must be between 1 and 100 characters")
	}
	perms, ok := guild.ParsePermissions(wf.permissions)
	if !ok {
		return nil, "", fmt.Errorf("--permissions %q: not a decimal permission bit set (0 to %d)", wf.permissions, uint64(guild.All))
	}
	if wf.position < 1 {
		return nil, "", fmt.Errorf("--position %d: must be 1 or more (0 is @everyone's)", wf.position)
	}
	g, err := lookupGuild(ctx, env.Store, wf.guild)
	if err != nil {
		return nil, "", err
	}
	r := guild.Role{ID: env.IDs.Next(), GuildID: g.ID, Name: wf.name, Permissions: perms, Position: wf.position}
	if err := env.Store.CreateRole(ctx, r); err != nil {
		return nil, "", err
	}
	return r, fmt.Sprintf("role %s created in guild %s", r.ID, g.ID), nil
}

func memberAdd(ctx context.Context, env bootstrap.Env, wf *worldFlags) (any, string, error) {
	if err := requireFlags("guild", wf.guild, "user", wf.user); err != nil {
		return nil, "", err
	}
	if utf8.RuneCountInString(wf.nick) > 32 {
		return nil, "", fmt.Errorf("--nick: must be 32 characters or fewer")
	}
	g, err := lookupGuild(ctx, env.Store, wf.guild)
	if err != nil {
		return nil, "", err
	}
	u, err := lookupUser(ctx, env.Store, wf.user)
	if err != nil {
		return nil, "", err
	}
	roles := []snowflake.ID{}
	for _, raw := range strings.Split(wf.roles, ",") {
		if raw = strings.TrimSpace(raw); raw == "" {
			continue
		}
		id, err := parseIDFlag("roles", raw)
		if err != nil {
			return nil, "", err
		}
		if _, err := env.Store.Role(ctx, g.ID, id); errors.Is(err, store.ErrNotFound) {
			return nil, "", fmt.Errorf("--roles: role %s is not a role of guild %s", id, g.ID)
		} else if err != nil {
			return nil, "", err
		}
		roles = append(roles, id)
	}
	m := guild.Member{GuildID: g.ID, UserID: u.ID, Nick: wf.nick, Roles: roles, JoinedAt: env.Now().UTC()}
	if old, err := env.Store.Member(ctx, g.ID, u.ID); err == nil {
		m.JoinedAt = old.JoinedAt // already a member: roles and nick are replaced
	} else if !errors.Is(err, store.ErrNotFound) {
		return nil, "", err
	}
	if err := env.Store.PutMember(ctx, m); err != nil {
		return nil, "", err
	}
	m, err = env.Store.Member(ctx, g.ID, u.ID)
	if err != nil {
		return nil, "", err
	}
	if m.Roles == nil {
		m.Roles = []snowflake.ID{}
	}
	out := cliMember{GuildID: m.GuildID, UserID: m.UserID, Nick: orNull(m.Nick), Roles: m.Roles, JoinedAt: m.JoinedAt.UTC()}
	return out, fmt.Sprintf("user %s is a member of guild %s", u.ID, g.ID), nil
}

func channelCreate(ctx context.Context, env bootstrap.Env, wf *worldFlags) (any, string, error) {
	if err := requireFlags("guild", wf.guild, "name", wf.name); err != nil {
		return nil, "", err
	}
	if utf8.RuneCountInString(wf.name) > 100 {
		return nil, "", fmt.Errorf("--name: must be between 1 and 100 characters")
	}
	if !slices.Contains(guild.GuildChannelTypes, wf.channelType) {
		return nil, "", fmt.Errorf("--type %d: must be one of %v", wf.channelType, guild.GuildChannelTypes)
	}
	if wf.position < 0 {
		return nil, "", fmt.Errorf("--position %d: must be 0 or more", wf.position)
	}
	g, err := lookupGuild(ctx, env.Store, wf.guild)
	if err != nil {
		return nil, "", err
	}
	c := guild.Channel{ID: env.IDs.Next(), GuildID: g.ID, Type: wf.channelType, Name: wf.name, NSFW: wf.nsfw,
		Position: wf.position, Overwrites: []guild.Overwrite{}}
	if wf.parent != "" {
		if c.ParentID, err = parseIDFlag("parent", wf.parent); err != nil {
			return nil, "", err
		}
	}
	if err := checkChannelParent(ctx, env.Store, c); err != nil {
		return nil, "", err
	}
	if err := env.Store.CreateChannel(ctx, c); err != nil {
		return nil, "", err
	}
	out := cliChannel{ID: c.ID, GuildID: c.GuildID, Type: c.Type, Name: c.Name, NSFW: c.NSFW, Position: c.Position,
		Overwrites: c.Overwrites}
	if c.ParentID != 0 {
		out.ParentID = &c.ParentID
	}
	return out, fmt.Sprintf("channel %s created in guild %s", c.ID, g.ID), nil
}

// checkChannelParent applies the admin API's rules: a thread's parent is a
// text, announcement, forum or media channel; a category has none; any
// other channel's parent is a category; the parent is in the same guild.
func checkChannelParent(ctx context.Context, st store.Store, c guild.Channel) error {
	thread := guild.IsThread(c.Type)
	switch {
	case thread && c.ParentID == 0:
		return fmt.Errorf("--parent is required for a thread")
	case c.ParentID == 0:
		return nil
	case c.Type == guild.ChannelCategory:
		return fmt.Errorf("--parent: a category cannot have a parent")
	}
	p, err := st.Channel(ctx, c.ParentID)
	if errors.Is(err, store.ErrNotFound) || (err == nil && p.GuildID != c.GuildID) {
		return fmt.Errorf("--parent %s: not a channel of guild %s", c.ParentID, c.GuildID)
	}
	if err != nil {
		return err
	}
	threadParents := []int{guild.ChannelText, guild.ChannelAnnouncement, guild.ChannelForum, guild.ChannelMedia}
	switch {
	case thread && !slices.Contains(threadParents, p.Type):
		return fmt.Errorf("--parent: a thread's parent must be a text, announcement, forum or media channel")
	case !thread && p.Type != guild.ChannelCategory:
		return fmt.Errorf("--parent: a channel's parent must be a category")
	}
	return nil
}

// bearerScopes are the scopes a minted Bearer token may carry (as the
// admin API's).
var bearerScopes = []string{auth.ScopeIdentify, auth.ScopeApplicationsCommands, auth.ScopeCommandsUpdate,
	auth.ScopeCommandsPermissionsUpdate, "guilds", "email"}

func tokenMint(ctx context.Context, env bootstrap.Env, wf *worldFlags) (any, string, error) {
	if err := requireFlags("user", wf.user); err != nil {
		return nil, "", err
	}
	scopesSet := false
	wf.fs.Visit(func(f *flag.Flag) { scopesSet = scopesSet || f.Name == "scopes" })
	if scopesSet && wf.app == "" {
		return nil, "", fmt.Errorf("--scopes needs --app (a client token has no scopes)")
	}
	u, err := lookupUser(ctx, env.Store, wf.user)
	if err != nil {
		return nil, "", err
	}
	if u.Bot {
		return nil, "", fmt.Errorf("--user %s is a bot user: use its application's bot token", u.ID)
	}
	now := env.Now().UTC()
	if wf.app == "" {
		tok, err := auth.NewClientToken(env.Rand)
		if err != nil {
			return nil, "", err
		}
		if err := env.Store.CreateClientToken(ctx, auth.Hash(tok), u.ID, now); err != nil {
			return nil, "", err
		}
		return map[string]string{"token": tok}, "client token of user " + u.ID.String() + ": " + tok, nil
	}
	appID, err := parseIDFlag("app", wf.app)
	if err != nil {
		return nil, "", err
	}
	if _, err := env.Store.Application(ctx, appID); errors.Is(err, store.ErrNotFound) {
		return nil, "", fmt.Errorf("--app %s: unknown application", wf.app)
	} else if err != nil {
		return nil, "", err
	}
	var scopes []string
	for _, sc := range strings.Fields(wf.scopes) {
		if !slices.Contains(bearerScopes, sc) {
			return nil, "", fmt.Errorf("--scopes: %q is not one of %s", sc, strings.Join(bearerScopes, ", "))
		}
		if !slices.Contains(scopes, sc) {
			scopes = append(scopes, sc)
		}
	}
	if len(scopes) == 0 {
		return nil, "", fmt.Errorf("--scopes: at least one scope is needed")
	}
	access, err := auth.NewAccessToken(env.Rand)
	if err != nil {
		return nil, "", err
	}
	if err := env.Store.CreateToken(ctx, store.Token{Hash: auth.Hash(access), Kind: store.TokenBearer,
		ApplicationID: appID, UserID: u.ID, Scopes: scopes, ExpiresAt: now.Add(auth.AccessTokenLifetime), CreatedAt: now}); err != nil {
		return nil, "", err
	}
	out := map[string]any{"access_token": access, "token_type": "Bearer",
		"expires_in": int(auth.AccessTokenLifetime.Seconds()), "scope": strings.Join(scopes, " ")}
	return out, fmt.Sprintf("Bearer token of user %s for application %s (%s): %s", u.ID, appID,
		strings.Join(scopes, " "), access), nil
}
