package main

// World-building verbs: users, roles, members, channels and users'
// tokens, written straight to the store of a data directory (a running
// server on it sees them at once). They take what the admin API
// (/admin/v1) takes, refuse what it refuses (internal/admin's rules) and
// print what it answers for the same object.

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/slashd/slashd/internal/admin"
	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/guild"
	"github.com/slashd/slashd/internal/oauth"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

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

// lookupGuild finds the guild of a --guild flag, already parsed.
func lookupGuild(ctx context.Context, st store.Store, id snowflake.ID) (store.Guild, error) {
	g, err := st.Guild(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return g, fmt.Errorf("--guild %s: unknown guild", id)
	}
	return g, err
}

// lookupUser finds the user of a --user flag, already parsed.
func lookupUser(ctx context.Context, st store.Store, id snowflake.ID) (store.User, error) {
	u, err := st.User(ctx, id)
	if errors.Is(err, store.ErrNotFound) {
		return u, fmt.Errorf("--user %s: unknown user", id)
	}
	return u, err
}

// pathIDs are the verbs' flags that name what the admin API has in its
// path (the guild, the user): required snowflakes.
type pathIDs struct {
	names  []string
	values map[string]*string
}

func newPathIDs(fs *flagSet, usages ...string) *pathIDs {
	p := &pathIDs{values: map[string]*string{}}
	for i := 0; i+1 < len(usages); i += 2 {
		p.names = append(p.names, usages[i])
		p.values[usages[i]] = fs.String(usages[i], "", usages[i+1])
	}
	return p
}

// parse reads every id, in order.
func (p *pathIDs) parse() (map[string]snowflake.ID, error) {
	out := make(map[string]snowflake.ID, len(p.names))
	for _, name := range p.names {
		v := *p.values[name]
		if err := requireFlags(name, v); err != nil {
			return nil, err
		}
		id, err := parseIDFlag(name, v)
		if err != nil {
			return nil, err
		}
		out[name] = id
	}
	return out, nil
}

// ---- verbs ----

func defineUserCreate(fs *flagSet) func() (worldStep, error) {
	req := newRequestFlags(fs)
	req.text("name", "username", "", "username, 1 to 32 characters (required)")
	req.text("global-name", "global_name", "", "display name, 1 to 32 characters")
	req.text("locale", "locale", admin.DefaultLocale, "`LOCALE` (en-US, fr, …)")
	req.boolean("adult", "adult", "the user is 18 or older (may see age-restricted commands)")
	password := fs.String("password", "", "also give the user a login for the OAuth2 consent page, named after --name, with this `PASSWORD` (8 to 128 characters)")
	return func() (worldStep, error) {
		f := req.form()
		u := store.User{Locale: admin.DefaultLocale}
		admin.UserFields(f, &u, true)
		if err := f.Err(); err != nil {
			return nil, req.refused(err)
		}
		// The login is what PUT /admin/v1/users/{id}/login takes.
		withLogin := fs.isSet("password")
		loginFlags := map[string]string{"name": "name", "password": "password"}
		if withLogin {
			lf := admin.NewForm(map[string]any{"name": u.Username, "password": *password})
			admin.LoginFields(lf)
			if err := lf.Err(); err != nil {
				return nil, refusedOr(fs.Name(), err, loginFlags)
			}
		}
		return func(ctx context.Context, env bootstrap.Env) (any, string, error) {
			var hash []byte
			if withLogin {
				if _, err := env.Store.LoginByName(ctx, u.Username); err == nil {
					return nil, "", refusedOr(fs.Name(), admin.ErrLoginTaken(), loginFlags)
				} else if !errors.Is(err, store.ErrNotFound) {
					return nil, "", err
				}
				var err error
				if hash, err = oauth.HashPassword(env.Rand, *password); err != nil {
					return nil, "", fmt.Errorf("--password: %w", err)
				}
			}
			world, err := env.Store.DefaultWorld(ctx)
			if err != nil {
				return nil, "", err
			}
			u.ID, u.CreatedAt, u.WorldID = env.IDs.Next(), env.Now().UTC(), world
			if err := env.Store.CreateUser(ctx, u); err != nil {
				return nil, "", err
			}
			text := fmt.Sprintf("user %s created", u.ID)
			if hash != nil {
				err := env.Store.SetLogin(ctx, store.Login{UserID: u.ID, Name: u.Username, PasswordHash: hash})
				if err != nil {
					// Leave nothing half made: the user goes with the failed login.
					_ = env.Store.DeleteUser(ctx, u.ID)
					if errors.Is(err, store.ErrConflict) {
						return nil, "", refusedOr(fs.Name(), admin.ErrLoginTaken(), loginFlags)
					}
					return nil, "", fmt.Errorf("set login %q: %w", u.Username, err)
				}
				text += fmt.Sprintf(", with the login %q", u.Username)
			}
			return admin.UserOf(u), text, nil
		}, nil
	}
}

