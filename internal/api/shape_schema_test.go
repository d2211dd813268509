package api_test

// A JSON schema in miniature, and the schemas of every body slashd's
// routes answer with, encoded from the real service's OpenAPI description
// (discord/discord-api-spec, specs/openapi.json; the schema names are
// cited) and, for what it does not describe (the OAuth2 token endpoint,
// the client's routes), from the RFCs and slashd's documented shapes.
// Only required fields and the types of the fields listed are checked:
// extra fields are allowed, as the real service's clients allow them.
// Where slashd deliberately follows the real service rather than the
// schema, the schema here says so (docs/compat.md, "Response shapes").

import (
	"encoding/json"
	"fmt"
	"regexp"
	"sort"
	"strings"
)

// shape checks a decoded JSON value (numbers as json.Number) and reports
// each way it breaks the schema, at its path.
type shape interface {
	check(at string, v any, errs *[]string)
}

func fail(errs *[]string, at, format string, args ...any) {
	*errs = append(*errs, fmt.Sprintf("%s: %s", at, fmt.Sprintf(format, args...)))
}

func describeJSON(v any) string {
	b, _ := json.Marshal(v)
	if len(b) > 80 {
		return string(b[:80]) + "…"
	}
	return string(b)
}

// scalar is a JSON scalar kind.
type scalar struct {
	name string
	ok   func(v any) bool
}

func (s scalar) check(at string, v any, errs *[]string) {
	if !s.ok(v) {
		fail(errs, at, "want %s, got %s", s.name, describeJSON(v))
	}
}

var snowflakeText = regexp.MustCompile(`^(0|[1-9][0-9]*)$`)

var (
	tString = scalar{"string", func(v any) bool { _, ok := v.(string); return ok }}
	// tSnowflake is OpenAPI's SnowflakeType: a string of digits.
	tSnowflake = scalar{"snowflake string", func(v any) bool {
		s, ok := v.(string)
		return ok && snowflakeText.MatchString(s)
	}}
	tInteger = scalar{"integer", func(v any) bool {
		n, ok := v.(json.Number)
		return ok && !strings.ContainsAny(n.String(), ".eE")
	}}
	tNumber = scalar{"number", func(v any) bool { _, ok := v.(json.Number); return ok }}
	tBool   = scalar{"boolean", func(v any) bool { _, ok := v.(bool); return ok }}
	// tAny accepts any value, null included.
	tAny = scalar{"anything", func(any) bool { return true }}
)

// nullable is X or null.
type nullable struct{ of shape }

func (n nullable) check(at string, v any, errs *[]string) {
	if v != nil {
		n.of.check(at, v, errs)
	}
}

// arrayOf is a JSON array whose items are all X.
type arrayOf struct{ of shape }

func (a arrayOf) check(at string, v any, errs *[]string) {
	l, ok := v.([]any)
	if !ok {
		fail(errs, at, "want an array, got %s", describeJSON(v))
		return
	}
	for i, item := range l {
		a.of.check(fmt.Sprintf("%s[%d]", at, i), item, errs)
	}
}

// mapOf is a JSON object with any keys, whose values are all X
// (additionalProperties).
type mapOf struct{ of shape }

func (m mapOf) check(at string, v any, errs *[]string) {
	o, ok := v.(map[string]any)
	if !ok {
		fail(errs, at, "want an object, got %s", describeJSON(v))
		return
	}
	for _, k := range sortedKeys(o) {
		m.of.check(at+"."+k, o[k], errs)
	}
}

func sortedKeys(o map[string]any) []string {
	sKeys := make([]string, 0, len(o))
	for k := range o {
		sKeys = append(sKeys, k)
	}
	sort.Strings(sKeys)
	return sKeys
}

// field is one property of an object: required or not, and its shape.
type field struct {
	name     string
	required bool
	shape    shape
}

func req(name string, s shape) field { return field{name, true, s} }
func opt(name string, s shape) field { return field{name, false, s} }

// object has the listed properties: the required ones present, every
// listed one present of its shape.
type object struct{ fields []field }

