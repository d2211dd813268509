// Package clienttest holds compatibility tests that drive slashd with real,
// unmodified Discord client libraries (discordgo and disgo, and the
// discord.js v14 guide's bot and scripts, run with Node.js from discordjs/) instead of
// hand-written HTTP requests, over REST and the gateway. Each test starts the real API on a fresh
// store (internal/testenv), aims a library at it the way a bot developer
// would, and decodes every response through the library's own types, so a
// wire-format difference from the real service (a snowflake sent as a
// number, a null where a string is expected, a missing field, an error
// envelope the library cannot read) fails here.
//
// The package has no non-test code besides this comment.
package clienttest
