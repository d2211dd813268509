package msgcheck

import "github.com/slashd/slashd/internal/apierr"

// Components checks a message's components (a list the caller has capped
// at 5, or 40 top-level ones with IS_COMPONENTS_V2): the legacy action
// rows, or with v2 the Components V2 tree.
func Components(list []any, v2 bool, at *apierr.Fields) {}

// ModalComponents checks a MODAL answer's data.components (a list the
// caller has capped at 1–5 objects).
func ModalComponents(list []any, at *apierr.Fields) {}

// legacyFieldsBesideV2 refuses what a Components V2 message may not carry
// beside its components (content, embeds, poll, stickers).
func legacyFieldsBesideV2(body map[string]any, errs *apierr.Fields) {}
