package interaction

import (
	"encoding/json"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/snowflake"
)

// Files sent with a message (multipart/form-data parts named files[n]
// beside payload_json) become its attachments, as on the real service;
// slashd keeps their bytes and serves them (docs/compat.md, "Message
// bodies: attachments and files").

// CDN is where slashd says the files of an invocation's ATTACHMENT
// options are (the invoking client's uploads, which slashd does not
// receive): nothing is served there.
const CDN = "https://cdn.slashd.invalid"

// The real service's limits on a message's files.
const (
	// MaxFiles is how many files one message may carry.
	MaxFiles = 10
	// AttachmentSizeLimit is the largest file (attachment_size_limit of
	// an interaction in a guild without boosts: 10 MiB).
	AttachmentSizeLimit = 10 << 20
	// MaxMessageRequest bounds a whole message request, files included
	// (25 MiB, "Create Message" limitations).
	MaxMessageRequest = 25 << 20
)

var (
	// ErrTooManyFiles: more than MaxFiles files on a message.
	ErrTooManyFiles = apierr.New(400, 30015, "Maximum number of attachments in a message reached (10)")
	// ErrFileTooLarge: a file over AttachmentSizeLimit (the whole
	// request's answer: the real service refuses it before reading on).
	ErrFileTooLarge = apierr.New(413, apierr.CodeRequestTooLarge, "Request entity too large")
)

// codeAttachmentNotFound is the inner code of an attachments entry that
// names neither an uploaded file nor one the edited message has.
const (
	codeAttachmentNotFound = "ATTACHMENT_NOT_FOUND"
	msgAttachmentNotFound  = "Attachment data not found"
)

// Upload is one file part of a request.
type Upload struct {
	Index       int // n of files[n], else the part's position among the files
	Filename    string
	ContentType string // the part's own header (slashd derives its own; see ContentType)
	Data        []byte
}

// File is an upload made an attachment: what the store keeps.
type File struct {
	ID          snowflake.ID
	Filename    string
	ContentType string
	Data        []byte
}

// MessageAttachment is a message's attachment object. Width and Height
// are an image's; DurationSecs and Waveform a voice message's (sent by
// the client in its attachments entry).
type MessageAttachment struct {
	ID           snowflake.ID `json:"id"`
	Filename     string       `json:"filename"`
	Title        string       `json:"title,omitempty"`
	Description  string       `json:"description,omitempty"`
	ContentType  string       `json:"content_type,omitempty"`
	Size         int64        `json:"size"`
	URL          string       `json:"url"`
	ProxyURL     string       `json:"proxy_url"`
	Height       *int         `json:"height,omitempty"`
	Width        *int         `json:"width,omitempty"`
	Ephemeral    bool         `json:"ephemeral,omitempty"`
	DurationSecs *float64     `json:"duration_secs,omitempty"`
	Waveform     string       `json:"waveform,omitempty"`
}

// Linker is the URL a file is served at, by its channel, id and
// filename.
type Linker func(channel, id snowflake.ID, filename string) string

// Attached is what AttachUploads made of a request's uploads.
type Attached struct {
	// Files are the uploads, to store under their attachments' ids.
	Files []File
	// Unlisted are the attachments of the uploads an edit without an
	// attachments list sent: they follow the message's own.
	Unlisted []json.RawMessage
}

// AttachUploads makes uploads attachments of msg, a decoded message
// object (payload_json's): an attachments entry whose id is an upload's
// index describes it (its filename, description, title, duration_secs
// and waveform win) and becomes that attachment (a new id, a URL from
// link in channel); an upload no entry names follows the entries (an
// edit without an attachments list: is Unlisted, added to the message's
// own). Other entries stay as sent: ResolveAttachments checks them once
// the message they edit is known. More than MaxFiles uploads is an
// error.
func AttachUploads(msg map[string]any, uploads []Upload, channel snowflake.ID, edit bool, newID func() snowflake.ID, link Linker) (Attached, error) {
	var out Attached
	if len(uploads) == 0 || msg == nil {
		return out, nil
	}
	if len(uploads) > MaxFiles {
		return out, ErrTooManyFiles
	}
	byIndex := make(map[int64]Upload, len(uploads))
	for _, u := range uploads {
		byIndex[int64(u.Index)] = u
	}
	named := map[int64]bool{}
	make1 := func(u Upload, entry map[string]any) json.RawMessage {
		a, f := attachment(u, entry, channel, newID(), link)
		out.Files = append(out.Files, f)
		b, _ := json.Marshal(a) // plain fields: never fails
		return b
	}
	if l, ok := msg["attachments"].([]any); ok {
		for i, e := range l {
			o, _ := e.(map[string]any)
			n, ok := form.ToInt(o["id"])
			if u, found := byIndex[n]; ok && found && !named[n] {
				named[n] = true
				// The entry becomes the attachment, as the message
				// body's reader reads objects (decoded JSON).
				l[i], _ = form.DecodeJSON(make1(u, o))
			}
		}
	}
	entries, listed := msg["attachments"].([]any)
	for _, u := range uploads {
		if named[int64(u.Index)] {
			continue
		}
		named[int64(u.Index)] = true
		a := make1(u, nil)
		if listed || !edit {
			// A new message's attachments, or an edit's list: the
			// uploads follow the entries.
			v, _ := form.DecodeJSON(a)
			entries = append(entries, v)
			continue
		}
		out.Unlisted = append(out.Unlisted, a)
	}
	if listed || !edit {
		msg["attachments"] = entries
	}
	return out, nil
}

