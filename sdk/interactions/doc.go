// Package interactions is slashd's Go SDK for application authors who
// receive interactions over HTTP (an Interactions Endpoint URL): it checks
// the request signature, decodes the interaction into typed values and
// writes the interaction response. It uses only the standard library and
// works the same against slashd and the real service.
//
// A whole bot:
//
//	h := interactions.Handler(publicKeyHex, func(ctx context.Context, i *interactions.Interaction) (interactions.Response, error) {
//		switch i.Type {
//		case interactions.InteractionMessageComponent: // the button below
//			if i.Data.CustomID == "again" {
//				return interactions.UpdateMessage("pong again"), nil
//			}
//		case interactions.InteractionApplicationCommand:
//			switch i.Data.Name {
//			case "ping":
//				return interactions.Message("pong", interactions.WithComponents(
//					interactions.Row(interactions.Button("again", "Again", interactions.ButtonPrimary)))), nil
//			case "echo":
//				opt, _ := i.Data.Option("text")
//				text, _ := opt.String()
//				return interactions.Message(text, interactions.NoMentions()), nil
//			}
//		}
//		return interactions.Message("unknown", interactions.Ephemeral()), nil
//	})
//	http.ListenAndServe(":8080", h)
//
// # Signatures
//
// Every delivery is a POST carrying X-Signature-Ed25519 (a hex Ed25519
// signature) and X-Signature-Timestamp; the signed message is the timestamp
// bytes followed by the raw body, and the key is the application's public
// key (64 hex characters, "public_key" in slashd's bootstrap.json, "Public
// Key" in the real developer portal). [Verify] and [VerifyRequest] check it;
// [Handler] answers requests that fail with 401, as the service requires
// (it deliberately sends badly signed requests when the endpoint URL is
// set). The timestamp's age is not checked.
//
// # Snowflakes
//
// IDs (snowflakes) are strings everywhere in this package, exactly as they
// are on the wire: "81384788765712384". Compare them as strings; parse them
// with strconv.ParseUint when a number is needed.
//
// # Options
//
// [CommandData.SubcommandPath] gives the subcommand group and subcommand
// that were invoked, [CommandData.Option] finds an option by name among the
// options of that subcommand, and the [Option] accessors return typed
// values: String, Int, Float, Bool and Snowflake. Int and Float accept both
// the JSON numbers of an APPLICATION_COMMAND interaction and the raw
// strings of an APPLICATION_COMMAND_AUTOCOMPLETE interaction, where the
// user may still be typing. [CommandData.Focused] returns the option being
// autocompleted. Entities named by USER, CHANNEL, ROLE, MENTIONABLE and
// ATTACHMENT options, and the targets of user and message commands, are in
// [CommandData.Resolved].
//
// # Components and modals
//
// A MESSAGE_COMPONENT interaction (a button pressed, a select menu
// chosen) carries the component's [CommandData.CustomID],
// [CommandData.ComponentType] and, for select menus,
// [CommandData.SelectValues]; [Interaction.Message] is the message the
// component is on. A custom_id is up to 100 characters the app chooses,
// and gets back: it can carry state ("counter:3"). A MODAL_SUBMIT carries
// the modal's CustomID and what the user entered, in
// [CommandData.Components]; [CommandData.ModalValue] finds a text input's
// text by its custom_id (in the labels of current modals or the action
// rows of older ones), [CommandData.ModalInput] any input.
//
// Messages get components with [WithComponents]: action rows ([Row]) of
// buttons ([Button], [LinkButton]). Answer a component interaction with
// [UpdateMessage] to edit the message it is on, or with [Message] to post
// a new one.
//
// # Responses
//
// A [Response] is the interaction callback object {"type": …, "data": …};
// build it with [Pong], [Message], [Defer], [DeferUpdate], [UpdateMessage],
// [Autocomplete] (or the validating [AutocompleteChoices]), [Modal] or
// [LaunchActivity]. After the HTTP answer, a [Client] answers through the
// callback endpoint ([Client.Respond]), sends follow-up messages
// ([Client.Followup]) and reads, edits ([EditData]) and deletes the
// original response and the follow-ups, with the interaction's token.
//
// # Errors
//
// Verification errors match [ErrInvalidSignature] with errors.Is, and a
// more precise cause as well ([ErrMissingSignature],
// [ErrMalformedSignature]). Bad input elsewhere reports
// [ErrInvalidPublicKey], [ErrBodyTooLarge], [ErrTooManyChoices] or
// [ErrInvalidChoice].
package interactions
