package api

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"time"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/jsonenc"
	"github.com/slashd/slashd/internal/snowflake"
	"github.com/slashd/slashd/internal/store"
)

func (s *Server) listGlobalCommands(w http.ResponseWriter, r *http.Request) error {
	return s.listCommands(w, r, s.resolveGlobal)
}

func (s *Server) listGuildCommands(w http.ResponseWriter, r *http.Request) error {
	return s.listCommands(w, r, s.resolveGuild)
}

func (s *Server) createGlobalCommand(w http.ResponseWriter, r *http.Request) error {
	return s.createCommand(w, r, s.resolveGlobal)
}

func (s *Server) createGuildCommand(w http.ResponseWriter, r *http.Request) error {
	return s.createCommand(w, r, s.resolveGuild)
}

func (s *Server) overwriteGlobalCommands(w http.ResponseWriter, r *http.Request) error {
	return s.overwriteCommands(w, r, s.resolveGlobal)
}

func (s *Server) overwriteGuildCommands(w http.ResponseWriter, r *http.Request) error {
	return s.overwriteCommands(w, r, s.resolveGuild)
}

func (s *Server) getGlobalCommand(w http.ResponseWriter, r *http.Request) error {
	return s.getCommand(w, r, s.resolveGlobal)
}

func (s *Server) getGuildCommand(w http.ResponseWriter, r *http.Request) error {
	return s.getCommand(w, r, s.resolveGuild)
}

func (s *Server) editGlobalCommand(w http.ResponseWriter, r *http.Request) error {
	return s.editCommand(w, r, s.resolveGlobal)
}

func (s *Server) editGuildCommand(w http.ResponseWriter, r *http.Request) error {
	return s.editCommand(w, r, s.resolveGuild)
}

func (s *Server) deleteGlobalCommand(w http.ResponseWriter, r *http.Request) error {
	return s.deleteCommand(w, r, s.resolveGlobal)
}

func (s *Server) deleteGuildCommand(w http.ResponseWriter, r *http.Request) error {
	return s.deleteCommand(w, r, s.resolveGuild)
}

type resolver func(*http.Request) (target, error)

// resolveWrite resolves the target of a write and checks the caller may
// change commands.
func (s *Server) resolveWrite(r *http.Request, resolve resolver) (target, error) {
	t, err := resolve(r)
	if err != nil {
		return t, err
	}
	return t, requireWriteScope(r)
}

// listCommands: by default the dictionaries are left out and
// name_localized/description_localized carry the requester's locale;
// with_localizations=true returns the dictionaries instead. The stored
// body of a command is its full wire form, so that case is a copy; the
// localized renderings are cached per command version and locale.
func (s *Server) listCommands(w http.ResponseWriter, r *http.Request, resolve resolver) error {
	t, err := resolve(r)
	if err != nil {
		return err
	}
	withLoc, err := queryBool(r, "with_localizations")
	if err != nil {
		return err
	}
	var (
		raw     []store.RawCommand
		version uint64
	)
	if s.cache != nil {
		raw, version, err = s.cache.VersionedCommands(r.Context(), t.scope)
	} else {
		raw, err = s.store.RawCommands(r.Context(), t.scope)
	}
	if err != nil {
		return err
	}
	locale := ""
	if !withLoc {
		locale = s.requestLocale(r)
	}
	key := listKey{scope: t.scope, locale: locale, withLoc: withLoc}
	if version != 0 {
		if out, ok := s.lists.get(key, version); ok {
			writeRawJSON(w, http.StatusOK, out)
			return nil
		}
	}
	size := 2
	for _, rc := range raw {
		size += len(rc.Body) + 1
	}
	out := make([]byte, 0, size)
	out = append(out, '[')
	for i, rc := range raw {
		if i > 0 {
			out = append(out, ',')
		}
		if withLoc {
			out = append(out, rc.Body...)
			continue
		}
		item, err := s.renderListItem(rc, locale)
		if err != nil {
			return err
		}
		out = append(out, item...)
	}
	out = append(out, ']')
	if version != 0 {
		s.lists.put(key, version, out)
	}
	writeRawJSON(w, http.StatusOK, out)
	return nil
}

