package api_test

// The response shapes of the private channel routes (shape_test.go
// walks them): the schemas from discord-api-spec's openapi.json, and the
// walk's steps.

// Private and guild channel objects.
var (
	// sDMChannel is PrivateChannelResponse.
	sDMChannel = obj(req("id", tSnowflake), req("type", tInteger), req("flags", tInteger),
		req("recipients", arrayOf{sUser}), opt("last_message_id", nullable{tSnowflake}),
		opt("last_pin_timestamp", nullable{tString}))
	// sGroupDMChannel is PrivateGroupChannelResponse.
	sGroupDMChannel = sDMChannel.with(req("name", nullable{tString}), req("icon", nullable{tString}),
		req("owner_id", tSnowflake), opt("managed", tBool), opt("application_id", tSnowflake))
	// sGuildChannel is GuildChannelResponse. slashd answers a thread in
	// this shape too, without ThreadResponse's owner and metadata, which
	// it does not keep (docs/compat.md, "DM channels").
	sGuildChannel = obj(req("id", tSnowflake), req("type", tInteger), req("flags", tInteger),
		req("guild_id", tSnowflake), req("name", tString), req("position", tInteger),
		opt("last_message_id", nullable{tSnowflake}), opt("parent_id", nullable{tSnowflake}),
		opt("rate_limit_per_user", tInteger), opt("topic", nullable{tString}), opt("nsfw", tBool),
		opt("permission_overwrites", arrayOf{obj(req("id", tSnowflake), req("type", tInteger),
			req("allow", tString), req("deny", tString))}))
	// sPrivateChannel is create_dm's oneOf.
	sPrivateChannel = taggedBy{tag: "type", cases: map[int64]shape{1: sDMChannel, 3: sGroupDMChannel}}
	// sChannel is get_channel's oneOf.
	sChannel = taggedBy{tag: "type", cases: map[int64]shape{1: sDMChannel, 3: sGroupDMChannel}, other: sGuildChannel}
)

func init() {
	shapeOperations["POST {api}/users/@me/channels"] = answers{ok: one(200, sPrivateChannel)}
	shapeOperations["GET {api}/users/@me/channels"] = answers{ok: one(200, arrayOf{sPrivateChannel})}
	shapeOperations["GET {api}/channels/{channel_id}"] = answers{ok: one(200, sChannel)}
}

func (w *shapeWalk) privateChannels() {
	bot := w.e.Bot()
	dm := str(w.do("POST", "/users/@me/channels", bot, jsonObj{"recipient_id": w.alice}, 200), "id")
	w.do("POST", "/users/@me/channels", w.aliceTok, jsonObj{"recipient_id": w.bob}, 200)
	w.do("POST", "/users/@me/channels", bot, jsonObj{}, 400)
	w.do("POST", "/users/@me/channels", bot, jsonObj{"recipient_id": "1"}, 400)
	w.do("POST", "/users/@me/channels", bot, jsonObj{"recipient_id": w.app}, 400)
	group := str(adminObj(w.t, w.e, "POST", "/group-dms", jsonObj{"owner_id": w.alice, "recipient_ids": []string{w.bob},
		"name": "plans"}, 201), "id")
	adminObj(w.t, w.e, "POST", "/group-dms", jsonObj{"owner_id": w.bob}, 201) // unnamed
	adminDo(w.t, w.e, "POST", "/group-dms", jsonObj{}, 400)
	adminDo(w.t, w.e, "GET", "/group-dms/"+group, nil, 200)
	adminDo(w.t, w.e, "GET", "/users/"+w.alice+"/channels", nil, 200)
	adminDo(w.t, w.e, "POST", "/users/"+w.alice+"/channels", jsonObj{"recipient_id": w.bob}, 200)

	w.do("POST", "/channels/"+dm+"/messages", bot, jsonObj{"content": "hello"}, 200)
	w.do("POST", "/channels/"+group+"/messages", w.bobTok, jsonObj{"content": "hello all"}, 200)
	w.do("GET", "/channels/"+dm+"/messages", w.aliceTok, nil, 200)
	w.do("GET", "/channels/"+dm+"/messages", w.bobTok, nil, 403)

	w.do("GET", "/users/@me/channels", w.aliceTok, nil, 200)
	w.do("GET", "/users/@me/channels", bot, nil, 200)
	w.do("GET", "/users/@me/channels", "", nil, 401)

	w.do("GET", "/channels/"+dm, bot, nil, 200)
	w.do("GET", "/channels/"+dm, w.aliceTok, nil, 200)
	w.do("GET", "/channels/"+group, w.bobTok, nil, 200)
	w.do("GET", "/channels/"+w.channel, w.aliceTok, nil, 200)
	w.do("GET", "/channels/"+dm, w.bobTok, nil, 403)
	w.do("GET", "/channels/1", bot, nil, 404)
}
