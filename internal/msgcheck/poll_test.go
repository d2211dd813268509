package msgcheck

import (
	"strings"
	"testing"
)

// docsPoll is the poll of discord-api-docs#6871, a request the real
// service takes (answer_id, a response field, is ignored).
const docsPoll = `{"question":{"text":"Test Question"},"answers":[{"answer_id":1,"poll_media":{"text":"Yes"}},
	{"answer_id":2,"poll_media":{"text":"No"}}],"duration":72,"allow_multiselect":false,"layout_type":1}`

// answers is n answers of the given text.
func answers(n int, text string) string {
	return `[` + strings.TrimSuffix(strings.Repeat(`{"poll_media":{"text":"`+text+`"}},`, n), ",") + `]`
}

func TestPoll(t *testing.T) {
	poll := func(p string) string { return `{"poll":` + p + `}` }
	withAnswers := func(a string) string { return poll(`{"question":{"text":"q"},"answers":` + a + `}`) }
	runBodyCases(t, []bodyCase{
		{name: "the docs' poll", body: poll(docsPoll)},
		{name: "the least poll", body: withAnswers(answers(1, "a"))},
		{name: "every limit", body: poll(`{"question":{"text":"` + chars(300) + `"},"answers":` + answers(10, chars(55)) + `,"duration":768}`)},
		{name: "emoji", body: withAnswers(`[{"poll_media":{"text":"a","emoji":{"name":"👍"}}},{"poll_media":{"text":"b","emoji":{"id":"41771983429993937"}}}]`)},
		{name: "nulls", body: poll(`{"question":{"text":"q"},"answers":` + answers(2, "a") + `,"duration":null,"allow_multiselect":null,"layout_type":null}`)},
		{name: "response fields ignored", body: poll(`{"question":{"text":"q"},"answers":` + answers(2, "a") + `,"expiry":"x","results":5}`)},

		{name: "empty", body: poll(`{}`), want: []string{"poll.question BASE_TYPE_REQUIRED This field is required", "poll.answers BASE_TYPE_REQUIRED This field is required"}},
		{name: "question without text", body: poll(`{"question":{},"answers":` + answers(1, "a") + `}`), want: []string{"poll.question.text BASE_TYPE_REQUIRED This field is required"}},
		{name: "question empty", body: poll(`{"question":{"text":""},"answers":` + answers(1, "a") + `}`), want: []string{"poll.question.text BASE_TYPE_BAD_LENGTH Must be between 1 and 300 in length."}},
		{name: "question of 301", body: poll(`{"question":{"text":"` + chars(301) + `"},"answers":` + answers(1, "a") + `}`), want: []string{"poll.question.text BASE_TYPE_BAD_LENGTH Must be between 1 and 300 in length."}},
		{name: "question a string", body: poll(`{"question":"q","answers":` + answers(1, "a") + `}`), want: []string{"poll.question MODEL_TYPE_CONVERT Expected an object/dictionary."}},
		{name: "no answers", body: withAnswers(`[]`), want: []string{"poll.answers BASE_TYPE_BAD_LENGTH Must be between 1 and 10 in length."}},
		{name: "11 answers", body: withAnswers(answers(11, "a")), want: []string{"poll.answers BASE_TYPE_BAD_LENGTH Must be between 1 and 10 in length."}},
		{name: "answer without media", body: withAnswers(`[{"answer_id":1}]`), want: []string{"poll.answers.0.poll_media BASE_TYPE_REQUIRED This field is required"}},
		{name: "answer without text", body: withAnswers(`[{"poll_media":{"emoji":{"name":"👍"}}}]`), want: []string{"poll.answers.0.poll_media.text BASE_TYPE_REQUIRED This field is required"}},
		{name: "answer of 56", body: withAnswers(answers(2, chars(56))),
			want: []string{"poll.answers.0.poll_media.text BASE_TYPE_BAD_LENGTH Must be between 1 and 55 in length.", "poll.answers.1.poll_media.text BASE_TYPE_BAD_LENGTH Must be between 1 and 55 in length."}},
		{name: "emoji id not a snowflake", body: withAnswers(`[{"poll_media":{"text":"a","emoji":{"id":"x"}}}]`), want: []string{`poll.answers.0.poll_media.emoji.id NUMBER_TYPE_COERCE Value "x" is not snowflake.`}},
		{name: "duration 0", body: poll(`{"question":{"text":"q"},"answers":` + answers(1, "a") + `,"duration":0}`), want: []string{"poll.duration NUMBER_TYPE_MIN int value should be greater than or equal to 1."}},
		{name: "duration 769", body: poll(`{"question":{"text":"q"},"answers":` + answers(1, "a") + `,"duration":769}`), want: []string{"poll.duration NUMBER_TYPE_MAX int value should be less than or equal to 768."}},
		{name: "duration in words", body: poll(`{"question":{"text":"q"},"answers":` + answers(1, "a") + `,"duration":"a day"}`), want: []string{`poll.duration NUMBER_TYPE_COERCE Value "a day" is not int.`}},
		{name: "layout 2", body: poll(`{"question":{"text":"q"},"answers":` + answers(1, "a") + `,"layout_type":2}`), want: []string{"poll.layout_type BASE_TYPE_CHOICES Value must be one of (1,)."}},
		{name: "multiselect not a boolean", body: poll(`{"question":{"text":"q"},"answers":` + answers(1, "a") + `,"allow_multiselect":"no"}`), want: []string{"poll.allow_multiselect BOOLEAN_TYPE_CONVERT Must be either true or false."}},
	})
}

// TestBodyAllRules: one body breaking a rule of each part gets every
// error at once, as one 400 names them all.
func TestBodyAllRules(t *testing.T) {
	runBodyCases(t, []bodyCase{{
		name: "embed, mentions and poll",
		body: `{"content":"x","embeds":[{"title":"` + chars(257) + `"}],"allowed_mentions":{"parse":["users"],"users":["1"]},"poll":{"question":{"text":"q"},"answers":[]}}`,
		want: []string{
			"embeds.0.title BASE_TYPE_MAX_LENGTH Must be 256 or fewer in length.",
			`allowed_mentions MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE parse:["users"] and users: [ids...] are mutually exclusive.`,
			"poll.answers BASE_TYPE_BAD_LENGTH Must be between 1 and 10 in length.",
		},
	}})
}
