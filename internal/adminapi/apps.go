package adminapi

import (
	"context"
	"crypto/ed25519"
	"errors"
	"time"

	"github.com/slashd/slashd/internal/admin"
	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/webhook"
	"github.com/slashd/slashd/internal/wire"
)

// app is an application on the wire: never its secrets.
type app struct {
	ID               snowflake.ID `json:"id"`
	Name             string       `json:"name"`
	OwnerID          snowflake.ID `json:"owner_id"`
	Flags            uint64       `json:"flags"`
	IntegrationTypes []int        `json:"integration_types"`
	// IntegrationTypesConfig is the real application object's field: the
	// supported installation contexts with their default install settings.
	IntegrationTypesConfig map[string]wire.IntegrationTypesConfig `json:"integration_types_config"`
	// Discoverable: discovery is enabled (no age-restricted commands).
	Discoverable bool   `json:"discoverable"`
	PublicKey    string `json:"public_key"`
	// InteractionsEndpointURL receives the app's interactions ("" when
	// they go over the gateway).
	InteractionsEndpointURL string `json:"interactions_endpoint_url"`
	// GatewaySessions: the app's bot sessions on the gateway, as this
	// node knows them (a slashd field, absent when not counted).
	GatewaySessions *GatewaySessions `json:"gateway_sessions,omitempty"`
}

// appView is appOf with the app's gateway sessions, when counted.
func (a *API) appView(s store.Application) app {
	v := appOf(s)
	if a.GatewaySessions != nil {
		gs := a.GatewaySessions(s.ID)
		v.GatewaySessions = &gs
	}
	return v
}

func appOf(a store.Application) app {
	its := a.IntegrationTypes
	if its == nil {
		its = []int{}
	}
	return app{ID: a.ID, Name: a.Name, OwnerID: a.OwnerID, Flags: a.Flags, IntegrationTypes: its,
		IntegrationTypesConfig: admin.IntegrationTypesConfigOf(a), Discoverable: a.Discoverable, PublicKey: a.PublicKey,
		InteractionsEndpointURL: a.InteractionsEndpointURL}
}

// createApp is POST /admin/v1/applications {name, embedded?}: what
// `slashd app create` makes (an owner, the app with its bot user and
// credentials, and a guild of the owner's where it is installed), plus
// the bot's membership of that guild with its managed role. The answer
// is the credentials object of bootstrap.json, base_url included.
func (a *API) createApp(ctx context.Context, req *Request) (Response, error) {
	fields := admin.AppFields(req.Form)
	world, err := a.worldField(ctx, req.Form)
	if err != nil {
		return Response{}, err
	}
	if err := req.Form.Err(); err != nil {
		return Response{}, err
	}
	scheme := "http"
	if req.HTTP.TLS != nil {
		scheme = "https"
	}
	// bootstrap.CreateApp installs the app with its bot member and role.
	creds, err := bootstrap.CreateApp(ctx, a.env(), bootstrap.AppOptions{
		Name: fields.Name, BaseURL: scheme + "://" + req.HTTP.Host, Embedded: fields.Embedded, WorldID: world,
	})
	return created(creds), err
}

func (a *API) listApps(ctx context.Context, _ *Request) (Response, error) {
	apps, err := a.Store.Applications(ctx)
	return ok(convertAll(apps, a.appView)), err
}

func (a *API) getApp(_ context.Context, req *Request) (Response, error) {
	return ok(a.appView(req.App)), nil
}

// editApp is PATCH /admin/v1/applications/{application_id}
// {flags?, integration_types_config?, discoverable?}: what a developer
// changes in the portal. Turning EMBEDDED (1<<17, Activities) on creates
// the Launch entry point command, as the real service does (spec §2.3).
// integration_types_config sets the installation contexts the app
// supports (commands and installations of a context taken away are
// kept); discoverable true is refused while the app has an age-restricted
// command. Everything is checked before anything is written, and the one
// change the world can refuse (discovery) is written first.
func (a *API) editApp(ctx context.Context, req *Request) (Response, error) {
	f, app := req.Form, req.App
	flags, hasFlags := f.IntIn("flags", 0, 1<<53-1)
	types, params, hasTypes := admin.IntegrationTypesConfig(f)
	discoverable, hasDiscoverable := f.Bool("discoverable")
	if err := f.Err(); err != nil {
		return Response{}, err
	}
	if hasDiscoverable {
		err := a.Store.SetDiscoverable(ctx, app.ID, discoverable)
		if errors.Is(err, store.ErrConflict) {
			return Response{}, apierr.Invalid(admin.CodeDiscoveryNSFW, admin.MsgDiscoveryNSFW, "discoverable")
		}
		if err != nil {
			return Response{}, err
		}
		app.Discoverable = discoverable
	}
	if hasTypes {
		if err := a.Store.SetIntegrationTypes(ctx, app.ID, types, params); err != nil {
			return Response{}, err
		}
		app.IntegrationTypes, app.InstallParams = types, params
	}
	if hasFlags {
		var err error
		if app, err = bootstrap.SetApplicationFlags(ctx, a.env(), app, uint64(flags)); err != nil {
			return Response{}, err
		}
	}
	return ok(a.appView(app)), nil
}

// setInteractionsEndpoint is PUT /admin/v1/applications/{application_id}/interactions-endpoint
// {"interactions_endpoint_url": "https://…"}: as when a developer saves
// the URL, slashd first sends it a signed PING that must be answered
// {"type": 1} and a request with a bad signature that must be refused
// with 401; only then is the URL kept. "" or null clears it (interactions
// then go over the gateway).
func (a *API) setInteractionsEndpoint(ctx context.Context, req *Request) (Response, error) {
	const field = "interactions_endpoint_url"
	url, _ := req.Form.Str(field)
	if err := req.Form.Err(); err != nil {
		return Response{}, err
	}
	app := req.App
	if url != "" {
		start := time.Now()
		err := a.VerifyEndpoint(ctx, url, ed25519.PrivateKey(app.PrivateKey), webhook.Ping{ApplicationID: app.ID.String()})
		attrs := []any{"application_id", app.ID, "endpoint", webhook.EndpointForLog(url),
			"latency_ms", float64(time.Since(start).Microseconds()) / 1000}
		if err != nil {
			var ve *webhook.VerificationError
			if errors.As(err, &ve) {
				attrs = append(attrs, "check", ve.Check, "reason", ve.Reason)
			} else {
				attrs = append(attrs, "reason", err.Error())
			}
			a.Logger.Info("interactions endpoint verification failed", attrs...)
			return Response{}, apierr.Invalid("APPLICATION_INTERACTIONS_ENDPOINT_URL_INVALID", webhook.VerificationFailedMessage, field)
		}
		a.Logger.Info("interactions endpoint verified", attrs...)
	}
	app.InteractionsEndpointURL = url
	return ok(a.appView(app)), a.Store.SetInteractionsEndpoint(ctx, app.ID, url)
}