// attachment is the attachment object of an upload, described by entry
// (nil: by the upload alone), and the file kept for it.
func attachment(u Upload, entry map[string]any, channel, id snowflake.ID, link Linker) (MessageAttachment, File) {
	name := u.Filename
	if f, ok := entry["filename"].(string); ok && f != "" {
		name = f
	}
	ct := ContentType(name, u.Data)
	a := MessageAttachment{ID: id, Filename: name, ContentType: ct, Size: int64(len(u.Data))}
	a.URL = link(channel, id, name)
	a.ProxyURL = a.URL
	a.Description, _ = entry["description"].(string)
	a.Title, _ = entry["title"].(string)
	if w, h, ok := ImageSize(u.Data); ok {
		a.Width, a.Height = &w, &h
	}
	if d, ok := entry["duration_secs"].(json.Number); ok {
		if f, err := d.Float64(); err == nil {
			a.DurationSecs = &f
		}
	}
	if d, ok := entry["duration_secs"].(float64); ok {
		a.DurationSecs = &d
	}
	a.Waveform, _ = entry["waveform"].(string)
	return a, File{ID: id, Filename: name, ContentType: ct, Data: u.Data}
}

// ResolveAttachments sets m's attachments after d is applied: a new
// message's are d's; an edit's are, with an attachments key, the
// entries (each an upload's, or one of before, the attachments m had,
// kept as they were), else before as they were; the uploads no entry
// named follow. An entry naming neither is refused
// (attachments.{i}: ATTACHMENT_NOT_FOUND). On an ephemeral message the
// attachments say so. It returns the ids of the attachments m has.
func ResolveAttachments(m *Message, d MessageData, att Attached, before []json.RawMessage) ([]snowflake.ID, error) {
	uploaded := make(map[snowflake.ID]bool, len(att.Files))
	for _, f := range att.Files {
		uploaded[f.ID] = true
	}
	had := make(map[snowflake.ID]json.RawMessage, len(before))
	for _, b := range before {
		if id, ok := attachmentID(b); ok {
			had[id] = b
		}
	}
	list := before
	if d.Set == nil || d.Set["attachments"] {
		list = make([]json.RawMessage, 0, len(d.Attachments))
		errs := &apierr.Fields{}
		for i, e := range d.Attachments {
			id, ok := attachmentID(e)
			switch {
			case ok && uploaded[id]:
				list = append(list, e)
			case ok && had[id] != nil:
				list = append(list, had[id])
			default:
				errs.At("attachments", i).Add(codeAttachmentNotFound, msgAttachmentNotFound)
			}
		}
		if err := errs.Err(); err != nil {
			return nil, err
		}
	}
	m.Attachments = append(append([]json.RawMessage{}, list...), att.Unlisted...)
	if m.Flags&FlagEphemeral != 0 {
		MarkEphemeral(m, att)
	}
	ids := make([]snowflake.ID, 0, len(m.Attachments))
	for _, e := range m.Attachments {
		if id, ok := attachmentID(e); ok {
			ids = append(ids, id)
		}
	}
	return ids, nil
}

// attachmentID reads an attachment object's (or entry's) id.
func attachmentID(raw json.RawMessage) (snowflake.ID, bool) {
	var a struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(raw, &a) != nil || len(a.ID) == 0 {
		return 0, false
	}
	var id snowflake.ID
	if json.Unmarshal(a.ID, &id) != nil {
		return 0, false
	}
	return id, true
}

// MarkEphemeral says ephemeral on the attachments of m that att
// uploaded: an ephemeral message's files are (the real service's
// attachment object: "whether this attachment is ephemeral").
func MarkEphemeral(m *Message, att Attached) {
	uploaded := make(map[snowflake.ID]bool, len(att.Files))
	for _, f := range att.Files {
		uploaded[f.ID] = true
	}
	for i, e := range m.Attachments {
		if id, _ := attachmentID(e); uploaded[id] {
			m.Attachments[i] = markEphemeral(e)
		}
	}
}

// markEphemeral sets ephemeral on an attachment object.
func markEphemeral(raw json.RawMessage) json.RawMessage {
	var a MessageAttachment
	if json.Unmarshal(raw, &a) != nil {
		return raw
	}
	a.Ephemeral = true
	b, err := json.Marshal(a)
	if err != nil {
		return raw
	}
	return b
}
