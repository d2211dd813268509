package api

import (
	"net/http"

	"github.com/slashd/slashd/internal/admin"
	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/form"
)

// Errors of the admin API. Unknown ids in the path are 404s with the real
// service's codes; conflicts with the world's rules are 400s with code 0.
var (
	adminErrUnknownUser        = apierr.New(http.StatusNotFound, apierr.CodeUnknownUser, "Unknown User")
	adminErrUnknownRole        = apierr.New(http.StatusNotFound, 10011, "Unknown Role")
	adminErrUnknownChannel     = apierr.New(http.StatusNotFound, 10003, "Unknown Channel")
	adminErrUnknownMember      = apierr.New(http.StatusNotFound, 10007, "Unknown Member")
	adminErrUnknownIntegration = apierr.New(http.StatusNotFound, 10005, "Unknown Integration")

	adminErrConflict = apierr.New(http.StatusBadRequest, apierr.CodeGeneral,
		"The request conflicts with the current state of the world")
	adminErrDeleteEveryone = apierr.New(http.StatusBadRequest, apierr.CodeGeneral,
		"The @everyone role cannot be deleted")
	adminErrDeleteManaged = apierr.New(http.StatusBadRequest, apierr.CodeGeneral,
		"A managed role cannot be deleted: uninstall its application instead")
	adminErrRemoveOwner = apierr.New(http.StatusBadRequest, apierr.CodeGeneral,
		"The guild owner cannot be removed: transfer the guild first")
	adminErrDeleteOwner = apierr.New(http.StatusBadRequest, apierr.CodeGeneral,
		"A user who owns a guild or an application cannot be deleted: transfer or delete those first")
	adminErrDeleteBot = apierr.New(http.StatusBadRequest, apierr.CodeGeneral,
		"A bot user belongs to its application and cannot be deleted")
)

// adminBody reads the request body as one JSON object. With allowEmpty, a
// request without a body is an empty object.
func (s *Server) adminBody(w http.ResponseWriter, r *http.Request, allowEmpty bool) (admin.Form, error) {
	if allowEmpty && r.ContentLength == 0 {
		return admin.NewForm(map[string]any{}), nil
	}
	v, err := s.readBody(w, r)
	if err != nil {
		return admin.Form{}, err
	}
	// A body that is not an object, null included, is one
	// MODEL_TYPE_CONVERT at the root (for null, form.AsObject would use
	// the wording of a list item).
	m, ok := v.(map[string]any)
	if !ok {
		return admin.Form{}, apierr.Invalid(form.CodeModelConvert, form.MsgModelConvert)
	}
	return admin.NewForm(m), nil
}
