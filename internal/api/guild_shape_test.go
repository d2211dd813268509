package api_test

// The response shapes of the guild routes (shape_test.go walks them):
// the schemas from discord-api-spec's openapi.json, and the walk's
// steps.

import "context"

var (
	// sRole is GuildRoleResponse.
	sRole = obj(req("id", tSnowflake), req("name", tString), req("permissions", tString), req("position", tInteger),
		req("color", tInteger), req("colors", obj(req("primary_color", tInteger),
			req("secondary_color", nullable{tInteger}), req("tertiary_color", nullable{tInteger}))),
		req("hoist", tBool), req("managed", tBool), req("mentionable", tBool), req("icon", nullable{tString}),
		req("unicode_emoji", nullable{tString}), req("flags", tInteger), opt("tags", obj()))
	// sGuild is GuildWithCountsResponse (GuildResponse with the optional
	// counts).
	sGuild = obj(req("id", tSnowflake), req("name", tString), req("icon", nullable{tString}),
		req("description", nullable{tString}), req("home_header", nullable{tString}), req("splash", nullable{tString}),
		req("discovery_splash", nullable{tString}), req("features", arrayOf{tString}), req("banner", nullable{tString}),
		req("owner_id", tSnowflake), req("application_id", nullable{tSnowflake}), req("region", tString),
		req("afk_channel_id", nullable{tSnowflake}), req("afk_timeout", tInteger),
		req("system_channel_id", nullable{tSnowflake}), req("system_channel_flags", tInteger),
		req("widget_enabled", tBool), req("widget_channel_id", nullable{tSnowflake}),
		req("verification_level", tInteger), req("roles", arrayOf{sRole}),
		req("default_message_notifications", tInteger), req("mfa_level", tInteger),
		req("explicit_content_filter", tInteger), req("max_presences", nullable{tInteger}),
		req("max_members", tInteger), req("max_stage_video_channel_users", tInteger),
		req("max_video_channel_users", tInteger), req("vanity_url_code", nullable{tString}),
		req("premium_tier", tInteger), req("premium_subscription_count", tInteger), req("preferred_locale", tString),
		req("rules_channel_id", nullable{tSnowflake}), req("safety_alerts_channel_id", nullable{tSnowflake}),
		req("public_updates_channel_id", nullable{tSnowflake}), req("premium_progress_bar_enabled", tBool),
		req("nsfw", tBool), req("nsfw_level", tInteger), req("emojis", arrayOf{obj()}),
		req("stickers", arrayOf{obj()}), req("incidents_data", nullable{obj()}),
		opt("approximate_member_count", nullable{tInteger}), opt("approximate_presence_count", nullable{tInteger}))
)

func init() {
	const g = "GET {api}/guilds/{guild_id}"
	shapeOperations[g] = answers{ok: one(200, sGuild)}
	shapeOperations[g+"/members"] = answers{ok: one(200, arrayOf{sGuildMember})}
	shapeOperations[g+"/members/search"] = answers{ok: one(200, arrayOf{sGuildMember})}
	shapeOperations[g+"/members/{user_id}"] = answers{ok: one(200, sGuildMember)}
	shapeOperations[g+"/roles"] = answers{ok: one(200, arrayOf{sRole})}
	shapeOperations[g+"/roles/{role_id}"] = answers{ok: one(200, sRole)}
	// list_guild_channels' oneOf: slashd lists no threads, so every item
	// is a guild channel.
	shapeOperations[g+"/channels"] = answers{ok: one(200, arrayOf{sGuildChannel})}
	const memberRole = "{api}/guilds/{guild_id}/members/{user_id}/roles/{role_id}"
	shapeOperations["PUT "+memberRole] = answers{ok: one(204, sNoBody)}
	shapeOperations["DELETE "+memberRole] = answers{ok: one(204, sNoBody)}
}

func (w *shapeWalk) guilds() {
	bot := w.e.Bot()
	g := "/guilds/" + w.guild
	stranger := w.user("stranger")
	strangerTok := w.client(stranger)

	w.do("GET", g, bot, nil, 200)
	w.do("GET", g+"?with_counts=true", bot, nil, 200)
	w.do("GET", g, w.aliceTok, nil, 200)
	w.do("GET", g, strangerTok, nil, 404)
	w.do("GET", "/guilds/1", bot, nil, 404)
	w.do("GET", "/guilds/x", bot, nil, 400)

	w.do("GET", g+"/members/"+w.alice, bot, nil, 200)
	w.do("GET", g+"/members/"+w.alice, w.bobTok, nil, 200)
	w.do("GET", g+"/members/"+stranger, bot, nil, 404)
	w.do("GET", g+"/members/1", bot, nil, 404)
	w.do("GET", g+"/members/x", bot, nil, 400)

	// The member list needs the GUILD_MEMBERS intent enabled.
	w.do("GET", g+"/members", bot, nil, 403)
	app, err := w.e.API.Store().Application(context.Background(), mustID(w.t, w.app))
	if err != nil {
		w.t.Fatal(err)
	}
	adminDo(w.t, w.e, "PATCH", "/applications/"+w.app, jsonObj{"flags": app.Flags | 1<<14}, 200)
	w.do("GET", g+"/members?limit=1000", bot, nil, 200)
	w.do("GET", g+"/members?limit=1001", bot, nil, 400)
	w.do("GET", g+"/members", w.aliceTok, nil, 403)

	w.do("GET", g+"/members/search?query=al&limit=10", bot, nil, 200)
	w.do("GET", g+"/members/search", bot, nil, 400)

	w.do("GET", g+"/roles", bot, nil, 200)
	w.do("GET", g+"/roles", strangerTok, nil, 403)
	w.do("GET", g+"/roles/"+w.guild, bot, nil, 200) // @everyone
	w.do("GET", g+"/roles/1", bot, nil, 404)

	w.do("GET", g+"/channels", bot, nil, 200)
	w.do("GET", g+"/channels", "", nil, 401)

	// Member roles: the bot may manage roles, its role above "painters".
	botRole := memberRoles(w.t, w.e, w.guild, w.app)[0]
	adminDo(w.t, w.e, "PATCH", g+"/roles/"+botRole, jsonObj{"permissions": "268435456", "position": 5}, 200)
	painters := str(adminObj(w.t, w.e, "POST", g+"/roles", jsonObj{"name": "painters", "permissions": "0", "position": 1}, 201), "id")
	w.do("PUT", g+"/members/"+w.alice+"/roles/"+painters, bot, nil, 204)
	w.do("PUT", g+"/members/"+w.alice+"/roles/1", bot, nil, 404)
	w.do("PUT", g+"/members/"+w.alice+"/roles/"+painters, w.bobTok, nil, 403)
	w.do("DELETE", g+"/members/"+w.alice+"/roles/"+painters, bot, nil, 204)
	w.do("DELETE", g+"/members/"+stranger+"/roles/"+painters, bot, nil, 404)
}
