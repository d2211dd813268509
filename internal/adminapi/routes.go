package adminapi

// route is one admin endpoint: path is relative to Prefix; load the
// things of the path the handler works on, looked up in order before the
// body is read; body whether the request carries a JSON object.
type route struct {
	method, path string
	load         []lookup
	body         bodyKind
	h            handler
}

// bodyKind says whether a route reads a body.
type bodyKind int

const (
	noBody       bodyKind = iota
	withBody              // a JSON object
	optionalBody          // a JSON object, or nothing (an empty object)
	specBody              // a JSON or YAML object (a world spec)
)

// on lists a route's lookups.
func on(l ...lookup) []lookup { return l }

// routes is the admin API: docs/admin-api.md's table mirrors it.
func (a *API) routes() []route {
	const (
		user    = "/users/{user_id}"
		userApp = user + "/installations/{application_id}"
		app     = "/applications/{application_id}"
		guild   = "/guilds/{guild_id}"
		role    = guild + "/roles/{role_id}"
		member  = guild + "/members/{user_id}"
		channel = guild + "/channels/{channel_id}"
		groupDM = "/group-dms/{channel_id}"
		world   = "/worlds/{world}"
	)
	return append([]route{
		{"POST", "/users", nil, withBody, a.createUser},
		{"GET", "/users", nil, noBody, a.listUsers},
		{"GET", user, on(theUser), noBody, a.getUser},
		{"PATCH", user, on(theUser), withBody, a.editUser},
		{"DELETE", user, on(theUser), noBody, a.deleteUser},
		{"POST", user + "/tokens", on(theUser), withBody, a.mintToken},
		{"PUT", user + "/login", on(theUser), withBody, a.putLogin},
		{"PUT", userApp, on(theUser, theApp), optionalBody, a.userInstall},
		{"GET", user + "/installations", on(theUser), noBody, a.listUserInstallations},
		{"GET", userApp, on(theUser, theApp, theUserInstallation), noBody, a.getUserInstallation},
		{"DELETE", userApp, on(theUser, theApp, theUserInstallation), noBody, a.userUninstall},
		{"GET", user + "/channels", on(theUser), noBody, a.listUserChannels},
		{"POST", user + "/channels", on(theUser), withBody, a.openDM},

		{"POST", "/group-dms", nil, withBody, a.createGroupDM},
		{"GET", groupDM, on(theGroupDM), noBody, a.getGroupDM},
		{"DELETE", groupDM, on(theGroupDM), noBody, a.deleteGroupDM},

		{"POST", "/applications", nil, withBody, a.createApp},
		{"GET", "/applications", nil, noBody, a.listApps},
		{"GET", app, on(theApp), noBody, a.getApp},
		{"PATCH", app, on(theApp), optionalBody, a.editApp},
		{"PUT", app + "/interactions-endpoint", on(theApp), optionalBody, a.setInteractionsEndpoint},
		{"GET", app + "/oauth", on(theApp), noBody, a.getOAuth},
		{"GET", app + "/commands", on(theApp), noBody, a.appCommands},
		{"PUT", app + "/oauth", on(theApp), optionalBody, a.putOAuth},

		{"POST", "/guilds", nil, withBody, a.createGuild},
		{"GET", "/guilds", nil, noBody, a.listGuilds},
		{"GET", guild, on(theGuild), noBody, a.getGuild},
		{"PATCH", guild, on(theGuild), withBody, a.editGuild},
		{"DELETE", guild, on(theGuild), noBody, a.deleteGuild},

		{"POST", guild + "/roles", on(theGuild), withBody, a.createRole},
		{"GET", guild + "/roles", on(theGuild), noBody, a.listRoles},
		{"GET", role, on(theGuild, theRole), noBody, a.getRole},
		{"PATCH", role, on(theGuild, theRole), withBody, a.editRole},
		{"DELETE", role, on(theGuild, theRole), noBody, a.deleteRole},

		// PUT names a user (who may not be a member yet), the others a member.
		{"PUT", member, on(theGuild, theUser), optionalBody, a.putMember},
		{"GET", guild + "/members", on(theGuild), noBody, a.listMembers},
		{"GET", member, on(theGuild, theMember), noBody, a.getMember},
		{"DELETE", member, on(theGuild, theMember), noBody, a.deleteMember},

		{"POST", guild + "/channels", on(theGuild), withBody, a.createChannel},
		{"GET", guild + "/channels", on(theGuild), noBody, a.listChannels},
		{"GET", channel, on(theGuild, theChannel), noBody, a.getChannel},
		{"PATCH", channel, on(theGuild, theChannel), withBody, a.editChannel},
		{"DELETE", channel, on(theGuild, theChannel), noBody, a.deleteChannel},

		{"PUT", guild + "/installations/{application_id}", on(theGuild, theApp), withBody, a.install},
		{"GET", guild + "/installations", on(theGuild), noBody, a.listInstallations},
		{"DELETE", guild + "/installations/{application_id}", on(theGuild, theApp), noBody, a.uninstall},

		// Why a member may or may not use a command in a channel: the
		// ids are checked (query included) before anything is looked up.
		{"GET", guild + "/commands/{command_id}/access", nil, noBody, a.explainAccess},
		// The same in a DM or group DM.
		{"GET", "/private-channels/{channel_id}/commands/{command_id}/access", nil, noBody, a.explainPrivateAccess},

		// Test worlds (docs/worlds.md): {world} is an id or a name.
		{"POST", "/worlds", nil, specBody, a.createWorld},
		{"GET", "/worlds", nil, noBody, a.listWorlds},
		{"GET", world, on(theWorld), noBody, a.getWorld},
		{"DELETE", world, on(theWorld), noBody, a.deleteWorld},
		{"POST", world + "/reset", on(theWorld), noBody, a.resetWorld},
		{"POST", world + "/clock", on(theWorld), withBody, a.advanceClock},
		{"POST", world + "/act", on(theWorld), withBody, a.act},
		{"GET", world + "/events", on(theWorld), noBody, a.worldEvents},
		{"GET", world + "/sessions", on(theWorld), noBody, a.worldSessions},
		{"GET", world + "/export", on(theWorld), noBody, a.exportWorld},
	}, a.faultRoutes(world)...)
}
