// Package msgcheck checks the inside of a message body an app (or a
// member) sends, as the real service does before it stores anything:
// embeds, components (the legacy action rows, Components V2 and a
// modal's), polls and allowed_mentions. internal/interaction reads a
// body's top-level keys and their types, then hands the decoded values
// here; every rule broken is recorded at its field's path in the
// request's *apierr.Fields tree (components.0.components.1.custom_id),
// so one 400 50035 Invalid Form Body names them all.
//
// Each rule names its source in docs/compat.md ("Message bodies"). The
// package is pure: no I/O, no HTTP, no SQL.
package msgcheck

import "github.com/slashd/slashd/internal/apierr"

// Body checks a decoded message body (a follow-up, an answer, an edit,
// a channel post). Keys whose top-level type is wrong are skipped: the
// caller has reported them. v2 says whether the components are
// Components V2 (IS_COMPONENTS_V2 in the flags the message will have);
// nil when the body does not decide it (an edit without flags), and then
// the components are left to BodyComponents, which the caller runs once it
// knows the stored message's flags.
func Body(body map[string]any, v2 *bool, errs *apierr.Fields) {
	if l, ok := body["embeds"].([]any); ok {
		Embeds(l, errs.At("embeds"))
	}
	if m, ok := body["allowed_mentions"].(map[string]any); ok {
		AllowedMentions(m, errs.At("allowed_mentions"))
	}
	if m, ok := body["poll"].(map[string]any); ok {
		Poll(m, errs.At("poll"))
	}
	if v2 != nil {
		BodyComponents(body, *v2, errs)
	}
}

// BodyComponents checks a body's components, read as Components V2 when
// v2, and with v2 what may not stand beside them. An edit that leaves
// the flags alone is checked with this once the stored flags are known.
func BodyComponents(body map[string]any, v2 bool, errs *apierr.Fields) {
	if v2 {
		legacyFieldsBesideV2(body, errs)
	}
	if l, ok := body["components"].([]any); ok {
		Components(l, v2, errs.At("components"))
	}
}