func obj(fields ...field) object { return object{fields} }

// with is the object with more fields (allOf of two objects).
func (o object) with(fields ...field) object {
	return object{append(append([]field{}, o.fields...), fields...)}
}

func (o object) check(at string, v any, errs *[]string) {
	m, ok := v.(map[string]any)
	if !ok {
		fail(errs, at, "want an object, got %s", describeJSON(v))
		return
	}
	for _, f := range o.fields {
		fv, present := m[f.name]
		switch {
		case present:
			f.shape.check(at+"."+f.name, fv, errs)
		case f.required:
			fail(errs, at, "missing required field %q", f.name)
		}
	}
}

// oneOf accepts a value that matches one of the shapes.
type oneOf []shape

func (o oneOf) check(at string, v any, errs *[]string) {
	var firsts []string
	for _, s := range o {
		var e []string
		s.check(at, v, &e)
		if len(e) == 0 {
			return
		}
		firsts = append(firsts, e[0])
	}
	fail(errs, at, "matches none of %d shapes: %s", len(o), strings.Join(firsts, "; "))
}

// taggedBy picks the shape by an integer discriminator field ("type"),
// as OpenAPI's oneOf of objects whose type is a const; other is for
// values not listed (nil: they are an error).
type taggedBy struct {
	tag   string
	cases map[int64]shape
	other shape
}

func (t taggedBy) check(at string, v any, errs *[]string) {
	m, ok := v.(map[string]any)
	if !ok {
		fail(errs, at, "want an object, got %s", describeJSON(v))
		return
	}
	n, ok := m[t.tag].(json.Number)
	if !ok {
		fail(errs, at, "missing integer discriminator %q", t.tag)
		return
	}
	i, _ := n.Int64()
	s, ok := t.cases[i]
	if !ok {
		s = t.other
	}
	if s == nil {
		fail(errs, at, "%s %d is not one this schema allows", t.tag, i)
		return
	}
	s.check(at, v, errs)
}

// ref is a shape defined later (init), for recursive schemas.
type ref struct{ shape }

func (r *ref) check(at string, v any, errs *[]string) { r.shape.check(at, v, errs) }

// sNoBody marks an answer without a body (204): checked by the caller.
type noBodyShape struct{}

func (noBodyShape) check(at string, v any, errs *[]string) {}

var sNoBody shape = noBodyShape{}

// ---- errors ----

// sFieldError is one leaf of a 50035 error tree. The schema's Error has an
// integer code; the real service's field errors carry string codes
// ("BASE_TYPE_REQUIRED"), and slashd follows the real service.
var sFieldError = obj(req("code", tString), req("message", tString))

// errorTree is ErrorDetails: every key is a field (or an array index)
// whose value is a tree, except _errors, the leaves.
type errorTreeShape struct{}

func (errorTreeShape) check(at string, v any, errs *[]string) {
	m, ok := v.(map[string]any)
	if !ok || len(m) == 0 {
		fail(errs, at, "want a non-empty error tree, got %s", describeJSON(v))
		return
	}
	for _, k := range sortedKeys(m) {
		if k == "_errors" {
			arrayOf{sFieldError}.check(at+"._errors", m[k], errs)
			continue
		}
		errorTreeShape{}.check(at+"."+k, m[k], errs)
	}
}

var (
	// sError is ErrorResponse: Error (code, message) and errors.
	sError = obj(req("code", tInteger), req("message", tString), opt("errors", errorTreeShape{}))
	// sRatelimited is RatelimitedResponse. The schema requires
	// code; the real service sends it only for some limits (the docs'
	// rate-limits.mdx: "code?"), and slashd follows the docs.
	sRatelimited = obj(req("message", tString), req("retry_after", tNumber), req("global", tBool),
		opt("code", tInteger))
	// sOAuthError is an RFC 6749 §5.2 error (the token and revocation
	// endpoints).
	sOAuthError = obj(req("error", tString), opt("error_description", tString))
)

// ---- users and applications ----

