package interaction

import (
	"strconv"

	"github.com/slashd/slashd/internal/jsonenc"
)

// AppendJSON appends m exactly as jsonenc.Marshal encodes it, without
// reflection: an answer's message is encoded on every invocation, and
// encoding/json's reflection over its users, snowflakes and raw fields
// cost more than building it (FuzzMessageAppendJSON checks the bytes).
func (m *Message) AppendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"id":`...)
	b = jsonenc.AppendID(b, uint64(m.ID))
	b = append(b, `,"type":`...)
	b = strconv.AppendInt(b, int64(m.Type), 10)
	b = append(b, `,"content":`...)
	b = jsonenc.AppendString(b, m.Content)
	b = append(b, `,"channel_id":`...)
	b = jsonenc.AppendID(b, uint64(m.ChannelID))
	b = append(b, `,"author":`...)
	if b, err = m.Author.AppendJSON(b); err != nil {
		return b, err
	}
	b = append(b, `,"attachments":`...)
	if b, err = jsonenc.AppendRaws(b, m.Attachments); err != nil {
		return b, err
	}
	b = append(b, `,"embeds":`...)
	if b, err = jsonenc.AppendRaws(b, m.Embeds); err != nil {
		return b, err
	}
	b = append(b, `,"mentions":`...)
	if m.Mentions == nil {
		b = append(b, "null"...)
	} else {
		b = append(b, '[')
		for i := range m.Mentions {
			if i > 0 {
				b = append(b, ',')
			}
			if b, err = m.Mentions[i].AppendJSON(b); err != nil {
				return b, err
			}
		}
		b = append(b, ']')
	}
	b = append(b, `,"mention_roles":`...)
	b = jsonenc.AppendIDs(b, m.MentionRoles)
	b = append(b, `,"pinned":`...)
	b = strconv.AppendBool(b, m.Pinned)
	b = append(b, `,"mention_everyone":`...)
	b = strconv.AppendBool(b, m.MentionEveryone)
	b = append(b, `,"tts":`...)
	b = strconv.AppendBool(b, m.TTS)
	b = append(b, `,"timestamp":`...)
	b = jsonenc.AppendString(b, m.Timestamp)
	b = append(b, `,"edited_timestamp":`...)
	b = jsonenc.AppendNullString(b, m.EditedTimestamp)
	b = append(b, `,"flags":`...)
	b = strconv.AppendUint(b, m.Flags, 10)
	b = append(b, `,"components":`...)
	if b, err = jsonenc.AppendRaws(b, m.Components); err != nil {
		return b, err
	}
	if m.ApplicationID != 0 {
		b = append(b, `,"application_id":`...)
		b = jsonenc.AppendID(b, uint64(m.ApplicationID))
	}
	if m.WebhookID != 0 {
		b = append(b, `,"webhook_id":`...)
		b = jsonenc.AppendID(b, uint64(m.WebhookID))
	}
	if m.InteractionMetadata != nil {
		b = append(b, `,"interaction_metadata":`...)
		if b, err = m.InteractionMetadata.AppendJSON(b); err != nil {
			return b, err
		}
	}
	if i := m.Interaction; i != nil {
		b = append(b, `,"interaction":{"id":`...)
		b = jsonenc.AppendID(b, uint64(i.ID))
		b = append(b, `,"type":`...)
		b = strconv.AppendInt(b, int64(i.Type), 10)
		b = append(b, `,"name":`...)
		b = jsonenc.AppendString(b, i.Name)
		b = append(b, `,"user":`...)
		if b, err = i.User.AppendJSON(b); err != nil {
			return b, err
		}
		b = append(b, '}')
	}
	if len(m.Poll) > 0 {
		b = append(b, `,"poll":`...)
		if b, err = jsonenc.AppendRaw(b, m.Poll); err != nil {
			return b, err
		}
	}
	if m.ActivityInstance != nil {
		b = append(b, `,"activity_instance":`...)
		if b, err = jsonenc.AppendValue(b, m.ActivityInstance); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}

// AppendJSON appends md exactly as jsonenc.Marshal encodes it.
func (md *InteractionMetadata) AppendJSON(b []byte) ([]byte, error) {
	var err error
	b = append(b, `{"id":`...)
	b = jsonenc.AppendID(b, uint64(md.ID))
	b = append(b, `,"type":`...)
	b = strconv.AppendInt(b, int64(md.Type), 10)
	b = append(b, `,"user":`...)
	if b, err = md.User.AppendJSON(b); err != nil {
		return b, err
	}
	b = append(b, `,"authorizing_integration_owners":`...)
	b = jsonenc.AppendIDMap(b, md.AuthorizingIntegrationOwners)
	if md.OriginalResponseMessageID != 0 {
		b = append(b, `,"original_response_message_id":`...)
		b = jsonenc.AppendID(b, uint64(md.OriginalResponseMessageID))
	}
	if md.Name != "" {
		b = append(b, `,"name":`...)
		b = jsonenc.AppendString(b, md.Name)
	}
	if md.CommandType != 0 {
		b = append(b, `,"command_type":`...)
		b = strconv.AppendInt(b, int64(md.CommandType), 10)
	}
	if md.TargetUser != nil {
		b = append(b, `,"target_user":`...)
		if b, err = md.TargetUser.AppendJSON(b); err != nil {
			return b, err
		}
	}
	if md.TargetMessageID != 0 {
		b = append(b, `,"target_message_id":`...)
		b = jsonenc.AppendID(b, uint64(md.TargetMessageID))
	}
	if md.InteractedMessageID != 0 {
		b = append(b, `,"interacted_message_id":`...)
		b = jsonenc.AppendID(b, uint64(md.InteractedMessageID))
	}
	if len(md.TriggeringInteractionMetadata) > 0 {
		b = append(b, `,"triggering_interaction_metadata":`...)
		if b, err = jsonenc.AppendRaw(b, md.TriggeringInteractionMetadata); err != nil {
			return b, err
		}
	}
	return append(b, '}'), nil
}
