package api

import (
	"context"
	"errors"
	"fmt"

	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

// Test worlds are isolated from each other (docs/design.md, "Test worlds:
// isolation"): a principal — an app through its bot or Bearer token, a
// user through a client token — reaches only the objects of its own world
// (world 0, no world, reaches only world 0). An object of another world
// answers exactly as an unknown id does, never 403, so nothing tells that
// it exists.
//
// The check sits where handlers share their lookups: loadMemberView
// (every guild and guild-channel route, the picker, invocations), and
// readGuildCreateView for the gateway's GUILD_CREATE, compare the
// viewer's user row with the guild's snapshot, both of which they read
// anyway; privateView, openDM, getUser, resolveApp and resolveGuild
// compare rows they already hold. A link between two worlds (a member, an
// installation, a DM) cannot be made (the admin API refuses it, and so
// does OAuth2), so membership and participation checks stay exact.

// errOtherWorld: the guild is of another world than the viewer. It wraps
// errNotMember, so a caller that only knows about memberships treats it
// as one; those that answer a route map it to the unknown-id error.
var errOtherWorld = fmt.Errorf("guild of another world: %w", errNotMember)

// principalWorld is the world of the request's principal: its app's for
// a bot or Bearer token (a Bearer token's user is of the same world), else
// its user's. Both reads are the cache's hottest.
func (s *Server) principalWorld(ctx context.Context) (snowflake.ID, error) {
	return s.tokenWorld(ctx, principalFrom(ctx).Token)
}

// tokenWorld is the world a credential acts in (see principalWorld),
// read once per app or user (principalWorlds, worldtime.go).
func (s *Server) tokenWorld(ctx context.Context, tok store.Token) (snowflake.ID, error) {
	if world, known := s.principalWorlds.get(tok); known {
		return world, nil
	}
	world, err := s.readTokenWorld(ctx, tok)
	if err != nil {
		return 0, err
	}
	s.principalWorlds.put(tok, world)
	return world, nil
}

func (s *Server) readTokenWorld(ctx context.Context, tok store.Token) (snowflake.ID, error) {
	if tok.ApplicationID != 0 {
		app, err := s.store.Application(ctx, tok.ApplicationID)
		if err != nil {
			return 0, fmt.Errorf("world of app %d: %w", tok.ApplicationID, err)
		}
		return app.WorldID, nil
	}
	u, err := s.store.User(ctx, tok.UserID)
	if err != nil {
		return 0, fmt.Errorf("world of user %d: %w", tok.UserID, err)
	}
	return u.WorldID, nil
}

// notRecipient is the answer to a user who does not take part in a
// private channel: Missing Access in their own world, Unknown Channel for
// a channel of another (a private channel's world is its participants').
// Read only on this refusal path.
func (s *Server) notRecipient(ctx context.Context, user snowflake.ID, pc store.PrivateChannel) error {
	if len(pc.Recipients) == 0 {
		return errUnknownChannel
	}
	viewer, err := s.store.User(ctx, user)
	if err != nil {
		return fmt.Errorf("viewer %d: %w", user, err)
	}
	other, err := s.store.User(ctx, pc.Recipients[0])
	if errors.Is(err, store.ErrNotFound) {
		return errUnknownChannel
	}
	if err != nil {
		return fmt.Errorf("participant %d of channel %d: %w", pc.Recipients[0], pc.ID, err)
	}
	if other.WorldID != viewer.WorldID {
		return errUnknownChannel
	}
	return errMissingAccess
}