var (
	// sPrimaryGuild is UserPrimaryGuildResponse.
	sPrimaryGuild = obj(req("identity_guild_id", nullable{tSnowflake}), req("identity_enabled", nullable{tBool}),
		req("tag", nullable{tString}), req("badge", nullable{tString}))
	// sUser is UserResponse.
	sUser = obj(req("id", tSnowflake), req("username", tString), req("avatar", nullable{tString}),
		req("discriminator", tString), req("public_flags", tInteger), req("flags", tInteger),
		req("global_name", nullable{tString}), req("primary_guild", nullable{sPrimaryGuild}),
		opt("bot", tBool), opt("system", tBool), opt("banner", nullable{tString}),
		opt("accent_color", nullable{tInteger}),
		opt("avatar_decoration_data", nullable{obj(req("asset", tString), req("sku_id", nullable{tSnowflake}))}),
		opt("collectibles", nullable{obj()}))
	// sUserPII is UserPIIResponse.
	sUserPII = sUser.with(req("mfa_enabled", tBool), req("locale", tString), opt("premium_type", tInteger),
		opt("email", nullable{tString}), opt("verified", tBool))

	// sGuildMember is GuildMemberResponse: the gateway's member
	// (GUILD_CREATE, GUILD_MEMBERS_CHUNK).
	sGuildMember = obj(req("avatar", nullable{tString}), req("banner", nullable{tString}),
		req("communication_disabled_until", nullable{tString}), req("flags", tInteger), req("joined_at", tString),
		req("nick", nullable{tString}), req("pending", tBool), req("premium_since", nullable{tString}),
		req("roles", arrayOf{tSnowflake}), req("user", sUser), req("mute", tBool), req("deaf", tBool))

	sInstallParams = obj(req("scopes", arrayOf{tString}), req("permissions", tString))
	// sApplication is ApplicationResponse.
	sApplication = obj(req("id", tSnowflake), req("name", tString), req("icon", nullable{tString}), req("description", tString),
		req("type", nullable{tInteger}), req("verify_key", tString), req("flags", tInteger), req("flags_new", tString),
		opt("bot", sUser), opt("bot_public", tBool), opt("bot_require_code_grant", tBool),
		opt("cover_image", tString), opt("guild_id", tSnowflake), opt("rpc_origins", arrayOf{tString}),
		opt("install_params", sInstallParams), opt("tags", arrayOf{tString}),
		opt("integration_types_config", mapOf{obj(opt("oauth2_install_params", sInstallParams))}),
		opt("max_participants", nullable{tInteger}))
	sTeam = obj(req("id", tSnowflake), req("icon", nullable{tString}), req("name", tString), req("owner_user_id", tSnowflake),
		req("members", arrayOf{obj()}))
	// sPrivateApplication is PrivateApplicationResponse.
	sPrivateApplication = sApplication.with(req("redirect_uris", arrayOf{tString}),
		req("interactions_endpoint_url", nullable{tString}), req("role_connections_verification_url", nullable{tString}),
		req("owner", sUser), req("approximate_guild_count", tInteger), req("approximate_user_install_count", tInteger),
		req("approximate_user_authorization_count", tInteger), req("explicit_content_filter", tInteger),
		req("team", nullable{sTeam}), req("eligible_oauth2_scopes", arrayOf{tString}),
		opt("event_webhooks_url", nullable{tString}), opt("event_webhooks_status", tInteger),
		opt("event_webhooks_types", arrayOf{tString}))
)

// ---- commands and permissions ----

