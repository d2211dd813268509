// Package interaction is the pure model of invoking an application command:
// it reads the body a chat client POSTs to /interactions (ParseInvocation),
// checks it against the stored command (Validate, CheckVersion) and shapes
// the interaction's data object (BuildData). Nothing here does I/O, reads the
// clock or imports HTTP or SQL; permissions, resolving ids against the world
// and delivery belong to the callers.
//
// Errors are the real service's 50035 Invalid Form Body with field errors at
// the body's own paths (data.options.0.value._errors …), built with
// internal/form and internal/apierr.
//
// # Decisions (copied into docs/compat.md)
//
//   - Parse. type must be 2 or 4 (BASE_TYPE_CHOICES "Value must be one of
//     (2, 3, 4, 5)."; 3 and 5 are read by ParseComponentInvocation and
//     ParseModalInvocation); application_id, channel_id, data, data.id, data.name,
//     data.type (1-4) and data.version are required (BASE_TYPE_REQUIRED);
//     guild_id and target_id are optional snowflakes. Options are
//     {name, type, value?, options?, focused?}; arrays hold at most 25
//     entries (BASE_TYPE_MAX_LENGTH) and nest at most group → subcommand →
//     option (deeper: INTERACTION_APPLICATION_COMMAND_OPTION_INVALID).
//   - JSON value types are checked by the option's own type already at
//     parse, and again against the definition in Validate: STRING a
//     string; INTEGER and NUMBER a JSON number in APPLICATION_COMMAND and a
//     string in AUTOCOMPLETE; BOOLEAN a bool; USER, CHANNEL, ROLE,
//     MENTIONABLE and ATTACHMENT a snowflake (string, or number as the rest
//     of the API accepts). Codes are the generic ones of internal/form
//     (STRING_TYPE_CONVERT, NUMBER_TYPE_COERCE, BOOLEAN_TYPE_CONVERT).
//   - The command: data.id, application_id, guild_id (guild commands),
//     data.name and data.type must match the stored command, else
//     INTERACTION_APPLICATION_COMMAND_INVALID at that field. Autocomplete
//     on a non-CHAT_INPUT command is the same error at data.type.
//   - USER and MESSAGE commands need data.target_id (BASE_TYPE_REQUIRED)
//     and take no options; PRIMARY_ENTRY_POINT takes neither options nor
//     target; CHAT_INPUT takes no target_id. Errors:
//     INTERACTION_APPLICATION_COMMAND_OPTION_INVALID at data.options /
//     data.target_id.
//   - Subcommand path: where the definitions of a level hold subcommands or
//     groups, the level must hold exactly one option:
//     none → INTERACTION_APPLICATION_COMMAND_OPTION_REQUIRED at the array
//     ("A sub-command or sub-command group is required"), more →
//     BASE_TYPE_MAX_LENGTH "Must be 1 or fewer in length.". A group needs
//     exactly one subcommand by the same rule. A subcommand or group with a
//     value, or a value option with options, is …_OPTION_INVALID.
//   - Per option (at data.options.N…): a repeated name →
//     INTERACTION_APPLICATION_COMMAND_OPTION_DUPLICATE at .name; a name the
//     level does not define → …_OPTION_UNKNOWN at .name; a type other than
//     the definition's → …_OPTION_TYPE_INVALID at .type; a value option
//     without value → BASE_TYPE_REQUIRED at .value.
//   - Required options missing in an APPLICATION_COMMAND →
//     …_OPTION_REQUIRED at the array's node, message `Option "x" is
//     required`. Not enforced for autocomplete.
//   - Values (at .value), generic codes in the real service's wording:
//     lengths in code points against min_length/max_length (default 0 and
//     6000): BASE_TYPE_BAD_LENGTH when both bounds are set, else
//     BASE_TYPE_MIN_LENGTH / BASE_TYPE_MAX_LENGTH; INTEGER within
//     ±(2^53−1), NUMBER within ±2^53, then min_value/max_value:
//     NUMBER_TYPE_MIN / NUMBER_TYPE_MAX ("int value should be …" for
//     INTEGER, "float value should be …" for NUMBER); choices:
//     BASE_TYPE_CHOICES "Value must be one of (…)." listing the values.
//   - Autocomplete: exactly one option carries focused:true (none →
//     …_OPTION_INVALID at data.options, a second one → at its .focused), and
//     its definition must have autocomplete:true (else …_OPTION_INVALID at
//     .focused). An APPLICATION_COMMAND may carry no focused option
//     (…_OPTION_INVALID at .focused). The focused value is partial: STRING
//     is checked only against max_length; INTEGER must match -?[0-9]* and
//     NUMBER -?[0-9]*\.?[0-9]* ("", "-", "1." pass; "1e3", "abc" do not:
//     NUMBER_TYPE_COERCE) and stay within the type's range; min_length,
//     min_value/max_value and choices are not applied. The other options of
//     an autocomplete are complete values and get every check; their
//     INTEGER/NUMBER values are strings in plain decimal form.
//   - Normalized values: STRING string, INTEGER int64, NUMBER float64,
//     BOOLEAN bool, snowflake types snowflake.ID (JSON string); in an
//     autocomplete INTEGER and NUMBER stay the strings sent. Names are the
//     default names (the only ones matched).
//   - Resolving is the caller's: Resolved.Refs lists each USER, CHANNEL,
//     ROLE, MENTIONABLE and ATTACHMENT id by option, with the CHANNEL
//     option's channel_types, which need the channel's type to check;
//     Resolved.TargetID is the USER/MESSAGE target.
//   - CheckVersion: a global command whose data.version differs from the
//     stored one gets the real service's read-repair error,
//     INTERACTION_APPLICATION_COMMAND_INVALID_VERSION "This command is
//     outdated, please try again in a few minutes" under data._errors.
//     Guild commands are not checked (clients see their updates at once).
package interaction
