package oauth

import "net/http"

// tokenRoutes registers the token, revocation, @me and discovery endpoints.
func (s *Server) tokenRoutes(mux *http.ServeMux, prefix string) {}