var (
	sLocalizations = nullable{mapOf{tString}}
	sNamed         = []field{req("name", tString), opt("name_localized", tString), opt("name_localizations", sLocalizations)}
	sDescribed     = append(append([]field{}, sNamed...), req("description", tString), opt("description_localized", tString),
		opt("description_localizations", sLocalizations), opt("required", tBool))

	sChoiceOf = func(value shape) shape { return obj(sNamed...).with(req("value", value)) }
	// sOption is the ApplicationCommand*OptionResponse family, by type
	// (defined in init: options nest).
	sOption = &ref{}
	// sCommand is ApplicationCommandResponse.
	sCommand = obj(req("id", tSnowflake), req("application_id", tSnowflake), req("version", tSnowflake),
		req("default_member_permissions", nullable{tString}), req("type", tInteger), req("name", tString),
		req("description", tString), opt("name_localized", tString), opt("name_localizations", sLocalizations),
		opt("description_localized", tString), opt("description_localizations", sLocalizations),
		opt("guild_id", tSnowflake), opt("dm_permission", tBool), opt("contexts", nullable{arrayOf{tInteger}}),
		opt("integration_types", arrayOf{tInteger}), opt("options", arrayOf{sOption}), opt("nsfw", tBool),
		opt("handler", tInteger))
	// sCommandPermissions is CommandPermissionsResponse.
	sCommandPermissions = obj(req("id", tSnowflake), req("application_id", tSnowflake), req("guild_id", tSnowflake),
		req("permissions", arrayOf{obj(req("id", tSnowflake), req("type", tInteger), req("permission", tBool))}))
	// sCommandIndex is slashd's command picker answer (the real client's
	// route is undocumented): docs/compat.md, "Command picker".
	sCommandIndex = obj(req("applications", arrayOf{obj(req("id", tSnowflake), req("name", tString),
		req("description", tString), req("icon", nullable{tString}), req("bot_id", tSnowflake))}),
		req("application_commands", arrayOf{sCommand}), req("version", tSnowflake))
)

func init() {
	{
		base := obj(sDescribed...).with(req("type", tInteger))
		sOption.shape = taggedBy{tag: "type", other: base, cases: map[int64]shape{
			1: base.with(opt("options", arrayOf{sOption})), // SUB_COMMAND
			2: base.with(opt("options", arrayOf{sOption})), // SUB_COMMAND_GROUP
			3: base.with(opt("autocomplete", tBool), opt("choices", arrayOf{sChoiceOf(tString)}),
				opt("min_length", tInteger), opt("max_length", tInteger)),
			4: base.with(opt("autocomplete", tBool), opt("choices", arrayOf{sChoiceOf(tInteger)}),
				opt("min_value", tInteger), opt("max_value", tInteger)),
			7: base.with(opt("channel_types", arrayOf{tInteger})),
			10: base.with(opt("autocomplete", tBool), opt("choices", arrayOf{sChoiceOf(tNumber)}),
				opt("min_value", tNumber), opt("max_value", tNumber)),
		}}
	}
	{
		base := obj(req("type", tInteger), req("id", tInteger))
		selectMenu := base.with(req("custom_id", tString), opt("placeholder", tString), req("min_values", tInteger),
			req("max_values", tInteger), opt("disabled", tBool))
		// UnfurledMediaResponse.
		media := obj(req("id", tSnowflake), req("url", tString), req("proxy_url", tString),
			opt("width", nullable{tInteger}), opt("height", nullable{tInteger}), opt("content_type", nullable{tString}))
		sComponent.shape = taggedBy{tag: "type", cases: map[int64]shape{
			1: base.with(req("components", arrayOf{sComponent})), // ACTION_ROW
			2: base.with(req("style", tInteger), opt("custom_id", tString), opt("label", tString), opt("disabled", tBool),
				opt("emoji", sEmoji), opt("url", nullable{tString}), opt("sku_id", tSnowflake)), // BUTTON
			3: selectMenu.with(req("options", arrayOf{obj(req("label", tString), req("value", tString),
				opt("description", tString), opt("emoji", sEmoji), opt("default", tBool))})), // STRING_SELECT
			5:  selectMenu,                                                                      // USER_SELECT
			6:  selectMenu,                                                                      // ROLE_SELECT
			7:  selectMenu,                                                                      // MENTIONABLE_SELECT
			8:  selectMenu.with(opt("channel_types", arrayOf{tInteger})),                        // CHANNEL_SELECT
			9:  base.with(req("components", arrayOf{sComponent}), req("accessory", sComponent)), // SECTION
			10: base.with(req("content", tString)),                                              // TEXT_DISPLAY
			11: base.with(req("media", media), req("description", nullable{tString}), req("spoiler", tBool)),
			12: base.with(req("items", arrayOf{obj(req("media", media), opt("description", nullable{tString}),
				opt("spoiler", tBool))})), // MEDIA_GALLERY
			13: base.with(req("file", media), req("name", nullable{tString}), req("size", nullable{tInteger}),
				req("spoiler", tBool)), // FILE
			14: base.with(req("spacing", tInteger), req("divider", tBool)), // SEPARATOR
			17: base.with(req("accent_color", nullable{tInteger}), req("components", arrayOf{sComponent}),
				req("spoiler", tBool)), // CONTAINER
		}}
	}
}

