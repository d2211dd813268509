#!/bin/bash
# bot-guilds.sh: a bot in 100,000 small guilds (docs/scaling.md): the
# seed's time and disk, then the read that picks one shard's guilds
# (shard 3 of 40) from the covering index members_by_user_guild, three
# times, with sqlite3's timer.
#
#	tools/scaling/bot-guilds.sh [guilds] [shards]
set -euo pipefail
GUILDS=${1:-100000}
SHARDS=${2:-40}
D=$(mktemp -d)
trap 'rm -rf "$D"' EXIT
go build -o "$D/seed" ./tools/seed
/usr/bin/time -v "$D/seed" -data "$D/data" -guilds "$GUILDS" -commands "$GUILDS" -members 1 -channels 1 -bot-in all 2>&1 |
	grep -E 'seeded|User time|System time|Elapsed'
du -sb "$D/data"
BOT=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['application_id'])" "$D/data/bootstrap.json")
Q="SELECT count(*) FROM (SELECT guild_id FROM members WHERE user_id = $BOT AND (guild_id >> 22) % $SHARDS = 3 ORDER BY guild_id);"
sqlite3 "$D/data/slashd.db" <<SQL
.timer on
$Q
$Q
$Q
EXPLAIN QUERY PLAN SELECT guild_id FROM members WHERE user_id = $BOT AND (guild_id >> 22) % $SHARDS = 3 ORDER BY guild_id;
SQL
