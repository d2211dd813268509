package msgcheck

import (
	"fmt"
	"strings"
	"testing"
)

// fullEmbed uses every field of an embed at its limit, as the docs'
// Embed Structure lists them; video and provider are the real service's
// to fill and pass whatever they hold.
var fullEmbed = `{"type":"rich","title":"` + chars(256) + `","description":"` + chars(1000) + `",
	"url":"https://discord.com/developers","timestamp":"2024-01-01T00:00:00.000Z","color":16777215,
	"footer":{"text":"` + chars(100) + `","icon_url":"attachment://icon.png"},
	"image":{"url":"https://cdn.example.com/a.png","width":5},"thumbnail":{"url":"attachment://thumb.png"},
	"video":{"url":"not a url"},"provider":{"name":5},
	"author":{"name":"` + chars(256) + `","url":"http://example.com","icon_url":"https://example.com/i.png"},
	"fields":[` + strings.Repeat(`{"name":"n","value":"v","inline":true},`, 24) + `{"name":"n","value":"v"}]}`

func TestEmbedsValid(t *testing.T) {
	runBodyCases(t, []bodyCase{
		{name: "every field at its limit", body: embedBody(fullEmbed)},
		{name: "ten small embeds", body: embedBody(strings.Repeat(`{"title":"t"},`, 9) + `{"description":"d"}`)},
		{name: "an empty embed list", body: `{"embeds":[]}`},
		{name: "nulls", body: embedBody(`{"title":null,"footer":null,"author":null,"image":null,"color":null,"timestamp":null,"fields":null,"url":null}`)},
		{name: "white space around a title is not counted", body: embedBody(`{"title":"  ` + chars(256) + ` \n"}`)},
		{name: "description of 4096", body: embedBody(`{"description":"` + chars(4096) + `"}`)},
		{name: "field of 256 and 1024", body: embedBody(`{"fields":[{"name":"` + chars(256) + `","value":"` + chars(1024) + `","inline":false}]}`)},
		{name: "footer of 2048", body: embedBody(`{"footer":{"text":"` + chars(2048) + `"}}`)},
		{name: "6000 characters in all", body: embedBody(`{"description":"`+chars(3000)+`"}`, `{"description":"`+chars(2000)+`","footer":{"text":"`+chars(500)+`"},"author":{"name":"`+chars(250)+`"},"title":"`+chars(250)+`"}`)},
		{name: "timestamps", body: embedBody(`{"timestamp":"2024-05-01T12:34:56+02:00"}`, `{"timestamp":"2024-05-01"}`,
			`{"timestamp":"2024-02-29T23:59:59.123456Z"}`, `{"timestamp":"2024-05-01T12:34"}`, `{"timestamp":"2024-05-01 12:34:56-0530"}`)},
		{name: "colour 0 and a numeric string", body: embedBody(`{"color":0}`, `{"color":"255"}`)},
		{name: "a URL of 2048", body: embedBody(`{"url":"https://example.com/` + chars(2028) + `"}`)},
		{name: "URLs of every shape a host takes", body: embedBody(`{"url":"https://user:pw@[::1]:8080/p","image":{"url":"https://münchen.de/%zz|{x}"}}`,
			`{"url":"http://localhost","thumbnail":{"url":"attachment://my_file-1.png"}}`)},
		{name: "URLs with queries, ports and upper-case schemes", body: embedBody(`{"url":"HTTPS://Example.com:8443/a?b=c#d","image":{"url":"http://127.0.0.1/x.png"}}`)},
	})
}