// ---- messages ----

var (
	sEmoji = obj(opt("id", nullable{tSnowflake}), req("name", nullable{tString}), opt("animated", tBool))
	// sComponent is the *ComponentResponse family, by type: every one has
	// an integer id (defined in init: components nest).
	sComponent  = &ref{}
	sEmbedMedia = obj(opt("url", tString), opt("proxy_url", tString), opt("width", tInteger), opt("height", tInteger))
	// sEmbed is MessageEmbedResponse.
	sEmbed = obj(req("type", tString), opt("url", tString), opt("title", tString), opt("description", tString),
		opt("color", tInteger), opt("timestamp", tString),
		opt("fields", arrayOf{obj(req("name", tString), req("value", tString), req("inline", tBool))}),
		opt("author", obj(req("name", tString), opt("url", tString), opt("icon_url", tString))),
		opt("provider", obj(req("name", tString), opt("url", tString))),
		opt("image", sEmbedMedia), opt("thumbnail", sEmbedMedia), opt("video", sEmbedMedia),
		opt("footer", obj(req("text", tString), opt("icon_url", tString))))
	// sAttachment is MessageAttachmentResponse.
	sAttachment = obj(req("id", tSnowflake), req("filename", tString), req("size", tInteger), req("url", tString),
		req("proxy_url", tString), opt("content_type", tString), opt("description", tString), opt("ephemeral", tBool))
	// sPoll is PollResponse.
	sPoll = obj(req("question", obj(opt("text", tString))),
		req("answers", arrayOf{obj(req("answer_id", tInteger), req("poll_media", obj(opt("text", tString))))}),
		req("expiry", tString), req("allow_multiselect", tBool), req("layout_type", tInteger),
		req("results", obj(req("answer_counts", arrayOf{obj(req("id", tInteger), req("count", tInteger),
			req("me_voted", tBool))}), req("is_finalized", tBool))))

	sMetadataBase = obj(req("id", tSnowflake), req("type", tInteger), opt("user", sUser),
		req("authorizing_integration_owners", mapOf{tSnowflake}), opt("original_response_message_id", tSnowflake))
	sCommandMetadata = sMetadataBase.with(opt("target_user", sUser), opt("target_message_id", tSnowflake))
	// sInteractionMetadata is the *InteractionMetadataResponse family.
	sInteractionMetadata = taggedBy{tag: "type", cases: map[int64]shape{
		2: sCommandMetadata,
		3: sMetadataBase.with(req("interacted_message_id", tSnowflake)),
		5: sMetadataBase.with(req("triggering_interaction_metadata", taggedBy{tag: "type", cases: map[int64]shape{
			2: sCommandMetadata, 3: sMetadataBase.with(req("interacted_message_id", tSnowflake))}})),
	}}

	// sMessage is MessageResponse.
	sMessage = obj(req("id", tSnowflake), req("type", tInteger), req("content", tString), req("channel_id", tSnowflake),
		req("author", sUser), req("mentions", arrayOf{sUser}), req("mention_roles", arrayOf{tSnowflake}),
		req("attachments", arrayOf{sAttachment}), req("embeds", arrayOf{sEmbed}), req("timestamp", tString),
		req("edited_timestamp", nullable{tString}), req("flags", tInteger), req("components", arrayOf{sComponent}),
		req("pinned", tBool), req("mention_everyone", tBool), req("tts", tBool),
		opt("application_id", tSnowflake), opt("webhook_id", tSnowflake),
		opt("interaction", obj(req("id", tSnowflake), req("type", tInteger), req("name", tString), opt("user", sUser))),
		opt("interaction_metadata", sInteractionMetadata), opt("poll", sPoll), opt("position", tInteger))
)

