#!/bin/bash
# Redis instructions per budget spend without and with an operation id (issue 43), counted
# with callgrind: load-independent, unlike the throughput suites on a shared machine.
# Usage (from the repository root): benchmarks/budget-callgrind.sh
#   N=20000 spends counted per kind, W=2000 before them not counted; ONLY=1 runs only the
#   caller's id and the replay. Needs valgrind, redis-server, redis-cli, redis-benchmark.
set -eu
SCRIPTS=autoconfigure/src/main/resources/META-INF/redkit/scripts
WORK=$(mktemp -d)
PORT=${PORT:-23999}
N=${N:-20000}
MAX=9007199254740991
# the script as Redkit sends it: "--#include <name>" lines replaced by their source
python3 - "$SCRIPTS" "$WORK/budget_apply.lua" <<'PY'
import re, sys
scripts, out = sys.argv[1], sys.argv[2]
source = open(scripts + '/budget_apply.lua').read()
expand = lambda m: open(scripts + '/' + m.group(1) + '.lua').read()
open(out, 'w').write(re.sub(r'(?m)^--#include (\w+)$', expand, source))
PY
valgrind --tool=callgrind --callgrind-out-file="$WORK/cg.out" redis-server --port "$PORT" --save "" \
	--appendonly no > "$WORK/valgrind.log" 2>&1 &
VG=$!
trap 'redis-cli -p $PORT SHUTDOWN NOSAVE > /dev/null 2>&1 || true' EXIT
until redis-cli -p "$PORT" PING 2> /dev/null | grep -q PONG; do sleep 1; done
SHA=$(redis-cli -p "$PORT" -x SCRIPT LOAD < "$WORK/budget_apply.lua")
# Redkit's key names for a 43-character budget name; ids as long as a UUID
B='redkit:budget:{redkit:0f9c2a51-7c1e-4d0b-9a34-6f1f2d3c4b5a}'
ID='0f9c2a51-7c1e-4d0b-9a34-__rand_int__'
run() { # a name, then the command
	local name=$1
	shift
	redis-cli -p "$PORT" FLUSHALL > /dev/null
	redis-cli -p "$PORT" SET "$B:balance" "$MAX" > /dev/null
	redis-benchmark -p "$PORT" -c 1 -n "${W:-2000}" -r 100000000000 "$@" > /dev/null
	callgrind_control -z "$VG" > /dev/null
	redis-benchmark -p "$PORT" -c 1 -n "$N" -r 100000000000 "$@" > /dev/null
	callgrind_control -d "$name" "$VG" > /dev/null
	local instructions
	instructions=$(grep -h '^summary:' "$(ls -t "$WORK"/cg.out.* | head -1)" | awk '{print $2}')
	echo "$name: $((instructions / N)) instructions per call ($instructions over $N)"
}
if [ -z "${ONLY:-}" ]; then
	run ping PING
	run spend-without-id EVALSHA "$SHA" 3 "$B:balance" "$B:reservations" "$B:deadlines" spend 1 "" 0 0 "$MAX"
	run spend-generated-id EVALSHA "$SHA" 4 "$B:balance" "$B:reservations" "$B:deadlines" "$B:op:once:$ID" \
		spend 1 "" 0 120000 "$MAX"
fi
run spend-callers-id EVALSHA "$SHA" 4 "$B:balance" "$B:reservations" "$B:deadlines" "$B:op:spend:$ID" \
	spend 1 "" 0 172800000 "$MAX"
run spend-replayed EVALSHA "$SHA" 4 "$B:balance" "$B:reservations" "$B:deadlines" \
	"$B:op:once:0f9c2a51-7c1e-4d0b-9a34-000000000001" spend 1 "" 0 120000 "$MAX"
echo "callgrind files: $WORK"