func defineRoleCreate(fs *flagSet) func() (worldStep, error) {
	ids := newPathIDs(fs, "guild", "`ID` of the guild (required)")
	req := newRequestFlags(fs)
	req.text("name", "name", "", "role name, 1 to 100 characters (required)")
	req.text("permissions", "permissions", "0", "permission `BITS`, decimal (32 = MANAGE_GUILD, 268435456 = MANAGE_ROLES)")
	req.text("position", "position", "1", "`POSITION` (1 is just above @everyone)")
	return func() (worldStep, error) {
		path, err := ids.parse()
		if err != nil {
			return nil, err
		}
		f := req.form()
		role := guild.Role{GuildID: path["guild"]}
		admin.RoleFields(f, &role, true)
		if err := f.Err(); err != nil {
			return nil, req.refused(err)
		}
		return func(ctx context.Context, env bootstrap.Env) (any, string, error) {
			if _, err := lookupGuild(ctx, env.Store, role.GuildID); err != nil {
				return nil, "", err
			}
			role.ID = env.IDs.Next()
			if err := env.Store.CreateRole(ctx, role); err != nil {
				return nil, "", err
			}
			return role, fmt.Sprintf("role %s created in guild %s", role.ID, role.GuildID), nil
		}, nil
	}
}

func defineMemberAdd(fs *flagSet) func() (worldStep, error) {
	ids := newPathIDs(fs, "guild", "`ID` of the guild (required)", "user", "`ID` of the user (required)")
	req := newRequestFlags(fs)
	req.list("roles", "roles", "comma-separated role `IDS`")
	req.text("nick", "nick", "", "nickname in the guild, up to 32 characters")
	return func() (worldStep, error) {
		path, err := ids.parse()
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, env bootstrap.Env) (any, string, error) {
			g, err := lookupGuild(ctx, env.Store, path["guild"])
			if err != nil {
				return nil, "", err
			}
			u, err := lookupUser(ctx, env.Store, path["user"])
			if err != nil {
				return nil, "", err
			}
			if err := admin.SameWorld("user", u.WorldID, "guild", g.WorldID, "user_id"); err != nil {
				return nil, "", refusedOr(fs.Name(), err, map[string]string{"user_id": "user"})
			}
			m := guild.Member{GuildID: g.ID, UserID: u.ID, Roles: []snowflake.ID{}, JoinedAt: env.Now().UTC()}
			if err := admin.MemberFields(ctx, env.Store, req.form(), &m); err != nil {
				return nil, "", req.refused(err)
			}
			if old, err := env.Store.Member(ctx, g.ID, u.ID); err == nil {
				m.JoinedAt = old.JoinedAt // already a member: roles and nick are replaced
			} else if !errors.Is(err, store.ErrNotFound) {
				return nil, "", err
			}
			if err := env.Store.PutMember(ctx, m); err != nil {
				return nil, "", err
			}
			if m, err = env.Store.Member(ctx, g.ID, u.ID); err != nil {
				return nil, "", err
			}
			return admin.MemberOf(m), fmt.Sprintf("user %s is a member of guild %s", u.ID, g.ID), nil
		}, nil
	}
}

