#!/usr/bin/env bash
# Who wakes a Pulse server's main thread in a drain (docs/design/hot-path.md §63). Runs one
# 20,000-job drain of one node on MariaDB (`bench/build/burn-down.js`, built by `npm run build`),
# and once the drain has run for a second and a half records the kernel's wake-ups of every task
# for a few seconds (`perf record -e sched:sched_waking`, as root). Prints how many times the
# server's main thread was woken, by whom: MariaDB's threads (its answers), the worker processes
# (their calls), the idle task (a timer that expired while the core idled), the server's own
# threads, or anything else; each also a job, by the drain's own rate.
#
#   bash bench/probes/wakers.sh [seconds]     # default 4
#
# Environment variables reach the server nodes as in any burn-down (WEAVE_BENCH_NODE_ARGS, or a
# probe's own switch): `WEAVE_X=1 bash bench/probes/wakers.sh` runs the drain with WEAVE_X=1.
set -euo pipefail
cd "$(dirname "$0")/../.."
seconds=${1:-4}
command -v perf > /dev/null || { echo 'wakers.sh: needs perf (apt-get install linux-perf)' >&2; exit 1; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
node bench/build/burn-down.js --only pulse-mariadb-1-sdk --jobs 20000 --paced-seconds 2 \
  --rounds 1 > "$work/bench.log" 2>&1 &
bench=$!
until grep -q 'enqueued' "$work/bench.log" 2> /dev/null; do
  kill -0 "$bench" 2> /dev/null || { cat "$work/bench.log" >&2; exit 1; }
  sleep 0.2
done
server=$(pgrep -f 'weave.js server --db' | head -1)
database=$(pgrep -x mariadbd | head -1)
sleep 1.5
workers=$(pgrep -f 'burn-down-worker.js' | tr '\n' ' ')
perf record -q -e sched:sched_waking -a -o "$work/perf.data" -- sleep "$seconds" 2> /dev/null
wait "$bench"
rate=$(sed -n 's/.*drained in .*: \([0-9]*\) jobs\/s.*/\1/p' "$work/bench.log" | tail -1)
perf script -i "$work/perf.data" -F pid,tid,event,trace 2> /dev/null |
  awk -v server="$server" -v workers=" $workers" -v database="$database" -v rate="$rate" \
    -v seconds="$seconds" '
    # A line: "<waker pid>/<waker tid> sched:sched_waking: comm=<c> pid=<target tid> ..."
    {
      split($1, ids, "/")
      for (i = 1; i <= NF; i++) if ($i ~ /^pid=/) target = substr($i, 5)
      if (target != server) next
      if (ids[1] == database) who = "MariaDB (its answers)"
      else if (index(workers, " " ids[1] " ") > 0) who = "the worker processes (their calls)"
      else if (ids[1] == 0) who = "the idle task (timers)"
      else if (ids[1] == server) who = "the server'\''s own threads"
      else who = "anything else"
      count[who]++
      total++
    }
    END {
      jobs = rate * seconds
      printf "| woken by | times in %d s | a job (at %d jobs/s) |\n", seconds, rate
      print "| --- | ---: | ---: |"
      for (who in count) printf "| %s | %d | %.2f |\n", who, count[who], count[who] / jobs
      printf "| all | %d | %.2f |\n", total, total / jobs
    }'
grep -E '^- one node' "$work/bench.log" || true
