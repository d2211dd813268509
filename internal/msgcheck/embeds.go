package msgcheck

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/form"
)

// Embed limits (message.mdx, "Embed Limits"), counted in characters
// (code points) once leading and trailing white space is trimmed, as the
// real service trims it.
const (
	MaxEmbedTitle       = 256
	MaxEmbedDescription = 4096
	MaxEmbedFields      = 25
	MaxEmbedFieldName   = 256
	MaxEmbedFieldValue  = 1024
	MaxEmbedFooterText  = 2048
	MaxEmbedAuthorName  = 256
	MaxEmbedsTotal      = 6000 // title, description, field names and values, footer text and author name of all a message's embeds
	MaxEmbedURL         = 2048
	MaxEmbedColor       = 0xFFFFFF
)

// Codes and messages of embed errors, as real error bodies show them
// (docs/compat.md, "Message bodies: embeds, mentions, polls").
const (
	CodeEmbedSizeExceeded = "MAX_EMBED_SIZE_EXCEEDED"
	MsgEmbedSizeExceeded  = "Embed size exceeds maximum size of 6000"
	CodeDateTimeParse     = "DATE_TIME_TYPE_PARSE"
)

// MsgDateTimeParse is the message of CodeDateTimeParse for the value v.
func MsgDateTimeParse(v any) string {
	return fmt.Sprintf("Could not parse %s. Should be ISO8601.", form.Repr(v))
}

// The schemes an embed's links may use (message.mdx, "Embed Author
// Structure" and the others): pages only over http(s), images also from
// the message's own attachments.
var (
	linkURLSchemes  = []string{"http", "https"}
	imageURLSchemes = []string{"http", "https", "attachment"}
)

// Embeds checks a message's embeds (a list the caller has capped at 10
// objects): each field's limits and the 6,000-character total, which
// the real service reports on the list itself.
func Embeds(list []any, at *apierr.Fields) {
	total := 0
	for i, item := range list {
		e, ok := form.AsObject(item, at.At(i))
		if !ok {
			continue
		}
		total += embed(e)
	}
	if total > MaxEmbedsTotal {
		at.Add(CodeEmbedSizeExceeded, MsgEmbedSizeExceeded)
	}
}

// embed checks one embed and returns the characters it counts towards
// the message's total. type, video and provider are not checked: the
// real service keeps a webhook embed "rich" and fills the others itself.
func embed(e form.Object) int {
	size := trimmedText(e, "title", MaxEmbedTitle, false)
	size += trimmedText(e, "description", MaxEmbedDescription, false)
	embedURL(e, "url", linkURLSchemes, false)
	if v, ok := e.Value("timestamp"); ok {
		if s, isStr := v.(string); !isStr || !isISO8601(s) {
			e.At("timestamp").Add(CodeDateTimeParse, MsgDateTimeParse(v))
		}
	}
	e.IntIn("color", 0, MaxEmbedColor)
	if f, ok := nested(e, "footer"); ok {
		size += trimmedText(f, "text", MaxEmbedFooterText, true)
		embedURL(f, "icon_url", imageURLSchemes, false)
	}
	for _, key := range []string{"image", "thumbnail"} {
		if img, ok := nested(e, key); ok {
			embedURL(img, "url", imageURLSchemes, true)
		}
	}
	if a, ok := nested(e, "author"); ok {
		size += trimmedText(a, "name", MaxEmbedAuthorName, true)
		embedURL(a, "url", linkURLSchemes, false)
		embedURL(a, "icon_url", imageURLSchemes, false)
	}
	size += embedFields(e)
	return size
}

// embedFields checks an embed's fields (at most 25, each with a name and
// a value) and returns their characters.
func embedFields(e form.Object) int {
	l, ok := e.List("fields")
	if !ok {
		return 0
	}
	if len(l) > MaxEmbedFields {
		e.At("fields").Add(form.CodeMaxLength, form.MsgMaxLength(MaxEmbedFields))
	}
	size := 0
	for i, item := range l {
		f, ok := form.AsObject(item, e.At("fields", i))
		if !ok {
			continue
		}
		size += trimmedText(f, "name", MaxEmbedFieldName, true)
		size += trimmedText(f, "value", MaxEmbedFieldValue, true)
		f.Bool("inline")
	}
	return size
}

// nested reads key as an object (MODEL_TYPE_CONVERT otherwise); absent
// or null is not ok and records nothing.
func nested(o form.Object, key string) (form.Object, bool) {
	v, ok := o.Value(key)
	if !ok {
		return form.Object{}, false
	}
	return form.AsObject(v, o.At(key))
}

