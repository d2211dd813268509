package api

import (
	"errors"
	"net/http"
	"strings"

	"github.com/slashd/slashd/internal/admin"
	"github.com/slashd/slashd/internal/auth"
	"github.com/slashd/slashd/internal/store"
)

func (s *Server) adminCreateUser(w http.ResponseWriter, r *http.Request) error {
	f, err := s.adminBody(w, r, false)
	if err != nil {
		return err
	}
	u := store.User{Locale: admin.DefaultLocale, CreatedAt: s.now().UTC()}
	admin.UserFields(f, &u, true)
	if err := f.Err(); err != nil {
		return err
	}
	u.ID = s.nextID()
	if err := s.store.CreateUser(r.Context(), u); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, admin.UserOf(u))
	return nil
}

func (s *Server) adminListUsers(w http.ResponseWriter, r *http.Request) error {
	users, err := s.store.Users(r.Context())
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, convertAll(users, admin.UserOf))
	return nil
}

// adminPathUser reads the user named by the user_id path parameter.
func (s *Server) adminPathUser(r *http.Request) (store.User, error) {
	id, err := pathID(r, "user_id")
	if err != nil {
		return store.User{}, err
	}
	u, err := s.store.User(r.Context(), id)
	if errors.Is(err, store.ErrNotFound) {
		return u, adminErrUnknownUser
	}
	return u, err
}

func (s *Server) adminGetUser(w http.ResponseWriter, r *http.Request) error {
	u, err := s.adminPathUser(r)
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, admin.UserOf(u))
	return nil
}

func (s *Server) adminEditUser(w http.ResponseWriter, r *http.Request) error {
	u, err := s.adminPathUser(r)
	if err != nil {
		return err
	}
	f, err := s.adminBody(w, r, false)
	if err != nil {
		return err
	}
	admin.UserFields(f, &u, false)
	if err := f.Err(); err != nil {
		return err
	}
	if err := s.store.UpdateUser(r.Context(), u); err != nil {
		return notFoundAs(err, adminErrUnknownUser)
	}
	writeJSON(w, http.StatusOK, admin.UserOf(u))
	return nil
}

func (s *Server) adminDeleteUser(w http.ResponseWriter, r *http.Request) error {
	u, err := s.adminPathUser(r)
	if err != nil {
		return err
	}
	err = s.store.DeleteUser(r.Context(), u.ID)
	switch {
	case errors.Is(err, store.ErrNotFound):
		return adminErrUnknownUser
	case errors.Is(err, store.ErrConflict) && u.Bot:
		return adminErrDeleteBot
	case errors.Is(err, store.ErrConflict):
		return adminErrDeleteOwner
	case err != nil:
		return err
	}
	writeNoContent(w)
	return nil
}

// adminMintToken is POST /admin/v1/users/{user_id}/tokens: a client token
// ({"type":"client"}), which a chat client sends bare as Authorization, or
// a Bearer token the user granted an app ({"type":"bearer",
// "application_id", "scopes"}), as the OAuth2 flow would make. Only
// hashes are stored.
func (s *Server) adminMintToken(w http.ResponseWriter, r *http.Request) error {
	u, err := s.adminPathUser(r)
	if err != nil {
		return err
	}
	f, err := s.adminBody(w, r, false)
	if err != nil {
		return err
	}
	t := admin.TokenFields(f)
	if err := f.Err(); err != nil {
		return err
	}
	if u.Bot {
		return admin.ErrBotToken
	}
	now := s.now().UTC()
	if t.Type == admin.TokenClient {
		tok, err := auth.NewClientToken(s.rand)
		if err != nil {
			return err
		}
		if err := s.store.CreateClientToken(r.Context(), auth.Hash(tok), u.ID, now); err != nil {
			return notFoundAs(err, adminErrUnknownUser)
		}
		writeJSON(w, http.StatusCreated, map[string]string{"token": tok})
		return nil
	}
	if err := admin.CheckTokenApp(r.Context(), s.store, t); err != nil {
		return err
	}
	access, err := auth.NewAccessToken(s.rand)
	if err != nil {
		return err
	}
	if err := s.store.CreateToken(r.Context(), store.Token{
		Hash: auth.Hash(access), Kind: store.TokenBearer, ApplicationID: t.ApplicationID, UserID: u.ID,
		Scopes: t.Scopes, ExpiresAt: now.Add(auth.AccessTokenLifetime), CreatedAt: now,
	}); err != nil {
		return err
	}
	writeJSON(w, http.StatusCreated, map[string]any{
		"access_token": access,
		"token_type":   "Bearer",
		"expires_in":   int(auth.AccessTokenLifetime.Seconds()),
		"scope":        strings.Join(t.Scopes, " "),
	})
	return nil
}
