package api

import (
	"errors"
	"net/http"

	"github.com/slashd/slashd/internal/admin"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/oauth"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// fcRedirectURI is the field error code of a redirect URI refused.
const fcRedirectURI = "REDIRECT_URI_INVALID"

// adminLogin is a login on the wire: never the password or its hash.
type adminLogin struct {
	UserID snowflake.ID `json:"user_id"`
	Name   string       `json:"name"`
}

// adminPutLogin is PUT /admin/v1/users/{user_id}/login {name, password}:
// the user's login for the consent page, the password hashed with
// argon2id (oauth.HashPassword). 201 when the user had no login, 200 when
// it is replaced.
func (s *Server) adminPutLogin(w http.ResponseWriter, r *http.Request) error {
	u, err := s.adminPathUser(r)
	if err != nil {
		return err
	}
	f, err := s.adminBody(w, r, false)
	if err != nil {
		return err
	}
	name, password := admin.LoginFields(f)
	if err := f.Err(); err != nil {
		return err
	}
	if u.Bot {
		return admin.ErrBotLogin
	}
	_, err = s.store.LoginOfUser(r.Context(), u.ID)
	created := errors.Is(err, store.ErrNotFound)
	if err != nil && !created {
		return err
	}
	hash, err := oauth.HashPassword(s.rand, password)
	if err != nil {
		return err
	}
	err = s.store.SetLogin(r.Context(), store.Login{UserID: u.ID, Name: name, PasswordHash: hash})
	switch {
	case errors.Is(err, store.ErrConflict):
		return admin.ErrLoginTaken()
	case errors.Is(err, store.ErrNotFound):
		return adminErrUnknownUser
	case err != nil:
		return err
	}
	status := http.StatusOK
	if created {
		status = http.StatusCreated
	}
	writeJSON(w, status, adminLogin{UserID: u.ID, Name: name})
	return nil
}

// adminOAuthSettings are an app's OAuth2 settings on the wire.
type adminOAuthSettings struct {
	ApplicationID snowflake.ID `json:"application_id"`
	RedirectURIs  []string     `json:"redirect_uris"`
	PublicClient  bool         `json:"public_client"`
}

// adminGetOAuth is GET /admin/v1/applications/{application_id}/oauth.
func (s *Server) adminGetOAuth(w http.ResponseWriter, r *http.Request) error {
	app, err := s.adminPathApp(r)
	if err != nil {
		return err
	}
	o, err := s.store.OAuthSettings(r.Context(), app.ID)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, adminOAuthSettings(o))
	return nil
}

// adminPutOAuth is PUT /admin/v1/applications/{application_id}/oauth
// {redirect_uris?, public_client?}: replaces the app's OAuth2 settings
// (absent fields, or no body, take the defaults: no URIs, confidential). Each URI
// must pass oauth.ValidateRedirectURI; repeats are dropped.
func (s *Server) adminPutOAuth(w http.ResponseWriter, r *http.Request) error {
	app, err := s.adminPathApp(r)
	if err != nil {
		return err
	}
	f, err := s.adminBody(w, r, true)
	if err != nil {
		return err
	}
	o := store.OAuthSettings{ApplicationID: app.ID, RedirectURIs: []string{}}
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
				f.At("redirect_uris", i).Add(fcRedirectURI, "Invalid redirect URI: "+err.Error())
				continue
			}
			dup := false
			for _, seen := range o.RedirectURIs {
				dup = dup || seen == uri
			}
			if !dup {
				o.RedirectURIs = append(o.RedirectURIs, uri)
			}
		}
	}
	o.PublicClient, _ = f.Bool("public_client")
	if err := f.Err(); err != nil {
		return err
	}
	if err := s.store.SetOAuthSettings(r.Context(), o); err != nil {
		return notFoundAs(err, errUnknownApp)
	}
	writeJSON(w, http.StatusOK, adminOAuthSettings(o))
	return nil
}
