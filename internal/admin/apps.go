package admin

import (
	"slices"
	"strconv"

	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/store"
	"github.com/slashd/slashd/internal/wire"
)

// MinAppName is the shortest application name; the longest is
// MaxUsername, since the bot user takes the app's name.
const MinAppName = 2

// AppRequest is an application to create.
type AppRequest struct {
	Name string
	// Embedded gives the app an Activity (the EMBEDDED flag and the Launch
	// entry point command).
	Embedded bool
}

// AppFields reads a new application {name, embedded?}.
func AppFields(f Form) AppRequest {
	f.Require("name")
	name, _ := f.StrLen("name", MinAppName, MaxUsername)
	embedded, _ := f.Bool("embedded")
	return AppRequest{Name: name, Embedded: embedded}
}

// Installation contexts an app may support (application.mdx,
// "Application Integration Types") and the scopes each one's default
// install settings may carry: a user install only applications.commands
// (developing-a-user-installable-app.mdx, "Configuring Default Install
// Settings"); a guild install that and bot (OpenAPI
// ApplicationOAuth2InstallParams).
var (
	integrationTypeKeys = []int{command.GuildInstall, command.UserInstall}
	installScopes       = map[int][]string{
		command.GuildInstall: {auth.ScopeApplicationsCommands, auth.ScopeBot},
		command.UserInstall:  {auth.ScopeApplicationsCommands},
	}
)

// IntegrationTypesConfig reads integration_types_config, in the real
// application object's shape (OpenAPI ApplicationFormPartial): an object
// of one or two entries keyed "0" (GUILD_INSTALL) and "1" (USER_INSTALL),
// each null or {oauth2_install_params?: null or {scopes, permissions?}}.
// The keys are the installation contexts the app supports, sorted; params
// are the default install settings of those that have some. ok is false
// when the field is absent or null (no change) or invalid (errors
// recorded).
func IntegrationTypesConfig(f Form) (types []int, params map[int]store.InstallParams, ok bool) {
	const key = "integration_types_config"
	d, present := f.Dict(key)
	if !present {
		return nil, nil, false
	}
	at := f.At(key)
	if len(d) < 1 || len(d) > len(integrationTypeKeys) {
		at.Add(form.CodeBadLength, form.MsgBadLength(1, len(integrationTypeKeys)))
		return nil, nil, false
	}
	good := true
	params = map[int]store.InstallParams{}
	for k, v := range d {
		t, err := strconv.Atoi(k)
		if err != nil || !slices.Contains(integrationTypeKeys, t) || strconv.Itoa(t) != k {
			at.At(k).Add(form.CodeChoices, form.MsgChoicesOf(integrationTypeKeys))
			good = false
			continue
		}
		types = append(types, t)
		if v == nil {
			continue
		}
		entry, isObj := SubForm(v, at.At(k))
		if !isObj {
			good = false
			continue
		}
		p, has, valid := installParams(entry, t)
		good = good && valid
		if has {
			params[t] = p
		}
	}
	if !good {
		return nil, nil, false
	}
	slices.Sort(types)
	return types, params, true
}

// installParams reads one entry's oauth2_install_params for integration
// type t: has is false when it is absent or null.
func installParams(entry Form, t int) (p store.InstallParams, has, ok bool) {
	const key = "oauth2_install_params"
	v, present := entry.Value(key)
	if !present {
		return p, false, true
	}
	f, isObj := SubForm(v, entry.At(key))
	if !isObj {
		return p, false, false
	}
	allowed := installScopes[t]
	if f.Require("scopes") {
		if l, isList := f.List("scopes"); isList {
			if len(l) == 0 {
				f.At("scopes").Add(form.CodeMinLength, form.MsgMinLength(1))
			}
			for i, item := range l {
				sc, isStr := item.(string)
				switch {
				case !isStr:
					f.At("scopes", i).Add(form.CodeStringConvert, form.MsgNotString(item))
				case !slices.Contains(allowed, sc):
					f.At("scopes", i).Add(form.CodeChoices, form.MsgChoicesOf(allowed))
				case !slices.Contains(p.Scopes, sc):
					p.Scopes = append(p.Scopes, sc)
				}
			}
		}
	}
	perms, _ := f.Perms("permissions")
	if perms != 0 && !slices.Contains(p.Scopes, auth.ScopeBot) && f.At("scopes").Empty() {
		f.At("permissions").Add(CodeInstallPerms, "Permissions are only granted with the bot scope")
	}
	p.Permissions = perms
	return p, true, f.At().Empty()
}

// IntegrationTypesConfigOf is an app's integration_types_config as the
// application object carries it (the admin API's and /applications/@me's).
func IntegrationTypesConfigOf(app store.Application) map[string]wire.IntegrationTypesConfig {
	params := make(map[int]wire.InstallParams, len(app.InstallParams))
	for t, p := range app.InstallParams {
		params[t] = wire.InstallParams{Scopes: p.Scopes, Permissions: p.Permissions.String()}
	}
	return wire.NewIntegrationTypesConfig(app.IntegrationTypes, params)
}
