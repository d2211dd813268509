package admin

import (
	"fmt"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/snowflake"
)

// CodeWorldMismatch refuses a link between objects of two test worlds (a
// member, an installation, a DM, a group DM, a user install, a guild's
// owner, a Bearer token): objects of different worlds never see each
// other (docs/design.md, "Test worlds: isolation"), and world 0 (no
// world) is a world of its own here.
const CodeWorldMismatch = "WORLD_MISMATCH"

// WorldName names a world in a message: "world 123", or "no world" for 0.
func WorldName(id snowflake.ID) string {
	if id == 0 {
		return "no world"
	}
	return "world " + id.String()
}

// SameWorld is nil when the two worlds are one, else the 400 50035 with
// WORLD_MISMATCH at path (a body field or the path parameter that names
// the object being linked): "The user belongs to another world (world 1)
// than the guild (no world)".
func SameWorld(what string, world snowflake.ID, other string, otherWorld snowflake.ID, path ...any) error {
	if world == otherWorld {
		return nil
	}
	return apierr.Invalid(CodeWorldMismatch, WorldMismatchMessage(what, world, other, otherWorld), path...)
}

// WorldMismatchMessage is SameWorld's message, for a caller that records
// the error in a form among others.
func WorldMismatchMessage(what string, world snowflake.ID, other string, otherWorld snowflake.ID) string {
	return fmt.Sprintf("The %s belongs to another world (%s) than the %s (%s)",
		what, WorldName(world), other, WorldName(otherWorld))
}

// WorldField reads the optional "world_id" of a create request: the test
// world the new object joins. given is false when it is absent or null:
// the object then joins the node's default world, which is the caller's
// to read (docs/admin-api.md: the first start's demo world, else world
// 0). "0" (or 0) names world 0, no world, explicitly. Whether a world
// exists is the caller's check.
func WorldField(f Form) (id snowflake.ID, given bool) {
	v, ok := f.Value("world_id")
	if !ok {
		return 0, false // absent or null: the default world
	}
	if n, isInt := form.ToInt(v); isInt && n == 0 {
		if s, isStr := v.(string); !isStr || s == "0" {
			return 0, true
		}
	}
	id, _ = f.ID("world_id")
	return id, true
}