func (s *Server) renderListItem(rc store.RawCommand, locale string) ([]byte, error) {
	key := renderKey{id: rc.ID, version: rc.Version, locale: locale}
	if b, ok := s.renders.get(key); ok {
		return b, nil
	}
	c, err := s.decodeCommand(rc)
	if err != nil {
		return nil, err
	}
	b, err := jsonenc.Marshal(command.Localized(&c, locale))
	if err != nil {
		return nil, fmt.Errorf("render command %d: %w", rc.ID, err)
	}
	s.renders.put(key, b)
	return b, nil
}

// decodeCommand decodes a stored body, once per command version.
func (s *Server) decodeCommand(rc store.RawCommand) (command.Command, error) {
	key := versionKey{id: rc.ID, version: rc.Version}
	if c, ok := s.decoded.get(key); ok {
		return c, nil
	}
	var c command.Command
	if err := json.Unmarshal(rc.Body, &c); err != nil {
		return c, fmt.Errorf("decode stored command %d: %w", rc.ID, err)
	}
	s.decoded.put(key, c)
	return c, nil
}

func queryBool(r *http.Request, name string) (bool, error) {
	v := r.URL.Query().Get(name)
	switch v {
	case "", "false", "False", "0":
		return false, nil
	case "true", "True", "1":
		return true, nil
	}
	return false, apierr.Invalid("BOOLEAN_TYPE_CONVERT", "Must be either true or false.", name)
}

func (s *Server) getCommand(w http.ResponseWriter, r *http.Request, resolve resolver) error {
	t, err := resolve(r)
	if err != nil {
		return err
	}
	id, err := pathID(r, "command_id")
	if err != nil {
		return err
	}
	c, err := s.store.Command(r.Context(), t.scope, id)
	if err != nil {
		return commandErr(err)
	}
	writeJSON(w, http.StatusOK, c)
	return nil
}

func commandErr(err error) error {
	if isNotFound(err) {
		return errUnknownCommand
	}
	return err
}

// day is the UTC day number the daily create limit counts in.
func (s *Server) day(ctx context.Context) int64 {
	return s.nowIn(ctx).UTC().Unix() / int64(24*time.Hour/time.Second)
}

func (s *Server) nextID() snowflake.ID { return s.ids.Next() }

// writeCommands runs plan on scope's commands in the store (see
// store.WriteCommands) and logs what changed.
func (s *Server) writeCommands(ctx context.Context, scope command.Scope, plan store.PlanFunc) (command.Plan, error) {
	p, err := s.store.WriteCommands(ctx, scope, s.day(ctx), plan)
	if err != nil || (len(p.Put) == 0 && len(p.Delete) == 0) {
		return p, err
	}
	attrs := []any{"application_id", scope.ApplicationID, "scope", "global"}
	if !scope.Global() {
		attrs = append(attrs[:2], "scope", "guild", "guild_id", scope.GuildID)
	}
	s.log.Info("commands changed", append(attrs,
		"created", p.Creates, "updated", len(p.Put)-p.Creates, "deleted", len(p.Delete))...)
	return p, nil
}

func (s *Server) createCommand(w http.ResponseWriter, r *http.Request, resolve resolver) error {
	t, err := s.resolveWrite(r, resolve)
	if err != nil {
		return err
	}
	body, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	in, errs := command.Parse(body, command.Target{App: t.commandApp(), Scope: t.scope, Mode: command.ModeCreate})
	if err := errs.Err(); err != nil {
		return err
	}
	plan, err := s.writeCommands(r.Context(), t.scope, func(cur []command.Command, today int) (command.Plan, error) {
		return command.Upsert(cur, in, today, s.nextID)
	})
	if err != nil {
		return err
	}
	status := http.StatusOK
	if plan.Created {
		status = http.StatusCreated
	}
	writeJSON(w, status, plan.Result[0])
	return nil
}

