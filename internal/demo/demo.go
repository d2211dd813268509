// Package demo makes the first start's demo (an app, its owner, a guild
// with #general where the app is installed) as the test world "demo",
// the node's default world: a world like any other, listed, reset,
// journaled and clocked as any (docs/worlds.md, "The demo world"). Its
// credentials are bootstrap.json's (internal/bootstrap).
package demo

import (
	"context"
	"fmt"

	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/world"
	"github.com/slashd/slashd/internal/worlds"
)

// WorldName is the name of the first start's demo world.
const WorldName = "demo"

// spec is the first start's demo as a test world spec
// (docs/worlds.md): what bootstrap.CreateApp and bootstrap.Furnish made of it before it was a
// world, object for object. The owner "owner" (an adult, so that
// age-restricted commands can be tried) owns the app "demo" and the
// guild "demo guild", where the app is installed with its bot and which
// has a text channel #general; the owner granted the app a Bearer token
// with bootstrap.OwnerTokenScopes and, like every user of a world, has a
// client token.
const spec = `{
  "name": "demo",
  "users": {
    "owner": {"global_name": "demo owner", "adult": true,
      "grants": {"demo": ["identify", "applications.commands.permissions.update"]}}
  },
  "apps": {"demo": {"owner": "owner"}},
  "guilds": {
    "demo": {"name": "demo guild", "owner": "owner",
      "channels": {"general": {}},
      "install": {"demo": {"scopes": ["applications.commands", "bot"]}}}
  }
}`

// Spec is the demo world's spec, decoded as the admin API
// decodes a request's body.
func Spec() any {
	body, err := form.DecodeJSON([]byte(spec))
	if err != nil {
		panic("bootstrap: the demo world's spec is not JSON: " + err.Error())
	}
	return body
}

// Create makes the first start's demo as the test world "demo"
// (Spec), through the path POST /admin/v1/worlds takes, marked
// as the node's default world, and returns its credentials as
// bootstrap.json holds them (without the admin token, which is no
// world's). A reset of the world keeps every one of them.
func Create(ctx context.Context, env bootstrap.Env, baseURL string) (bootstrap.Credentials, error) {
	wenv := worlds.Env{Store: env.Store, IDs: env.IDs.Next, Rand: env.Rand, Now: env.Now}
	w, err := worlds.CreateDefault(ctx, wenv, Spec())
	if err != nil {
		return bootstrap.Credentials{}, fmt.Errorf("create the demo world: %w", err)
	}
	return Credentials(w, baseURL)
}

// Credentials are the credentials of the demo world w, as
// bootstrap.json holds them.
func Credentials(w store.TestWorld, baseURL string) (bootstrap.Credentials, error) {
	spec, st, err := worlds.Load(w)
	if err != nil {
		return bootstrap.Credentials{}, err
	}
	v := world.ViewOf(spec, st)
	app, owner, g := v.Apps["demo"], v.Users["owner"], v.Guilds["demo"]
	bearer := v.BearerTokens["owner:demo"]
	c := bootstrap.Credentials{
		BaseURL: baseURL, ApplicationID: app.ID.String(), BotToken: app.BotToken, ClientID: app.ID.String(),
		ClientSecret: app.ClientSecret, PublicKey: app.PublicKey, GuildID: g.ID.String(),
		ChannelID: g.Channels[bootstrap.DemoChannelName].String(), OwnerUserID: owner.ID.String(),
		OwnerBearerToken: bearer.AccessToken, OwnerClientToken: owner.ClientToken,
		WorldID: w.ID.String(), WorldName: w.Name,
	}
	if app.ID == 0 || owner.ID == 0 || g.ID == 0 || c.BotToken == "" || c.OwnerBearerToken == "" || c.OwnerClientToken == "" {
		return bootstrap.Credentials{}, fmt.Errorf("world %q is not the demo world: it lacks the demo's app, owner or guild", w.Name)
	}
	return c, nil
}