// ---- interactions ----

var (
	// sCallbackInteraction is InteractionResponse.
	sCallbackInteraction = obj(req("id", tSnowflake), req("type", tInteger),
		opt("activity_instance_id", nullable{tString}), opt("response_message_id", tSnowflake),
		opt("response_message_loading", tBool), opt("response_message_ephemeral", tBool),
		opt("channel_id", tSnowflake), opt("guild_id", tSnowflake))
	sWithMessage = obj(req("type", tInteger), req("message", sMessage))
	// sCallbackResponse is InteractionCallbackResponse. Its resource is
	// one of the schema's three (types 4, 7, 12), or, for the answers the
	// schema leaves out, {type} (a deferred answer's message only in the
	// invoking client's answer), and slashd's choices (8) and modal (9),
	// which the real client receives over its gateway (docs/compat.md,
	// "Interactions: invoking").
	sCallbackResponse = obj(req("interaction", sCallbackInteraction), opt("resource", taggedBy{tag: "type",
		cases: map[int64]shape{
			4:  sWithMessage,
			5:  obj(req("type", tInteger), opt("message", sMessage)),
			6:  obj(req("type", tInteger), opt("message", sMessage)),
			7:  sWithMessage,
			8:  obj(req("type", tInteger), req("choices", arrayOf{sChoiceOf(oneOf{tString, tNumber})})),
			9:  obj(req("type", tInteger), req("modal", obj(req("custom_id", tString), req("title", tString), req("components", arrayOf{obj(req("type", tInteger))})))),
			12: obj(req("type", tInteger), req("activity_instance", obj(req("id", tString)))),
		}}))
)

// ---- gateway, OAuth2 ----

var (
	sGateway    = obj(req("url", tString))
	sGatewayBot = obj(req("url", tString), req("shards", tInteger), req("session_start_limit",
		obj(req("max_concurrency", tInteger), req("remaining", tInteger), req("reset_after", tInteger),
			req("total", tInteger))))
	// sToken is RFC 6749 §5.1 with the real service's scope.
	sToken = obj(req("access_token", tString), req("token_type", tString), req("expires_in", tInteger),
		req("scope", tString), opt("refresh_token", tString), opt("id_token", tString))
	// sAuthorization is OAuth2GetAuthorizationResponse. expires is a
	// string in the schema; slashd's bootstrap owner token never expires
	// and answers null (docs/compat.md, "OAuth2").
	sAuthorization = obj(req("application", sApplication), req("expires", nullable{tString}),
		req("scopes", arrayOf{tString}), opt("user", sUser))
	// sUserinfo is OAuth2GetOpenIDConnectUserInfoResponse.
	sUserinfo = obj(req("sub", tString), opt("email", nullable{tString}), opt("email_verified", tBool),
		opt("preferred_username", tString), opt("nickname", nullable{tString}), opt("picture", tString), opt("locale", tString))
	// sKeys is OAuth2GetKeys.
	sKeys = obj(req("keys", arrayOf{obj(req("kty", tString), req("use", tString), req("kid", tString), req("n", tString),
		req("e", tString), req("alg", tString))}))
	// sDiscovery is OpenID Connect Discovery 1.0 §3's required metadata.
	sDiscovery = obj(req("issuer", tString), req("authorization_endpoint", tString), req("token_endpoint", tString),
		req("jwks_uri", tString), req("response_types_supported", arrayOf{tString}),
		req("subject_types_supported", arrayOf{tString}), req("id_token_signing_alg_values_supported", arrayOf{tString}))
)
