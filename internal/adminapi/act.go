package adminapi

import (
	"context"
	"errors"

	"github.com/slashd/slashd/internal/act"
	"github.com/slashd/slashd/internal/worlds"
)

// act is POST /admin/v1/worlds/{world}/act: a member of the world does
// what a chat client does, and the answer is what they then see
// (docs/worlds.md "act"). The member acts with their client token from
// the world's credentials, through the public API's own routes called in
// process: nothing is minted. A request the public API refuses answers
// its status and error envelope as they are.
func (a *API) act(ctx context.Context, req *Request) (Response, error) {
	action, err := act.Decode(req.Body)
	if err != nil {
		return Response{}, err
	}
	obj, err := worlds.ObjectOf(req.World, a.Now())
	if err != nil {
		return Response{}, err
	}
	answer, err := a.Act.Do(ctx, req.World.ID, obj.View, action)
	var refused *act.Refused
	if errors.As(err, &refused) {
		return Response{Status: refused.Status, Body: refused.Body}, nil
	}
	if err != nil {
		return Response{}, err
	}
	return ok(answer), nil
}