func TestEmbedsRefused(t *testing.T) {
	maxLen := func(path string, n int) string {
		return fmt.Sprintf("%s BASE_TYPE_MAX_LENGTH Must be %d or fewer in length.", path, n)
	}
	required := func(path string) string { return path + " BASE_TYPE_REQUIRED This field is required" }
	invalidURL := func(path string) string { return path + " URL_TYPE_INVALID_URL Not a well formed URL." }
	scheme := func(path, s string, image bool) string {
		allowed := "('http', 'https')"
		if image {
			allowed = "('http', 'https', 'attachment')"
		}
		return fmt.Sprintf(`%s URL_TYPE_INVALID_SCHEME Scheme "%s" is not supported. Scheme must be one of %s.`, path, s, allowed)
	}
	runBodyCases(t, []bodyCase{
		{name: "title of 257", body: embedBody(`{"title":"` + chars(257) + `"}`), want: []string{maxLen("embeds.0.title", 256)}},
		{name: "title in the second embed", body: embedBody(`{"title":"a"}`, `{"title":"`+chars(257)+`"}`), want: []string{maxLen("embeds.1.title", 256)}},
		{name: "title not a string", body: embedBody(`{"title":5}`), want: []string{`embeds.0.title STRING_TYPE_CONVERT Could not interpret "5" as string.`}},
		{name: "description of 4097", body: embedBody(`{"description":"` + chars(4097) + `"}`), want: []string{maxLen("embeds.0.description", 4096)}},
		{name: "url without a scheme", body: embedBody(`{"url":"example.com"}`), want: []string{invalidURL("embeds.0.url")}},
		{name: "url empty", body: embedBody(`{"url":""}`), want: []string{invalidURL("embeds.0.url")}},
		{name: "url with a space", body: embedBody(`{"url":"https://oldschool.runescape.wiki/w/Bandos chestplate"}`), want: []string{invalidURL("embeds.0.url")}},
		{name: "url with one slash", body: embedBody(`{"url":"https:/example.com"}`), want: []string{invalidURL("embeds.0.url")}},
		{name: "url without a host", body: embedBody(`{"url":"https://"}`, `{"url":"https://:443/a"}`, `{"url":"https://[::1/a"}`, `{"url":"https://example.com:port/a"}`),
			want: []string{invalidURL("embeds.0.url"), invalidURL("embeds.1.url"), invalidURL("embeds.2.url"), invalidURL("embeds.3.url")}},
		{name: "url of ftp", body: embedBody(`{"url":"ftp://example.com/a"}`), want: []string{scheme("embeds.0.url", "ftp", false)}},
		{name: "url of an attachment", body: embedBody(`{"url":"attachment://a.png"}`), want: []string{scheme("embeds.0.url", "attachment", false)}},
		{name: "url of 2049", body: embedBody(`{"url":"https://example.com/` + chars(2029) + `"}`), want: []string{maxLen("embeds.0.url", 2048)}},
		{name: "image url mistyped", body: embedBody(`{"image":{"url":"ttps://cdn.example.com/y.png"}}`), want: []string{scheme("embeds.0.image.url", "ttps", true)}},
		{name: "image without url", body: embedBody(`{"image":{}}`), want: []string{required("embeds.0.image.url")}},
		{name: "thumbnail a string", body: embedBody(`{"thumbnail":"https://example.com/a.png"}`), want: []string{"embeds.0.thumbnail MODEL_TYPE_CONVERT Expected an object/dictionary."}},
		{name: "thumbnail javascript", body: embedBody(`{"thumbnail":{"url":"javascript:alert(1)"}}`),
			want: []string{scheme("embeds.0.thumbnail.url", "javascript", true), invalidURL("embeds.0.thumbnail.url")}},
		{name: "timestamp in words", body: embedBody(`{"timestamp":"yesterday"}`), want: []string{"embeds.0.timestamp DATE_TIME_TYPE_PARSE Could not parse yesterday. Should be ISO8601."}},
		{name: "timestamp in milliseconds", body: embedBody(`{"timestamp":1500218461229}`), want: []string{"embeds.0.timestamp DATE_TIME_TYPE_PARSE Could not parse 1500218461229. Should be ISO8601."}},
		{name: "timestamp on no day", body: embedBody(`{"timestamp":"2023-02-29T00:00:00Z"}`), want: []string{"embeds.0.timestamp DATE_TIME_TYPE_PARSE Could not parse 2023-02-29T00:00:00Z. Should be ISO8601."}},
		{name: "timestamp far off", body: embedBody(`{"timestamp":"+6351130-11-22T20:12:29.056"}`), want: []string{"embeds.0.timestamp DATE_TIME_TYPE_PARSE Could not parse +6351130-11-22T20:12:29.056. Should be ISO8601."}},
		{name: "colour above white", body: embedBody(`{"color":16777216}`), want: []string{"embeds.0.color NUMBER_TYPE_MAX int value should be less than or equal to 16777215."}},
		{name: "colour below black", body: embedBody(`{"color":-1}`), want: []string{"embeds.0.color NUMBER_TYPE_MIN int value should be greater than or equal to 0."}},
		{name: "colour in hex", body: embedBody(`{"color":"0x303236"}`), want: []string{`embeds.0.color NUMBER_TYPE_COERCE Value "0x303236" is not int.`}},
		{name: "26 fields", body: embedBody(`{"fields":[` + strings.Repeat(`{"name":"n","value":"v"},`, 25) + `{"name":"n","value":"v"}]}`), want: []string{maxLen("embeds.0.fields", 25)}},
		{name: "field without name or value", body: embedBody(`{"fields":[{}]}`), want: []string{required("embeds.0.fields.0.name"), required("embeds.0.fields.0.value")}},
		{name: "field value empty or blank", body: embedBody(`{"fields":[{"name":"a","value":""},{"name":" \t","value":"b"}]}`),
			want: []string{required("embeds.0.fields.0.value"), required("embeds.0.fields.1.name")}},
		{name: "field of 257 and 1025", body: embedBody(`{"fields":[{"name":"` + chars(257) + `","value":"` + chars(1025) + `"}]}`),
			want: []string{maxLen("embeds.0.fields.0.name", 256), maxLen("embeds.0.fields.0.value", 1024)}},
		{name: "field inline not a boolean", body: embedBody(`{"fields":[{"name":"a","value":"b","inline":"yes"}]}`), want: []string{"embeds.0.fields.0.inline BOOLEAN_TYPE_CONVERT Must be either true or false."}},
		{name: "field not an object", body: embedBody(`{"fields":[null,"x"]}`),
			want: []string{"embeds.0.fields.0 LIST_ITEM_VALUE_REQUIRED List item values of ModelType are required", "embeds.0.fields.1 MODEL_TYPE_CONVERT Expected an object/dictionary."}},
		{name: "fields not a list", body: embedBody(`{"fields":{}}`), want: []string{"embeds.0.fields LIST_TYPE_CONVERT Only iterables may be used in a ListType."}},
		{name: "footer without text", body: embedBody(`{"footer":{"icon_url":"https://example.com/i.png"}}`), want: []string{required("embeds.0.footer.text")}},
		{name: "footer of 2049", body: embedBody(`{"footer":{"text":"` + chars(2049) + `"}}`), want: []string{maxLen("embeds.0.footer.text", 2048)}},
		{name: "footer icon of data", body: embedBody(`{"footer":{"text":"a","icon_url":"data:image/png;base64,iVBORw0KGgo="}}`),
			want: []string{scheme("embeds.0.footer.icon_url", "data", true), invalidURL("embeds.0.footer.icon_url")}},
		{name: "author without name", body: embedBody(`{"author":{"url":"https://example.com"}}`), want: []string{required("embeds.0.author.name")}},
		{name: "author of 257, url of an attachment", body: embedBody(`{"author":{"name":"` + chars(257) + `","url":"attachment://a.png","icon_url":"attachment://a.png"}}`),
			want: []string{maxLen("embeds.0.author.name", 256), scheme("embeds.0.author.url", "attachment", false)}},
		{name: "6001 characters in one embed", body: embedBody(`{"description":"` + chars(4096) + `","fields":[{"name":"n","value":"` + chars(1023) + `"}],"footer":{"text":"` + chars(881) + `"}}`),
			want: []string{"embeds MAX_EMBED_SIZE_EXCEEDED Embed size exceeds maximum size of 6000"}},
		{name: "6001 characters in two embeds", body: embedBody(`{"description":"`+chars(3000)+`"}`, `{"description":"`+chars(3001)+`"}`),
			want: []string{"embeds MAX_EMBED_SIZE_EXCEEDED Embed size exceeds maximum size of 6000"}},
		{name: "ten titles of 256 and a description each", body: embedBody(strings.Repeat(`{"title":"`+chars(256)+`","description":"`+chars(400)+`"},`, 9) + `{"title":"` + chars(256) + `"}`),
			want: []string{"embeds MAX_EMBED_SIZE_EXCEEDED Embed size exceeds maximum size of 6000"}},
		{name: "an embed that is not an object", body: embedBody(`5`), want: []string{"embeds.0 MODEL_TYPE_CONVERT Expected an object/dictionary."}},
	})
}
