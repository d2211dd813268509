package api

import (
	"net/http"
	"slices"
	"strings"

	"github.com/slashd/slashd/internal/buildinfo"
)

// apiPrefixes are the API roots served: v10 (the spec's), v9 (discordgo's
// default) and the unversioned root, all with identical behaviour.
var apiPrefixes = []string{"/api/v10", "/api/v9", "/api"}

// routeKind says how a route is authenticated and rate limited.
type routeKind int

const (
	publicRoute routeKind = iota // no Authorization needed
	readRoute                    // authenticated, read bucket
	writeRoute                   // authenticated, write bucket
	clientRoute                  // a user's client token (bare Authorization), read bucket
	chatRoute                    // a user's client token or a bot token: what users and bots both do in channels
)

// routes registers every endpoint. This list is the API:
// docs/api-coverage.md's table mirrors it.
func (s *Server) routes() {
	const (
		app   = "/applications/{application_id}"
		guild = app + "/guilds/{guild_id}"
	)
	for _, p := range apiPrefixes {
		s.handle(p, "GET", app+"/commands", readRoute, s.listGlobalCommands)
		s.handle(p, "POST", app+"/commands", writeRoute, s.createGlobalCommand)
		s.handle(p, "PUT", app+"/commands", writeRoute, s.overwriteGlobalCommands)
		s.handle(p, "GET", app+"/commands/{command_id}", readRoute, s.getGlobalCommand)
		s.handle(p, "PATCH", app+"/commands/{command_id}", writeRoute, s.editGlobalCommand)
		s.handle(p, "DELETE", app+"/commands/{command_id}", writeRoute, s.deleteGlobalCommand)

		s.handle(p, "GET", guild+"/commands", readRoute, s.listGuildCommands)
		s.handle(p, "POST", guild+"/commands", writeRoute, s.createGuildCommand)
		s.handle(p, "PUT", guild+"/commands", writeRoute, s.overwriteGuildCommands)
		s.handle(p, "GET", guild+"/commands/{command_id}", readRoute, s.getGuildCommand)
		s.handle(p, "PATCH", guild+"/commands/{command_id}", writeRoute, s.editGuildCommand)
		s.handle(p, "DELETE", guild+"/commands/{command_id}", writeRoute, s.deleteGuildCommand)

		s.handle(p, "GET", guild+"/commands/permissions", readRoute, s.listGuildPermissions)
		s.handle(p, "PUT", guild+"/commands/permissions", writeRoute, s.batchEditPermissions)
		s.handle(p, "GET", guild+"/commands/{command_id}/permissions", readRoute, s.getCommandPermissions)
		s.handle(p, "PUT", guild+"/commands/{command_id}/permissions", writeRoute, s.editCommandPermissions)

		// disgo (v0.19) fetches one command through a singular "command"
		// segment; serving it too keeps unmodified disgo bots working.
		s.handle(p, "GET", app+"/command/{command_id}", readRoute, s.getGlobalCommand)
		s.handle(p, "GET", guild+"/command/{command_id}", readRoute, s.getGuildCommand)

		// The command picker, as a chat client asks for it.
		s.handle(p, "GET", "/channels/{channel_id}/application-command-index", clientRoute, s.commandIndex)

		// Interactions: a user invokes (client token); the app answers
		// through the token in the path, no Authorization needed.
		s.handle(p, "POST", "/interactions", clientRoute, s.invoke)
		s.handle(p, "POST", "/interactions/{interaction_id}/{interaction_token}/callback", publicRoute, s.interactionCallback)
		hook := "/webhooks/{application_id}/{interaction_token}"
		s.handle(p, "POST", hook, publicRoute, s.createFollowup)
		s.handle(p, "GET", hook+"/messages/{message_id}", publicRoute, s.getWebhookMessage)
		s.handle(p, "PATCH", hook+"/messages/{message_id}", publicRoute, s.editWebhookMessage)
		s.handle(p, "DELETE", hook+"/messages/{message_id}", publicRoute, s.deleteWebhookMessage)
		s.handle(p, "GET", "/channels/{channel_id}/messages", chatRoute, s.channelMessages)
		// One message, as a bot (discord.py's fetch_message, edit,
		// delete) or a user's client reads, edits and deletes it.
		s.handle(p, "GET", "/channels/{channel_id}/messages/{message_id}", chatRoute, s.getChannelMessage)
		s.handle(p, "PATCH", "/channels/{channel_id}/messages/{message_id}", chatRoute, s.editChannelMessage)
		s.handle(p, "DELETE", "/channels/{channel_id}/messages/{message_id}", chatRoute, s.deleteChannelMessage)

		// Gateway discovery: where the websocket is.
		s.handle(p, "GET", "/gateway", publicRoute, s.getGateway)
		s.handle(p, "GET", "/gateway/bot", readRoute, s.getGatewayBot)
		s.handle(p, "POST", "/channels/{channel_id}/messages", chatRoute, s.postChannelMessage)
		s.handle(p, "GET", "/channels/{channel_id}", chatRoute, s.getChannel)

		// DMs: a bot or a user opens one; a user lists theirs.
		s.handle(p, "POST", "/users/@me/channels", chatRoute, s.createDM)
		s.handle(p, "GET", "/users/@me/channels", chatRoute, s.listPrivateChannels)

		// Identity: what a bot (or a Bearer token with identify) reads
		// about itself at start.
		s.handle(p, "GET", "/users/@me", readRoute, s.getCurrentUser)
		// Any user's public object (discord.js client.users.fetch).
		s.handle(p, "GET", "/users/{user_id}", chatRoute, s.getUser)
		s.handle(p, "GET", "/applications/@me", readRoute, s.getCurrentApplication)

		// Guilds as a bot reads them (a person too, with their client
		// token, where the real service lets them): guilds.go; and the
		// member roles a bot hands out: member_roles.go.
		g := "/guilds/{guild_id}"
		s.handle(p, "GET", g, chatRoute, s.getGuild)
		s.handle(p, "GET", g+"/members", chatRoute, s.listGuildMembers)
		s.handle(p, "GET", g+"/members/search", chatRoute, s.searchGuildMembers)
		s.handle(p, "GET", g+"/members/{user_id}", chatRoute, s.getGuildMember)
		s.handle(p, "PUT", g+"/members/{user_id}/roles/{role_id}", chatRoute, s.addGuildMemberRole)
		s.handle(p, "DELETE", g+"/members/{user_id}/roles/{role_id}", chatRoute, s.removeGuildMemberRole)
		s.handle(p, "GET", g+"/roles", chatRoute, s.getGuildRoles)
		s.handle(p, "GET", g+"/roles/{role_id}", chatRoute, s.getGuildRole)
		s.handle(p, "GET", g+"/channels", chatRoute, s.getGuildChannels)
		s.handle(p, "GET", "/oauth2/applications/@me", readRoute, s.getCurrentApplication)
	}
	// OAuth2: the token endpoint, revocation, @me, the keys and the
	// consent page under each prefix, and the discovery document.
	s.oauth.Routes(routeRecorder{s}, apiPrefixes)
	s.adminRoutes()
	// The websocket gateway itself (discordgo adds a trailing slash).
	s.register("GET /gateway", s.guardGateway(s.gateway))
	s.register("GET /gateway/{$}", s.guardGateway(s.gateway))
	s.register("GET /healthz", http.HandlerFunc(s.healthz))
	// Uploaded files, where the CDN serves them (files.go); GET answers
	// HEAD too.
	s.register("GET /attachments/{channel_id}/{attachment_id}/{filename}", http.HandlerFunc(s.serveFile))
	if s.cfg.ServeMetrics {
		s.register("GET /metrics", s.metrics.registry.Handler())
	}
	s.register("/", http.HandlerFunc(s.notFound))
}

