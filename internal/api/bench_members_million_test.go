package api_test

import "testing"

// BenchmarkRatioMembersMillion is BenchmarkRatioMembers at the size
// docs/scaling.md plans for: an invocation in a guild of 1,000,000
// members against one in a guild of 10, same store, same server, same
// app, alternating, with the big guild's seed time and uncached
// MemberCount.
//
//	go test -run '^$' -bench RatioMembersMillion -benchtime 2000x -timeout 30m ./internal/api
func BenchmarkRatioMembersMillion(b *testing.B) { benchmarkGuildSize(b, 1_000_000) }
