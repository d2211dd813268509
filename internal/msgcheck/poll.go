package msgcheck

import (
	"unicode/utf8"

	"github.com/slashd/slashd/internal/apierr"
	"github.com/slashd/slashd/internal/form"
)

// Poll limits (poll.mdx, "Poll Create Request Object" and "Poll Media
// Object"; the discord.js builders' poll assertions agree).
const (
	MaxPollQuestion   = 300
	MaxPollAnswerText = 55
	MaxPollAnswers    = 10
	MaxPollHours      = 768 // 32 days
	maxPollEmojiName  = 32
)

// pollLayouts are the layout types a poll may have: DEFAULT only.
var pollLayouts = []int{1}

// Poll checks a poll request object: question {text 1–300}, answers 1–10
// of {poll_media {text 1–55, emoji}}, duration 1–768 hours,
// allow_multiselect a boolean, layout_type 1. Fields of the response's
// poll (answer_id, expiry, results) are ignored, as the real service
// ignores them in a request.
func Poll(m map[string]any, at *apierr.Fields) {
	o, _ := form.AsObject(m, at)
	if o.Require("question") {
		if q, ok := nested(o, "question"); ok {
			pollText(q, MaxPollQuestion)
		}
	}
	if o.Require("answers") {
		pollAnswers(o)
	}
	o.IntIn("duration", 1, MaxPollHours)
	o.Bool("allow_multiselect")
	o.Choice("layout_type", pollLayouts)
}

// pollAnswers checks a poll's answers: 1 to 10 objects, each with its
// poll_media.
func pollAnswers(o form.Object) {
	l, ok := o.List("answers")
	if !ok {
		return
	}
	if len(l) < 1 || len(l) > MaxPollAnswers {
		o.At("answers").Add(form.CodeBadLength, form.MsgBadLength(1, MaxPollAnswers))
		return
	}
	for i, item := range l {
		a, ok := form.AsObject(item, o.At("answers", i))
		if !ok || !a.Require("poll_media") {
			continue
		}
		media, ok := nested(a, "poll_media")
		if !ok {
			continue
		}
		pollText(media, MaxPollAnswerText)
		if e, ok := nested(media, "emoji"); ok {
			pollEmoji(e)
		}
	}
}

// pollText checks a poll media's text: required, 1 to max characters.
func pollText(media form.Object, max int) {
	if media.Require("text") {
		media.StrLen("text", 1, max)
	}
}

// pollEmoji checks an answer's partial emoji: an id (a custom emoji) or
// a name (a Unicode one).
func pollEmoji(e form.Object) {
	e.Snowflake("id")
	if s, ok := e.Str("name"); ok && utf8.RuneCountInString(s) > maxPollEmojiName {
		e.At("name").Add(form.CodeMaxLength, form.MsgMaxLength(maxPollEmojiName))
	}
	e.Bool("animated")
}
