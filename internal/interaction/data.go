package interaction

import (
	"github.com/slashd/slashd/internal/command"
	"github.com/slashd/slashd/internal/snowflake"
)

// Data is the interaction's data object for APPLICATION_COMMAND and
// APPLICATION_COMMAND_AUTOCOMPLETE (api-facts §4.1, §5) without resolved,
// which needs the world and is added by the caller.
type Data struct {
	ID       snowflake.ID `json:"id"`
	Name     string       `json:"name"`
	Type     command.Type `json:"type"`
	GuildID  snowflake.ID `json:"guild_id,omitempty"`
	Options  []Value      `json:"options,omitempty"`
	TargetID snowflake.ID `json:"target_id,omitempty"`
}

// BuildData shapes the data object of a validated invocation of cmd: the
// default (never localized) name, guild_id for guild commands, options
// normalized by Validate and target_id for USER and MESSAGE commands.
func BuildData(cmd command.Command, r Resolved) Data {
	return Data{
		ID:       cmd.ID,
		Name:     cmd.Name,
		Type:     cmd.Type,
		GuildID:  cmd.GuildID,
		Options:  r.Options,
		TargetID: r.TargetID,
	}
}