func defineChannelCreate(fs *flagSet) func() (worldStep, error) {
	ids := newPathIDs(fs, "guild", "`ID` of the guild (required)")
	req := newRequestFlags(fs)
	req.text("name", "name", "", "channel name, 1 to 100 characters (required)")
	req.text("type", "type", "0", "channel `TYPE` (0 text, 2 voice, 4 category, 5 announcement, 11 thread, 15 forum, …)")
	req.text("parent", "parent_id", "", "parent `ID`: a thread's channel, or a channel's category")
	req.boolean("nsfw", "nsfw", "age-restricted channel")
	req.text("position", "position", "0", "`POSITION`")
	return func() (worldStep, error) {
		path, err := ids.parse()
		if err != nil {
			return nil, err
		}
		return func(ctx context.Context, env bootstrap.Env) (any, string, error) {
			g, err := lookupGuild(ctx, env.Store, path["guild"])
			if err != nil {
				return nil, "", err
			}
			c := guild.Channel{GuildID: g.ID, Type: guild.ChannelText, Overwrites: []guild.Overwrite{}}
			if err := admin.ChannelFields(ctx, env.Store, req.form(), &c, true); err != nil {
				return nil, "", req.refused(err)
			}
			c.ID = env.IDs.Next()
			if err := env.Store.CreateChannel(ctx, c); err != nil {
				return nil, "", err
			}
			return admin.ChannelOf(c), fmt.Sprintf("channel %s created in guild %s", c.ID, g.ID), nil
		}, nil
	}
}

func defineTokenMint(fs *flagSet) func() (worldStep, error) {
	ids := newPathIDs(fs, "user", "`ID` of the user (required)")
	app := fs.String("app", "", "application `ID`: mint a Bearer token the user granted this app (default: a client token)")
	scopes := fs.String("scopes", strings.Join(bootstrap.OwnerTokenScopes, " "),
		"space-separated `SCOPES` of the Bearer token (with --app): "+strings.Join(admin.BearerScopes, ", "))
	flagOf := map[string]string{"application_id": "app", "scopes": "scopes"}
	return func() (worldStep, error) {
		path, err := ids.parse()
		if err != nil {
			return nil, err
		}
		if fs.isSet("scopes") && *app == "" {
			return nil, fmt.Errorf("--scopes needs --app (a client token has no scopes)")
		}
		// What POST /admin/v1/users/{id}/tokens takes.
		body := map[string]any{"type": admin.TokenClient}
		if *app != "" {
			body = map[string]any{"type": admin.TokenBearer, "application_id": *app, "scopes": *scopes}
		}
		f := admin.NewForm(body)
		t := admin.TokenFields(f)
		if err := f.Err(); err != nil {
			return nil, refusedOr(fs.Name(), err, flagOf)
		}
		return func(ctx context.Context, env bootstrap.Env) (any, string, error) {
			u, err := lookupUser(ctx, env.Store, path["user"])
			if err != nil {
				return nil, "", err
			}
			if u.Bot {
				return nil, "", refusedOr(fs.Name(), admin.ErrBotToken, flagOf)
			}
			if err := admin.CheckTokenApp(ctx, env.Store, u, t); err != nil {
				return nil, "", refusedOr(fs.Name(), err, flagOf)
			}
			return mintToken(ctx, env, u, t)
		}, nil
	}
}

// mintToken makes the token t asks for, storing only its hash.
func mintToken(ctx context.Context, env bootstrap.Env, u store.User, t admin.TokenRequest) (any, string, error) {
	now, user := env.Now().UTC(), u.ID
	if t.Type == admin.TokenClient {
		tok, err := auth.NewClientToken(env.Rand)
		if err != nil {
			return nil, "", err
		}
		if err := env.Store.CreateClientToken(ctx, auth.Hash(tok), user, now); err != nil {
			return nil, "", err
		}
		return map[string]string{"token": tok}, "client token of user " + user.String() + ": " + tok, nil
	}
	access, err := auth.NewAccessToken(env.Rand)
	if err != nil {
		return nil, "", err
	}
	expires, err := admin.BearerExpiry(ctx, env.Store, u, now)
	if err != nil {
		return nil, "", err
	}
	if err := env.Store.CreateToken(ctx, store.Token{Hash: auth.Hash(access), Kind: store.TokenBearer,
		ApplicationID: t.ApplicationID, UserID: user, Scopes: t.Scopes, ExpiresAt: expires,
		CreatedAt: now}); err != nil {
		return nil, "", err
	}
	out := map[string]any{"access_token": access, "token_type": "Bearer",
		"expires_in": int(auth.AccessTokenLifetime.Seconds()), "scope": strings.Join(t.Scopes, " ")}
	return out, fmt.Sprintf("Bearer token of user %s for application %s (%s): %s", user, t.ApplicationID,
		strings.Join(t.Scopes, " "), access), nil
}
