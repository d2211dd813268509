#!/bin/bash
# pg-members.sh: a 1,000,000-member guild on PostgreSQL (docs/scaling.md):
# bytes per member (users and members, heap and indexes), the bulk insert
# and COUNT(*) over the guild's members. It makes a schema of its own on
# the tests' local server, migrates it with `slashd serve`, fills it with
# generate_series and drops it at the end.
#
#	go build -o /tmp/slashd ./cmd/slashd
#	tools/scaling/pg-members.sh /tmp/slashd [members]
set -euo pipefail
SLASHD=${1:?usage: pg-members.sh SLASHD_BINARY [MEMBERS]}
N=${2:-1000000}
SERVER=${SLASHD_TEST_POSTGRES:-postgres://postgres@127.0.0.1:5432/test?sslmode=disable}
S=scaling_members_$$
D=$(mktemp -d)
psql "$SERVER" -qc "CREATE SCHEMA $S"
trap 'psql "$SERVER" -qc "SET client_min_messages = warning; DROP SCHEMA $S CASCADE" >/dev/null; rm -rf "$D"' EXIT
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
case "$SERVER" in *\?*) STORE="$SERVER&search_path=$S" ;; *) STORE="$SERVER?search_path=$S" ;; esac
"$SLASHD" serve --addr 127.0.0.1:$PORT --data "$D" --store "$STORE" \
	--ratelimit=false --ui=false >"$D/serve.log" 2>&1 &
P=$!
until curl -sf http://127.0.0.1:$PORT/healthz >/dev/null; do
	if ! kill -0 $P 2>/dev/null; then cat "$D/serve.log" >&2; exit 1; fi
	sleep 0.2
done
kill -TERM $P
wait $P || true
G=$(python3 -c "import json, sys; print(json.load(open(sys.argv[1]))['guild_id'])" "$D/bootstrap.json")
psql "$SERVER" -v ON_ERROR_STOP=1 <<SQL
SET search_path = $S;
\timing on
INSERT INTO users (id, username, created_at) SELECT 1000000000000 + g, 'member' || g, 0 FROM generate_series(1, $N) g;
INSERT INTO members (guild_id, user_id, joined_at) SELECT $G, 1000000000000 + g, 0 FROM generate_series(1, $N) g;
SELECT count(*) AS outbox_rows FROM world_events;
DELETE FROM world_events WHERE guild_id = $G AND kind = 'member';
\timing off
VACUUM ANALYZE users; VACUUM ANALYZE members;
SELECT relname, pg_relation_size(oid) AS heap, pg_indexes_size(oid) AS indexes, pg_total_relation_size(oid) AS total
  FROM pg_class WHERE relnamespace = '$S'::regnamespace AND relname IN ('users', 'members');
\timing on
SELECT COUNT(*) FROM members WHERE guild_id = $G;
SELECT COUNT(*) FROM members WHERE guild_id = $G;
SELECT COUNT(*) FROM members WHERE guild_id = $G;
SQL