// trimmedText reads key as a string of at most max characters once
// trimmed (BASE_TYPE_MAX_LENGTH) and returns that length. A required one
// that is absent, null or blank is BASE_TYPE_REQUIRED: the real service
// refuses an empty field value as missing.
func trimmedText(o form.Object, key string, max int, required bool) int {
	s, ok := o.Str(key)
	if !ok {
		if required && !o.Present(key) {
			o.At(key).Add(form.CodeRequired, form.MsgRequired)
		}
		return 0
	}
	n := utf8.RuneCountInString(TrimEmbedText(s))
	switch {
	case n == 0 && required:
		o.At(key).Add(form.CodeRequired, form.MsgRequired)
	case n > max:
		o.At(key).Add(form.CodeMaxLength, form.MsgMaxLength(max))
	}
	return n
}

// TrimEmbedText trims an embed text as the real service does before it
// counts and stores it (message.mdx, "Embed Limits": "Leading and
// trailing whitespace characters are not included (they are trimmed
// automatically)").
func TrimEmbedText(s string) string { return strings.TrimFunc(s, isPythonSpace) }

// isPythonSpace is the white space the real service (Python's str.strip)
// trims: Unicode's, and the four information separators Python counts.
func isPythonSpace(r rune) bool {
	return unicode.IsSpace(r) || (r >= 0x1C && r <= 0x1F)
}

// embedURL checks key as a URL of at most 2,048 characters whose scheme
// is one of schemes (URL_TYPE_INVALID_SCHEME) and that is well formed
// (URL_TYPE_INVALID_URL): a scheme, "//", a host, no white space. A
// value that has no scheme at all is only ill-formed.
func embedURL(o form.Object, key string, schemes []string, required bool) {
	if required && !o.Present(key) {
		o.At(key).Add(form.CodeRequired, form.MsgRequired)
		return
	}
	s, ok := o.Str(key)
	if !ok {
		return
	}
	at := o.At(key)
	if utf8.RuneCountInString(s) > MaxEmbedURL {
		at.Add(form.CodeMaxLength, form.MsgMaxLength(MaxEmbedURL))
		return
	}
	checkURL(at, s, schemes)
}

// isISO8601 reports whether s is an ISO 8601 date or date and time:
// YYYY-MM-DD, then optionally "T" (or a space) and hh:mm, optional
// seconds with a fraction, and an optional "Z" or ±hh[:mm] offset.
func isISO8601(s string) bool {
	date, rest, ok := digits(s, 4, "-")
	if !ok {
		return false
	}
	month, rest, ok := digits(rest, 2, "-")
	if !ok {
		return false
	}
	day, rest, ok := digits(rest, 2, "")
	if !ok || !validDate(date, month, day) {
		return false
	}
	if rest == "" {
		return true
	}
	if rest[0] != 'T' && rest[0] != 't' && rest[0] != ' ' {
		return false
	}
	hour, rest, ok := digits(rest[1:], 2, ":")
	if !ok || hour > 23 {
		return false
	}
	minute, rest, ok := digits(rest, 2, "")
	if !ok || minute > 59 {
		return false
	}
	if strings.HasPrefix(rest, ":") {
		var second int
		second, rest, ok = digits(rest[1:], 2, "")
		if !ok || second > 59 {
			return false
		}
		if strings.HasPrefix(rest, ".") || strings.HasPrefix(rest, ",") {
			n := 1
			for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
				n++
			}
			if n == 1 {
				return false
			}
			rest = rest[n:]
		}
	}
	return validZone(rest)
}

// validZone reports whether s is empty, "Z" or a ±hh[[:]mm] offset.
func validZone(s string) bool {
	switch {
	case s == "" || s == "Z" || s == "z":
		return true
	case s[0] != '+' && s[0] != '-':
		return false
	}
	hour, rest, ok := digits(s[1:], 2, "")
	if !ok || hour > 23 {
		return false
	}
	rest = strings.TrimPrefix(rest, ":")
	if rest == "" {
		return true
	}
	minute, rest, ok := digits(rest, 2, "")
	return ok && rest == "" && minute <= 59
}

// digits reads n decimal digits from the start of s, then sep.
func digits(s string, n int, sep string) (int, string, bool) {
	if len(s) < n {
		return 0, s, false
	}
	v := 0
	for _, c := range []byte(s[:n]) {
		if c < '0' || c > '9' {
			return 0, s, false
		}
		v = v*10 + int(c-'0')
	}
	if !strings.HasPrefix(s[n:], sep) {
		return 0, s, false
	}
	return v, s[n+len(sep):], true
}

// validDate reports whether year-month-day is a day of the calendar.
func validDate(year, month, day int) bool {
	if year < 1 || month < 1 || month > 12 || day < 1 {
		return false
	}
	days := [...]int{31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31}[month-1]
	if month == 2 && year%4 == 0 && (year%100 != 0 || year%400 == 0) {
		days = 29
	}
	return day <= days
}
