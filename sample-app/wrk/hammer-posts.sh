#!/usr/bin/env bash
# Hammers the sample's `posts` limit (5 per 10 s per user) with wrk, then reads back the times of the
# posts the server accepted and prints the most that fell in any 10 s. A post's time is taken after its
# rate-limit decision, a few ms later under load, so two bursts exactly one period apart can look a few
# ms closer than they were; SampleLoadTests checks the decisions' own Redis times instead.
# Usage: sample-app/wrk/hammer-posts.sh [base-url] [seconds] [connections]
# The sample must be running (README: the first command); wrk comes from Debian's `wrk` package.
set -euo pipefail
base=${1:-http://localhost:8080}
seconds=${2:-30}
connections=${3:-16}
here=$(cd "$(dirname "$0")" && pwd)
name="wrk$(date +%s)"
session=$(curl -sf -X POST "$base/api/register" -H 'Content-Type: application/json' \
  -d "{\"name\":\"$name\",\"password\":\"secret-$name\"}")
secret=$(printf '%s' "$session" | sed -n 's/.*"secret":"\([^"]*\)".*/\1/p')
echo "user $name; wrk -t2 -c$connections -d${seconds}s POST $base/api/posts"
REDKIT_SECRET=$secret wrk -t2 -c"$connections" -d"${seconds}s" -s "$here/posts.lua" "$base/api/posts"
# the accepted posts, newest first, with the server's time of each (epoch ms)
curl -sf "$base/api/users/$name/posts?page=0&size=50" | grep -o '"time":[0-9]*' | cut -d: -f2 | sort -n > /tmp/redkit-posts-$name
accepted=$(wc -l < /tmp/redkit-posts-$name)
busiest=$(awk '{ t[NR] = $1 } END { best = 0; j = 1;
  for (i = 1; i <= NR; i++) { while (t[i] - t[j] >= 10000) j++; if (i - j + 1 > best) best = i - j + 1 }
  print best }' /tmp/redkit-posts-$name)
echo "accepted posts: $accepted in ${seconds} s; the most in any 10 s: $busiest (bound: 5)"
test "$busiest" -le 5
