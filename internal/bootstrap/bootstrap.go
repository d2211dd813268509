// Package bootstrap creates the worlds a newcomer needs to try slashd: an
// application with its bot user, bot token, client secret and Ed25519 key
// pair, an owner who owns it, and a guild where it is installed. The
// server runs it on first start; the CLI runs it on demand.
package bootstrap

import (
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// FileName is the credentials file written into the data directory.
const FileName = "bootstrap.json"

// Credentials are what a developer needs to talk to an app; the JSON keys
// are a contract (scripts read bootstrap.json). Only a first start
// without a demo (slashd test --world) leaves the app's keys out.
type Credentials struct {
	BaseURL       string `json:"base_url"`
	ApplicationID string `json:"application_id,omitempty"`
	BotToken      string `json:"bot_token,omitempty"`
	ClientID      string `json:"client_id,omitempty"`
	ClientSecret  string `json:"client_secret,omitempty"`
	PublicKey     string `json:"public_key,omitempty"`
	GuildID       string `json:"guild_id,omitempty"`
	// ChannelID is the demo guild's text channel #general, a place to
	// invoke commands; only the first-run credentials carry one.
	ChannelID        string `json:"channel_id,omitempty"`
	OwnerUserID      string `json:"owner_user_id,omitempty"`
	OwnerBearerToken string `json:"owner_bearer_token,omitempty"`
	// OwnerClientToken is the owner's client token (the bare
	// Authorization a chat client sends), to invoke commands as them;
	// only the first-run credentials carry one.
	OwnerClientToken string `json:"owner_client_token,omitempty"`
	// AdminToken authorizes the admin API (Authorization: Admin …); only
	// the first-run credentials carry one.
	AdminToken string `json:"admin_token,omitempty"`
	// WorldID and WorldName name the test world the credentials' objects
	// belong to: the first start's demo world ("demo"), the node's
	// default world. Absent: no world (world 0), as in a data directory
	// from before the demo was a world.
	WorldID   string `json:"world_id,omitempty"`
	WorldName string `json:"world_name,omitempty"`
}

// Env is what creating things needs.
type Env struct {
	Store store.Store
	IDs   *snowflake.Generator
	Rand  io.Reader
	Now   func() time.Time
}

// AppOptions describe a new application.
type AppOptions struct {
	Name      string
	GuildName string
	BaseURL   string
	// Embedded gives the app an Activity: the EMBEDDED flag and the
	// automatically created "Launch" entry point command.
	Embedded bool
	// WorldID is the test world the app, its owner, its bot and its guild
	// join (0: none).
	WorldID snowflake.ID
}

// OwnerTokenScopes are the scopes of the owner's Bearer token in the
// credentials, so permission edits can be tried without an OAuth2 flow.
var OwnerTokenScopes = []string{auth.ScopeIdentify, auth.ScopeCommandsPermissionsUpdate}

// CreateApp creates an owner, an app owned by them (with bot user and
// credentials) and a guild owned by them with the app installed.
func CreateApp(ctx context.Context, env Env, opt AppOptions) (Credentials, error) {
	now := env.Now().UTC()
	// The owner is an adult, so age-restricted commands can be tried.
	owner := store.User{ID: env.IDs.Next(), Username: "owner", GlobalName: opt.Name + " owner", Locale: "en-US",
		Adult: true, CreatedAt: now, WorldID: opt.WorldID}
	if err := env.Store.CreateUser(ctx, owner); err != nil {
		return Credentials{}, fmt.Errorf("create owner: %w", err)
	}
	pub, priv, err := ed25519.GenerateKey(env.Rand)
	if err != nil {
		return Credentials{}, fmt.Errorf("generate key pair: %w", err)
	}
	secret, err := auth.NewClientSecret(env.Rand)
	if err != nil {
		return Credentials{}, err
	}
	appID := env.IDs.Next()
	app := store.Application{
		ID: appID, Name: opt.Name, OwnerID: owner.ID, IntegrationTypes: []int{command.GuildInstall, command.UserInstall},
		ClientSecretHash: auth.Hash(secret), PublicKey: hex.EncodeToString(pub), PrivateKey: priv, CreatedAt: now,
		WorldID: opt.WorldID,
	}
	if opt.Embedded {
		app.Flags |= command.ApplicationFlagEmbedded
	}
	bot := store.User{ID: appID, Username: opt.Name, Bot: true, CreatedAt: now, WorldID: opt.WorldID}
	if err := env.Store.CreateApplication(ctx, app, bot); err != nil {
		return Credentials{}, fmt.Errorf("create application: %w", err)
	}
	botToken, err := auth.NewBotToken(env.Rand, appID)
	if err != nil {
		return Credentials{}, err
	}
	if err := env.Store.CreateToken(ctx, store.Token{Hash: auth.Hash(botToken), Kind: store.TokenBot,
		ApplicationID: appID, UserID: appID, Scopes: []string{auth.ScopeBot, auth.ScopeApplicationsCommands}, CreatedAt: now}); err != nil {
		return Credentials{}, fmt.Errorf("store bot token: %w", err)
	}
	bearer, err := auth.NewAccessToken(env.Rand)
	if err != nil {
		return Credentials{}, err
	}
	if err := env.Store.CreateToken(ctx, store.Token{Hash: auth.Hash(bearer), Kind: store.TokenBearer,
		ApplicationID: appID, UserID: owner.ID, Scopes: OwnerTokenScopes, CreatedAt: now}); err != nil {
		return Credentials{}, fmt.Errorf("store owner token: %w", err)
	}
	guildName := opt.GuildName
	if guildName == "" {
		guildName = opt.Name + " test guild"
	}
	guildID, err := createGuild(ctx, env, store.Guild{Name: guildName, OwnerID: owner.ID, WorldID: opt.WorldID}, appID)
	if err != nil {
		return Credentials{}, err
	}
	if opt.Embedded {
		if err := createLaunchCommand(ctx, env, app); err != nil {
			return Credentials{}, err
		}
	}
	return Credentials{
		BaseURL: opt.BaseURL, ApplicationID: appID.String(), BotToken: botToken, ClientID: appID.String(),
		ClientSecret: secret, PublicKey: app.PublicKey, GuildID: guildID.String(), OwnerUserID: owner.ID.String(),
		OwnerBearerToken: bearer,
	}, nil
}

// CreateGuild creates a guild owned by owner and, if install is not zero,
// installs that app there with the applications.commands and bot scopes.
func CreateGuild(ctx context.Context, env Env, name string, owner, install snowflake.ID) (snowflake.ID, error) {
	return createGuild(ctx, env, store.Guild{Name: name, OwnerID: owner}, install)
}

// CreateGuildIn is CreateGuild of a guild of the test world world (0:
// none); the owner and the app are the caller's to check are of it.
func CreateGuildIn(ctx context.Context, env Env, world snowflake.ID, name string, owner, install snowflake.ID) (snowflake.ID, error) {
	return createGuild(ctx, env, store.Guild{Name: name, OwnerID: owner, WorldID: world}, install)
}

// createGuild is CreateGuild of g (its name, owner and world).
func createGuild(ctx context.Context, env Env, g store.Guild, install snowflake.ID) (snowflake.ID, error) {
	now := env.Now().UTC()
	g.ID, g.CreatedAt = env.IDs.Next(), now
	if err := env.Store.CreateGuild(ctx, g); err != nil {
		return 0, fmt.Errorf("create guild: %w", err)
	}
	if install != 0 {
		if err := env.Store.Install(ctx, store.Installation{GuildID: g.ID, ApplicationID: install,
			Scopes: []string{auth.ScopeApplicationsCommands, auth.ScopeBot}, CreatedAt: now}); err != nil {
			return 0, fmt.Errorf("install app %d: %w", install, err)
		}
		app, err := env.Store.Application(ctx, install)
		if err != nil {
			return 0, err
		}
		if err := SyncBot(ctx, env, g.ID, app, true, 0); err != nil {
			return 0, fmt.Errorf("add the bot of app %d to guild %d: %w", install, g.ID, err)
		}
	}
	return g.ID, nil
}

// SetApplicationFlags replaces an app's flags. Turning the EMBEDDED flag
// (Activities) on does what the real service does: it creates the global
// PRIMARY_ENTRY_POINT command "Launch" with handler 2, unless the app
// already has an entry point command.
func SetApplicationFlags(ctx context.Context, env Env, app store.Application, flags uint64) (store.Application, error) {
	enabling := flags&command.ApplicationFlagEmbedded != 0 && app.Flags&command.ApplicationFlagEmbedded == 0
	if err := env.Store.SetApplicationFlags(ctx, app.ID, flags); err != nil {
		return app, fmt.Errorf("set flags of app %d: %w", app.ID, err)
	}
	app.Flags = flags
	if !enabling {
		return app, nil
	}
	cmds, err := env.Store.Commands(ctx, command.Scope{ApplicationID: app.ID})
	if err != nil {
		return app, err
	}
	for _, c := range cmds {
		if c.Type == command.PrimaryEntryPoint {
			return app, nil
		}
	}
	return app, createLaunchCommand(ctx, env, app)
}

// createLaunchCommand is what the real service does when Activities are
// enabled: a global PRIMARY_ENTRY_POINT command "Launch" with handler 2.
func createLaunchCommand(ctx context.Context, env Env, app store.Application) error {
	body, _ := form.DecodeJSON([]byte(`{"type":4,"name":"Launch","description":"Launch an activity","handler":2}`))
	scope := command.Scope{ApplicationID: app.ID}
	in, errs := command.Parse(body, command.Target{
		App: command.App{ID: app.ID, Flags: app.Flags, IntegrationTypes: app.IntegrationTypes,
			Discoverable: app.Discoverable},
		Scope: scope, Mode: command.ModeCreate,
	})
	if err := errs.Err(); err != nil {
		return fmt.Errorf("launch command: %w", err)
	}
	day := env.Now().UTC().Unix() / 86400
	_, err := env.Store.WriteCommands(ctx, scope, day, func(cur []command.Command, today int) (command.Plan, error) {
		return command.Upsert(cur, in, today, env.IDs.Next)
	})
	if err != nil {
		return fmt.Errorf("create launch command: %w", err)
	}
	return nil
}

// CreateAdminToken mints a token for the admin API.
func CreateAdminToken(ctx context.Context, env Env) (string, error) {
	tok, err := auth.NewAdminToken(env.Rand)
	if err != nil {
		return "", err
	}
	if err := env.Store.CreateAdminToken(ctx, auth.Hash(tok), env.Now().UTC()); err != nil {
		return "", fmt.Errorf("store admin token: %w", err)
	}
	return tok, nil
}

// ReplaceAdminTokens mints a token for the admin API and revokes every
// other, at once; it returns the token and how many it revoked.
func ReplaceAdminTokens(ctx context.Context, env Env) (string, int, error) {
	tok, err := auth.NewAdminToken(env.Rand)
	if err != nil {
		return "", 0, err
	}
	revoked, err := env.Store.ReplaceAdminTokens(ctx, auth.Hash(tok), env.Now().UTC())
	if err != nil {
		return "", 0, fmt.Errorf("store admin token: %w", err)
	}
	return tok, revoked, nil
}

// DemoChannelName is the name of the demo guild's text channel.
const DemoChannelName = "general"

// Furnish gives the first-run credentials what they lack of a place to
// talk: a text channel #general in their guild (an existing text
// channel of that name is taken as it is) and a client token of their
// owner (only its hash is stored). It fills c.ChannelID and
// c.OwnerClientToken where they are empty and returns the JSON keys it
// filled.
func Furnish(ctx context.Context, env Env, c *Credentials) ([]string, error) {
	var added []string
	if c.ChannelID == "" {
		id, err := demoChannel(ctx, env, c.GuildID)
		if err != nil {
			return nil, err
		}
		c.ChannelID = id.String()
		added = append(added, "channel_id")
	}
	if c.OwnerClientToken == "" {
		owner, err := snowflake.Parse(c.OwnerUserID)
		if err != nil {
			return nil, fmt.Errorf("owner_user_id %q: %w", c.OwnerUserID, err)
		}
		if _, err := env.Store.User(ctx, owner); err != nil {
			return nil, fmt.Errorf("owner %d: %w", owner, err)
		}
		tok, err := auth.NewClientToken(env.Rand)
		if err != nil {
			return nil, err
		}
		if err := env.Store.CreateClientToken(ctx, auth.Hash(tok), owner, env.Now().UTC()); err != nil {
			return nil, fmt.Errorf("store the owner's client token: %w", err)
		}
		c.OwnerClientToken = tok
		added = append(added, "owner_client_token")
	}
	return added, nil
}

// demoChannel returns the text channel #general of the guild guildID,
// creating it when there is none.
func demoChannel(ctx context.Context, env Env, guildID string) (snowflake.ID, error) {
	gid, err := snowflake.Parse(guildID)
	if err != nil {
		return 0, fmt.Errorf("guild_id %q: %w", guildID, err)
	}
	chs, err := env.Store.Channels(ctx, gid)
	if err != nil {
		return 0, fmt.Errorf("channels of guild %d: %w", gid, err)
	}
	for _, ch := range chs {
		if ch.Type == guild.ChannelText && ch.Name == DemoChannelName {
			return ch.ID, nil
		}
	}
	if _, err := env.Store.Guild(ctx, gid); err != nil {
		return 0, fmt.Errorf("guild %d: %w", gid, err)
	}
	ch := guild.Channel{ID: env.IDs.Next(), GuildID: gid, Type: guild.ChannelText, Name: DemoChannelName}
	if err := env.Store.CreateChannel(ctx, ch); err != nil {
		return 0, fmt.Errorf("create #%s in guild %d: %w", DemoChannelName, gid, err)
	}
	return ch.ID, nil
}

// Upgrade brings dir/bootstrap.json, written by a slashd from before
// the demo guild had a channel, up to date: it furnishes the credentials
// (see Furnish) and rewrites the file, every other key kept. It returns
// the keys it added: none when there is no file or it lacks nothing.
func Upgrade(ctx context.Context, env Env, dir string) ([]string, error) {
	path := filepath.Join(dir, FileName)
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var c Credentials
	if err := json.Unmarshal(raw, &c); err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	if c.ChannelID != "" && c.OwnerClientToken != "" {
		return nil, nil
	}
	added, err := Furnish(ctx, env, &c)
	if err != nil {
		return nil, fmt.Errorf("complete %s: %w", path, err)
	}
	b, err := jsonenc.MarshalIndent(c, "", "  ")
	if err != nil {
		return nil, err
	}
	if err := replaceFile(path, append(b, '\n')); err != nil {
		return nil, err
	}
	return added, nil
}

// WriteFile writes credentials to dir/bootstrap.json, readable by the
// owner only (it holds secrets).
func WriteFile(dir string, c Credentials) error {
	b, err := jsonenc.MarshalIndent(c, "", "  ")
	if err != nil {
		return err
	}
	path := filepath.Join(dir, FileName)
	if err := os.WriteFile(path, append(b, '\n'), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	// WriteFile keeps the mode of a file that was there.
	if err := os.Chmod(path, 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}

// SetBaseURL points the base_url of dir/bootstrap.json at baseURL, so
// that the file follows the address the server listens on. It returns
// the base_url it replaced: "" when there is no file or it already
// pointed there. The file is replaced atomically (its secrets exist
// nowhere else), keeping its mode.
func SetBaseURL(dir, baseURL string) (string, error) {
	var old string
	_, err := editFile(dir, func(c *Credentials) bool {
		if c.BaseURL == baseURL {
			return false
		}
		old, c.BaseURL = c.BaseURL, baseURL
		return true
	})
	return old, err
}

// SetAdminToken replaces the admin_token of dir/bootstrap.json, every
// other key kept, as SetBaseURL does its base_url. It reports whether
// there was a file to update: a missing one is not created (the
// secrets it held exist nowhere else).
func SetAdminToken(dir, token string) (bool, error) {
	return editFile(dir, func(c *Credentials) bool {
		c.AdminToken = token
		return true
	})
}

// editFile applies edit to the credentials in dir/bootstrap.json and,
// when edit reports a change, replaces the file. It reports whether the
// file exists.
func editFile(dir string, edit func(*Credentials) bool) (bool, error) {
	path := filepath.Join(dir, FileName)
	raw, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return false, nil
	}
	if err != nil {
		return true, err
	}
	var c Credentials
	if err := json.Unmarshal(raw, &c); err != nil {
		return true, fmt.Errorf("read %s: %w", path, err)
	}
	if !edit(&c) {
		return true, nil
	}
	b, err := jsonenc.MarshalIndent(c, "", "  ")
	if err != nil {
		return true, err
	}
	return true, replaceFile(path, append(b, '\n'))
}

// replaceFile replaces path with data through a temporary file renamed
// over it, so that a crash leaves the old file or the new one, never a
// part. The new file keeps the old one's mode.
func replaceFile(path string, data []byte) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return fmt.Errorf("replace %s: %w", path, err)
	}
	defer os.Remove(tmp.Name()) // after the rename, there is nothing to remove
	if _, err := tmp.Write(data); err != nil {
		tmp.Close()
		return fmt.Errorf("replace %s: %w", path, err)
	}
	if err := tmp.Chmod(fi.Mode().Perm()); err != nil {
		tmp.Close()
		return fmt.Errorf("replace %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("replace %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("replace %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("replace %s: %w", path, err)
	}
	return nil
}

// NewOwner returns a plain user record to own a guild.
func NewOwner(id snowflake.ID, now time.Time) store.User {
	return store.User{ID: id, Username: "owner", Locale: "en-US", CreatedAt: now.UTC()}
}

// SyncBot makes the world match an installation: with bot, the
// app's bot user is a member of the guild with a managed role named after
// the app that carries perms (created, or updated when it exists);
// without, the bot's membership and managed role are removed.
func SyncBot(ctx context.Context, env Env, guildID snowflake.ID, app store.Application, bot bool, perms guild.Permissions) error {
	m, err := env.Store.Member(ctx, guildID, app.ID)
	member := err == nil
	if err != nil && !errors.Is(err, store.ErrNotFound) {
		return err
	}
	var managed *guild.Role
	for _, id := range m.Roles {
		r, err := env.Store.Role(ctx, guildID, id)
		if errors.Is(err, store.ErrNotFound) {
			continue
		}
		if err != nil {
			return err
		}
		if r.Managed {
			managed = &r
			break
		}
	}
	if !bot {
		if managed != nil {
			if err := env.Store.DeleteRole(ctx, guildID, managed.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
		if member {
			if err := env.Store.DeleteMember(ctx, guildID, app.ID); err != nil && !errors.Is(err, store.ErrNotFound) {
				return err
			}
		}
		return nil
	}
	if managed != nil {
		managed.Name, managed.Permissions = app.Name, perms
		if err := env.Store.UpdateRole(ctx, *managed); err != nil {
			return err
		}
	} else {
		managed = &guild.Role{ID: env.IDs.Next(), GuildID: guildID, Name: app.Name, Permissions: perms, Position: 1, Managed: true}
		if err := env.Store.CreateRole(ctx, *managed); err != nil {
			return err
		}
	}
	if !member {
		m = guild.Member{GuildID: guildID, UserID: app.ID, JoinedAt: env.Now().UTC()}
	}
	if slices.Contains(m.Roles, managed.ID) {
		return nil
	}
	m.Roles = append(slices.Clone(m.Roles), managed.ID)
	return env.Store.PutMember(ctx, m)
}