// editCommand lays the PATCH body over the stored command inside the
// write transaction, so the edit always applies to the current version.
func (s *Server) editCommand(w http.ResponseWriter, r *http.Request, resolve resolver) error {
	t, err := s.resolveWrite(r, resolve)
	if err != nil {
		return err
	}
	id, err := pathID(r, "command_id")
	if err != nil {
		return err
	}
	body, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	patch, ok := body.(map[string]any)
	if !ok {
		return apierr.Invalid("MODEL_TYPE_CONVERT", "Expected an object/dictionary.")
	}
	plan, err := s.writeCommands(r.Context(), t.scope, func(cur []command.Command, _ int) (command.Plan, error) {
		var stored *command.Command
		for i := range cur {
			if cur[i].ID == id {
				stored = &cur[i]
			}
		}
		if stored == nil {
			return command.Plan{}, errUnknownCommand
		}
		merged := command.Overlay(command.EditShape(stored), patch, t.scope.Global())
		in, errs := command.Parse(merged, command.Target{App: t.commandApp(), Scope: t.scope, Mode: command.ModeEdit,
			Stored: stored})
		if err := errs.Err(); err != nil {
			return command.Plan{}, err
		}
		return command.Edit(cur, id, in, s.nextID)
	})
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, plan.Result[0])
	return nil
}

func (s *Server) deleteCommand(w http.ResponseWriter, r *http.Request, resolve resolver) error {
	t, err := s.resolveWrite(r, resolve)
	if err != nil {
		return err
	}
	id, err := pathID(r, "command_id")
	if err != nil {
		return err
	}
	_, err = s.writeCommands(r.Context(), t.scope, func(cur []command.Command, _ int) (command.Plan, error) {
		return command.Delete(cur, id)
	})
	if err != nil {
		return err
	}
	writeNoContent(w)
	return nil
}

// overwriteCommands replaces the scope's whole list: every element is
// validated first (errors nested under the element's index), then the
// plan is applied in one transaction.
func (s *Server) overwriteCommands(w http.ResponseWriter, r *http.Request, resolve resolver) error {
	t, err := s.resolveWrite(r, resolve)
	if err != nil {
		return err
	}
	body, err := s.readBody(w, r)
	if err != nil {
		return err
	}
	list, ok := body.([]any)
	if !ok {
		return apierr.Invalid("LIST_TYPE_CONVERT", "Only iterables may be used in a ListType.")
	}
	if len(list) > command.MaxBulkCommands {
		return apierr.Invalid("BASE_TYPE_MAX_LENGTH", "Must be 130 or fewer in length.")
	}
	in := make([]command.Parsed, len(list))
	errs := &apierr.Fields{}
	tgt := command.Target{App: t.commandApp(), Scope: t.scope, Mode: command.ModeBulk}
	for i, el := range list {
		p, fe := command.Parse(el, tgt)
		in[i] = p
		errs.At(i).Merge(fe)
	}
	if err := errs.Err(); err != nil {
		return err
	}
	plan, err := s.writeCommands(r.Context(), t.scope, func(cur []command.Command, today int) (command.Plan, error) {
		return command.Overwrite(cur, in, t.scope.Global(), today, s.nextID)
	})
	if err != nil {
		return err
	}
	writeResult(w, http.StatusOK, plan)
	return nil
}

// writeResult answers with a write's result list, from the wire forms
// the store wrote or holds when it gave them (no second encoding).
func writeResult(w http.ResponseWriter, status int, plan command.Plan) {
	if len(plan.Wire) != len(plan.Result) {
		writeJSON(w, status, plan.Result)
		return
	}
	size := 2
	for _, b := range plan.Wire {
		size += len(b) + 1
	}
	out := make([]byte, 0, size)
	out = append(out, '[')
	for i, b := range plan.Wire {
		if i > 0 {
			out = append(out, ',')
		}
		out = append(out, b...)
	}
	writeRawJSON(w, status, append(out, ']'))
}

func isNotFound(err error) bool { return err != nil && errors.Is(err, store.ErrNotFound) }
