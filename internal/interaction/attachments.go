package interaction

import (
	"net/url"

	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/snowflake"
)

// Files sent with a message (multipart/form-data parts named files[n]
// beside payload_json) become its attachments, as on the real service.
// slashd keeps what describes a file, not its contents.

// CDN is where slashd says attachments are; nothing is served there.
const CDN = "https://cdn.slashd.invalid"

// Upload is one file part of a request.
type Upload struct {
	Index       int // n of files[n], else the part's position among the files
	Filename    string
	ContentType string
	Size        int64
}

// AttachUploads makes uploads attachments of msg, a decoded message object
// (payload_json's): an attachments entry whose id is an upload's index
// describes it (its filename and description win) and becomes that
// attachment; an upload no entry names is added after the entries; other
// entries stay as sent. Each attachment gets a new id and a URL under CDN
// naming the channel. Without uploads msg is left as it is.
func AttachUploads(msg map[string]any, uploads []Upload, channelID snowflake.ID, newID func() snowflake.ID) {
	if len(uploads) == 0 || msg == nil {
		return
	}
	byIndex := make(map[int64]Upload, len(uploads))
	for _, u := range uploads {
		byIndex[int64(u.Index)] = u
	}
	entries, _ := msg["attachments"].([]any)
	out := make([]any, 0, len(entries)+len(uploads))
	named := map[int64]bool{}
	for _, e := range entries {
		o, _ := e.(map[string]any)
		n, ok := form.ToInt(o["id"])
		if u, found := byIndex[n]; ok && found && !named[n] {
			named[n] = true
			out = append(out, attachment(u, o, channelID, newID()))
			continue
		}
		out = append(out, e)
	}
	for _, u := range uploads {
		if !named[int64(u.Index)] {
			named[int64(u.Index)] = true
			out = append(out, attachment(u, nil, channelID, newID()))
		}
	}
	msg["attachments"] = out
}

// attachment is the attachment object of an upload, described by entry
// (nil: by the upload alone).
func attachment(u Upload, entry map[string]any, channelID, id snowflake.ID) map[string]any {
	name := u.Filename
	if f, ok := entry["filename"].(string); ok && f != "" {
		name = f
	}
	link := CDN + "/attachments/" + channelID.String() + "/" + id.String() + "/" + url.PathEscape(name)
	a := map[string]any{"id": id.String(), "filename": name, "size": u.Size, "url": link, "proxy_url": link}
	if u.ContentType != "" {
		a["content_type"] = u.ContentType
	}
	if d, ok := entry["description"].(string); ok {
		a["description"] = d
	}
	return a
}
