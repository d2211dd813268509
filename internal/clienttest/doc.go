// Package clienttest holds compatibility tests that drive slashd with real,
// unmodified Discord client libraries (discordgo and disgo here; in
// subpackages, programs run outside Go: the discord.js v14 guide's bot and
// scripts in discordjs, discord.py 2.2's app-commands example in
// discordpy, Oceanic.js's README bot in oceanic, Discordeno's guide bot
// in discordeno, slash-create's webserver example in slashcreate,
// Discord's discord-interactions example-app pattern in exampleapp, each
// running no test where its program is missing; arikawa's README bot in
// arikawa, a Go package of its own because arikawa is aimed by
// reassigning its package-level endpoint variables) instead of hand-written HTTP requests, over REST and the
// gateway. Each test starts the real API on a fresh
// store (internal/testenv), aims a library at it the way a bot developer
// would, and decodes every response through the library's own types, so a
// wire-format difference from the real service (a snowflake sent as a
// number, a null where a string is expected, a missing field, an error
// envelope the library cannot read) fails here.
//
// The Go libraries run their own examples (discordgo v0.29.0's examples/,
// disgo v0.19.6's _examples/), each test naming the one it runs, with the
// libraries' default options: the only change is where they connect. A
// member on the other side runs the commands, clicks the components,
// types in autocomplete options and submits the modals through slashd's
// client API, and checks what every party sees.
//
// The package has no non-test code besides this comment (subpackage
// netlink is the network its gateway tests cut).
package clienttest
