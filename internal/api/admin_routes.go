package api

// adminRoutes registers the admin API under /admin/v1.
func (s *Server) adminRoutes() {}
