package adminapi

import (
	"context"
	"slices"

	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/oauth"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// codeRedirectURI is the field error code of a redirect URI refused.
const codeRedirectURI = "REDIRECT_URI_INVALID"

// oauthSettings are an app's OAuth2 settings on the wire.
type oauthSettings struct {
	ApplicationID snowflake.ID `json:"application_id"`
	RedirectURIs  []string     `json:"redirect_uris"`
	PublicClient  bool         `json:"public_client"`
}

// getOAuth is GET /admin/v1/applications/{application_id}/oauth.
func (a *API) getOAuth(ctx context.Context, req *Request) (Response, error) {
	o, err := a.Store.OAuthSettings(ctx, req.App.ID)
	return ok(oauthSettings(o)), err
}

// putOAuth is PUT /admin/v1/applications/{application_id}/oauth
// {redirect_uris?, public_client?}: replaces the app's OAuth2 settings
// (absent fields, or no body, take the defaults: no URIs, confidential).
// Each URI must pass oauth.ValidateRedirectURI; repeats are dropped.
func (a *API) putOAuth(ctx context.Context, req *Request) (Response, error) {
	f := req.Form
	o := store.OAuthSettings{ApplicationID: req.App.ID, RedirectURIs: []string{}}
	if list, ok := f.List("redirect_uris"); ok {
		if len(list) > oauth.MaxRedirectURIs {
			f.At("redirect_uris").Add(form.CodeMaxLength, form.MsgMaxLength(oauth.MaxRedirectURIs))
		}
		for i, v := range list {
			uri, isString := v.(string)
			if !isString {
				f.At("redirect_uris", i).Add(form.CodeStringConvert, form.MsgNotString(v))
				continue
			}
			if err := oauth.ValidateRedirectURI(uri); err != nil {
				f.At("redirect_uris", i).Add(codeRedirectURI, "Invalid redirect URI: "+err.Error())
				continue
			}
			if !slices.Contains(o.RedirectURIs, uri) {
				o.RedirectURIs = append(o.RedirectURIs, uri)
			}
		}
	}
	o.PublicClient, _ = f.Bool("public_client")
	if err := f.Err(); err != nil {
		return Response{}, err
	}
	return ok(oauthSettings(o)), a.Store.SetOAuthSettings(ctx, o)
}
