package msgcheck

import (
	"strconv"
	"strings"
	"testing"
)

// ids is n distinct snowflakes as a JSON list's items.
func ids(n int) string {
	out := make([]string, n)
	for i := range out {
		out[i] = `"` + strconv.Itoa(1000+i) + `"`
	}
	return strings.Join(out, ",")
}

func TestAllowedMentions(t *testing.T) {
	mentions := func(o string) string { return `{"content":"x","allowed_mentions":` + o + `}` }
	exclusive := func(kind string) string {
		return `allowed_mentions MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE parse:["` + kind + `"] and ` + kind + `: [ids...] are mutually exclusive.`
	}
	runBodyCases(t, []bodyCase{
		// message.mdx, "Allowed Mentions Examples": the valid ones.
		{name: "parse nothing", body: mentions(`{"parse":[]}`)},
		{name: "parse all", body: mentions(`{"parse":["users","roles","everyone"]}`)},
		{name: "parse beside an empty list", body: mentions(`{"parse":["users","roles"],"users":[]}`)},
		{name: "parse beside a null list", body: mentions(`{"parse":["users","roles"],"users":null,"roles":null}`)},
		{name: "everyone beside users", body: mentions(`{"parse":["everyone"],"users":["1234","5678"]}`)},
		{name: "ids not in the content", body: mentions(`{"users":["123","456"]}`)},
		{name: "roles and replied_user", body: mentions(`{"roles":["1",2],"replied_user":true}`)},
		{name: "100 of each", body: mentions(`{"users":[` + ids(100) + `],"roles":[` + ids(100) + `]}`)},
		{name: "empty", body: mentions(`{}`)},

		{name: "parse and users", body: mentions(`{"parse":["users"],"users":["1234","5678"]}`), want: []string{exclusive("users")}},
		{name: "parse and roles", body: mentions(`{"parse":["roles","everyone"],"roles":["1"]}`), want: []string{exclusive("roles")}},
		{name: "parse and both", body: mentions(`{"parse":["roles","users"],"roles":["1"],"users":["2"]}`), want: []string{exclusive("users"), exclusive("roles")}},
		{name: "unknown type", body: mentions(`{"parse":["user"]}`),
			want: []string{"allowed_mentions.parse.0 BASE_TYPE_CHOICES Value must be one of ('roles', 'users', 'everyone')."}},
		{name: "type not a string", body: mentions(`{"parse":["users",1]}`), want: []string{`allowed_mentions.parse.1 STRING_TYPE_CONVERT Could not interpret "1" as string.`}},
		{name: "parse not a list", body: mentions(`{"parse":"users"}`), want: []string{"allowed_mentions.parse LIST_TYPE_CONVERT Only iterables may be used in a ListType."}},
		{name: "101 users", body: mentions(`{"users":[` + ids(101) + `]}`), want: []string{"allowed_mentions.users BASE_TYPE_MAX_LENGTH Must be 100 or fewer in length."}},
		{name: "101 roles", body: mentions(`{"roles":[` + ids(101) + `]}`), want: []string{"allowed_mentions.roles BASE_TYPE_MAX_LENGTH Must be 100 or fewer in length."}},
		{name: "a user twice", body: mentions(`{"users":["305389581304463360","1","305389581304463360"]}`),
			want: []string{"allowed_mentions.users.2 SET_TYPE_ALREADY_CONTAINS_VALUE The set already contains this value"}},
		{name: "a role twice, once as a number", body: mentions(`{"roles":["7",7]}`),
			want: []string{"allowed_mentions.roles.1 SET_TYPE_ALREADY_CONTAINS_VALUE The set already contains this value"}},
		{name: "not a snowflake", body: mentions(`{"users":["abc"]}`), want: []string{`allowed_mentions.users.0 NUMBER_TYPE_COERCE Value "abc" is not snowflake.`}},
		{name: "replied_user not a boolean", body: mentions(`{"replied_user":"yes"}`), want: []string{"allowed_mentions.replied_user BOOLEAN_TYPE_CONVERT Must be either true or false."}},
	})
}
