package oauth

import "net/http"

// authorizeRoutes registers the consent page (GET and its form POSTs).
func (s *Server) authorizeRoutes(mux *http.ServeMux, prefix string) {}