// register adds a route to the mux and to the list Routes returns.
func (s *Server) register(pattern string, h http.Handler) {
	s.mux.Handle(pattern, h)
	s.registered = append(s.registered, pattern)
}

// routeRecorder lets another package (the OAuth2 server) register its
// routes through register.
type routeRecorder struct{ s *Server }

func (r routeRecorder) Handle(pattern string, h http.Handler) { r.s.register(pattern, h) }

// Routes lists every registered mux pattern ("GET /api/v10/users/@me",
// "/"), in registration order, so that a test can prove it covers them
// all.
func (s *Server) Routes() []string { return slices.Clone(s.registered) }

// handle registers one route under a prefix, wrapped in the auth and rate
// limit layers its kind needs and in the one error renderer.
func (s *Server) handle(prefix, method, path string, kind routeKind, h handlerFunc) {
	template := method + " " + strings.TrimPrefix(path, "")
	s.register(method+" "+prefix+path, s.wrap(template, kind, h))
}

// healthz answers 200 once the server runs (the store is opened and
// migrated before the listener starts), with the build's version.
func (s *Server) healthz(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, http.StatusOK, struct {
		Status string `json:"status"`
		buildinfo.Info
	}{"ok", s.cfg.Build})
}

// notFound answers unknown routes with the real service's JSON bodies: 405
// when the path exists for another method, 404 otherwise.
func (s *Server) notFound(w http.ResponseWriter, r *http.Request) {
	var allowed []string
	for _, m := range []string{"GET", "POST", "PUT", "PATCH", "DELETE"} {
		if m == r.Method {
			continue
		}
		probe := r.Clone(r.Context())
		probe.Method = m
		if _, pattern := s.mux.Handler(probe); pattern != "" && pattern != "/" {
			allowed = append(allowed, m)
		}
	}
	if len(allowed) > 0 {
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		s.writeError(w, r, errMethod)
		return
	}
	s.writeError(w, r, errNotFound)
}
