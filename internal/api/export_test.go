package api

import "github.com/slashd/slashd/internal/snowflake"

// Waiting counts the requests of this server waiting for interaction
// id's answer (its invocation, follow-ups sent before the answer), for
// tests that must know one is waiting before they answer.
func (s *Server) Waiting(id snowflake.ID) int {
	s.answers.mu.Lock()
	defer s.answers.mu.Unlock()
	return len(s.answers.waiting[id])
}

// GuildCreateRenders counts the GUILD_CREATEs this server rendered, so
// that a test can tell a body served from the render cache from one
// rendered anew.
func (s *Server) GuildCreateRenders() uint64 { return s.guildCreateRenders.Load() }
