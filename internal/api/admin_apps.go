package api

import (
	"crypto/ed25519"
	"errors"
	"net/http"
	"time"

	"github.com/slashd/slashd/internal/admin"
	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/bootstrap"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/webhook"
	"github.com/slashd/slashd/internal/wire"
)

// adminApp is an application on the wire: never its secrets.
type adminApp struct {
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
}

func adminAppOf(a store.Application) adminApp {
	its := a.IntegrationTypes
	if its == nil {
		its = []int{}
	}
	return adminApp{ID: a.ID, Name: a.Name, OwnerID: a.OwnerID, Flags: a.Flags, IntegrationTypes: its,
		IntegrationTypesConfig: integrationTypesConfig(a), Discoverable: a.Discoverable, PublicKey: a.PublicKey,
		InteractionsEndpointURL: a.InteractionsEndpointURL}
}

// adminCreateApp is POST /admin/v1/applications {name, embedded?}: what
// `slashd app create` makes (an owner, the app with its bot user and
// credentials, and a guild of the owner's where it is installed), plus
// the bot's membership of that guild with its managed role. The answer
// is the credentials object of bootstrap.json, base_url included.
func (s *Server) adminCreateApp(w http.ResponseWriter, r *http.Request) error {
	f, err := s.adminBody(w, r, false)
	if err != nil {
		return err
	}
	req := admin.AppFields(f)
	if err := f.Err(); err != nil {
		return err
	}
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	env := bootstrap.Env{Store: s.store, IDs: s.ids, Rand: s.rand, Now: s.now}
	creds, err := bootstrap.CreateApp(r.Context(), env, bootstrap.AppOptions{
		Name: req.Name, BaseURL: scheme + "://" + r.Host, Embedded: req.Embedded,
	})
	if err != nil {
		return err
	}
	// bootstrap.CreateApp installs the app with its bot member and role.
	writeJSON(w, http.StatusCreated, creds)
	return nil
}

func (s *Server) adminListApps(w http.ResponseWriter, r *http.Request) error {
	apps, err := s.store.Applications(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, convertAll(apps, adminAppOf))
	return nil
}

// adminPathApp reads the application named by the application_id path
// parameter.
func (s *Server) adminPathApp(r *http.Request) (store.Application, error) {
	id, err := pathID(r, "application_id")
	if err != nil {
		return store.Application{}, err
	}
	a, err := s.store.Application(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return a, errUnknownApp
	}
	return a, err
}

func (s *Server) adminGetApp(w http.ResponseWriter, r *http.Request) error {
	a, err := s.adminPathApp(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, adminAppOf(a))
	return nil
}

// adminEditApp is PATCH /admin/v1/applications/{application_id}
// {flags?, integration_types_config?, discoverable?}: what a developer
// changes in the portal. Turning EMBEDDED (1<<17, Activities) on creates
// the Launch entry point command, as the real service does (spec §2.3).
// integration_types_config sets the installation contexts the app
// supports (commands and installations of a context taken away are
// kept); discoverable true is refused while the app has an age-restricted
// command. Everything is checked before anything is written, and the one
// change the world can refuse (discovery) is written first.
func (s *Server) adminEditApp(w http.ResponseWriter, r *http.Request) error {
	app, err := s.adminPathApp(r)
	if err != nil {
		return err
	}
	f, err := s.adminBody(w, r, true)
	if err != nil {
		return err
	}
	flags, hasFlags := f.IntIn("flags", 0, 1<<53-1)
	types, params, hasTypes := admin.IntegrationTypesConfig(f)
	discoverable, hasDiscoverable := f.Bool("discoverable")
	if err := f.Err(); err != nil {
		return err
	}
	ctx := r.Context()
	if hasDiscoverable {
		err := s.store.SetDiscoverable(ctx, app.ID, discoverable)
		if errors.Is(err, store.ErrConflict) {
			return apierr.Invalid(admin.CodeDiscoveryNSFW, admin.MsgDiscoveryNSFW, "discoverable")
		}
		if err != nil {
			return notFoundAs(err, errUnknownApp)
		}
		app.Discoverable = discoverable
	}
	if hasTypes {
		if err := s.store.SetIntegrationTypes(ctx, app.ID, types, params); err != nil {
			return notFoundAs(err, errUnknownApp)
		}
		app.IntegrationTypes, app.InstallParams = types, params
	}
	if hasFlags {
		env := bootstrap.Env{Store: s.store, IDs: s.ids, Rand: s.rand, Now: s.now}
		if app, err = bootstrap.SetApplicationFlags(ctx, env, app, uint64(flags)); err != nil {
			return notFoundAs(err, errUnknownApp)
		}
	}
	writeJSON(w, http.StatusOK, adminAppOf(app))
	return nil
}

// adminSetInteractionsEndpoint is PUT /admin/v1/applications/{application_id}/interactions-endpoint
// {"interactions_endpoint_url": "https://…"}: as when a developer saves
// the URL, slashd first sends it a signed PING that must be answered
// {"type": 1} and a request with a bad signature that must be refused
// with 401; only then is the URL kept. "" or null clears it (interactions
// then go over the gateway).
func (s *Server) adminSetInteractionsEndpoint(w http.ResponseWriter, r *http.Request) error {
	app, err := s.adminPathApp(r)
	if err != nil {
		return err
	}
	f, err := s.adminBody(w, r, true)
	if err != nil {
		return err
	}
	const field = "interactions_endpoint_url"
	url, _ := f.Str(field)
	if err := f.Err(); err != nil {
		return err
	}
	if url != "" {
		ping := webhook.Ping{ApplicationID: app.ID.String()}
		start := time.Now()
		err := s.webhooks.VerifyEndpointPing(r.Context(), url, ed25519.PrivateKey(app.PrivateKey), ping)
		attrs := []any{"application_id", app.ID, "endpoint", endpointForLog(url), "latency_ms", float64(time.Since(start).Microseconds()) / 1000}
		if err != nil {
			var ve *webhook.VerificationError
			if errors.As(err, &ve) {
				attrs = append(attrs, "check", ve.Check, "reason", ve.Reason)
			} else {
				attrs = append(attrs, "reason", err.Error())
			}
			s.log.Info("interactions endpoint verification failed", attrs...)
			return apierr.Invalid("APPLICATION_INTERACTIONS_ENDPOINT_URL_INVALID", webhook.VerificationFailedMessage, field)
		}
		s.log.Info("interactions endpoint verified", attrs...)
	}
	if err := s.store.SetInteractionsEndpoint(r.Context(), app.ID, url); err != nil {
		return notFoundAs(err, errUnknownApp)
	}
	app.InteractionsEndpointURL = url
	writeJSON(w, http.StatusOK, adminAppOf(app))
	return nil
}
