package interaction

import (
	"encoding/json"
	"testing"

	"github.com/slashd/slashd/internal/form"
	"github.com/slashd/slashd/internal/snowflake"
)

func TestAttachUploads(t *testing.T) {
	upload := func(i int, name string) Upload {
		return Upload{Index: i, Filename: name, ContentType: "text/plain", Size: int64(10 + i)}
	}
	cases := []struct {
		name    string
		msg     string // payload_json
		uploads []Upload
		want    string // the attachments after, as JSON
	}{
		{name: "no uploads leave the message as sent", msg: `{"attachments":[{"id":"9"}]}`,
			want: `[{"id":"9"}]`},
		{name: "uploads without entries are added", msg: `{"content":"x"}`,
			uploads: []Upload{upload(0, "a.txt"), upload(1, "b.txt")},
			want: `[{"content_type":"text/plain","filename":"a.txt","id":"100","proxy_url":"https://cdn.slashd.invalid/attachments/7/100/a.txt","size":10,"url":"https://cdn.slashd.invalid/attachments/7/100/a.txt"},` +
				`{"content_type":"text/plain","filename":"b.txt","id":"101","proxy_url":"https://cdn.slashd.invalid/attachments/7/101/b.txt","size":11,"url":"https://cdn.slashd.invalid/attachments/7/101/b.txt"}]`},
		{name: "an entry naming an upload describes it; others stay", msg: `{"attachments":[{"id":"123456789012345678"},{"id":1,"filename":"my file.txt","description":"d"}]}`,
			uploads: []Upload{upload(1, "b.txt")},
			want: `[{"id":"123456789012345678"},` +
				`{"content_type":"text/plain","description":"d","filename":"my file.txt","id":"100","proxy_url":"https://cdn.slashd.invalid/attachments/7/100/my%20file.txt","size":11,"url":"https://cdn.slashd.invalid/attachments/7/100/my%20file.txt"}]`},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			v, err := form.DecodeJSON([]byte(c.msg)) // as payload_json is read
			if err != nil {
				t.Fatal(err)
			}
			msg := v.(map[string]any)
			next := snowflake.ID(99)
			AttachUploads(msg, c.uploads, 7, func() snowflake.ID { next++; return next })
			got, err := json.Marshal(msg["attachments"])
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != c.want {
				t.Errorf("attachments:\n got %s\nwant %s", got, c.want)
			}
		})
	}
}
