#!/usr/bin/env bash
# Prints how long `AUTH_MODE=none npm start` takes from launch until the gateway answers and the
# validation service is ready (its engine built), then stops it. Run it twice: the first run after a
# change builds; the second is a restart with nothing changed (docs/performance.md, start-up).
#   bash scripts/probe/start-time.sh [label]
# Uses the local ports 8080-8082 of `npm start` and its own NATS namespace (probe).
set -uo pipefail
cd "$(dirname "$0")/../.."
label="${1:-start}"
log="$(mktemp -t start-time.XXXXXX.log)"
begin=$(date +%s%N)
AUTH_MODE=none NATS_NAMESPACE="${NATS_NAMESPACE:-probe}" npm start >"$log" 2>&1 &
pid=$!
trap 'kill -TERM "$pid" 2>/dev/null; wait "$pid" 2>/dev/null' EXIT
until curl -sf http://127.0.0.1:8081/health/ready >/dev/null 2>&1 && curl -sf http://127.0.0.1:8080/health >/dev/null 2>&1; do
  if ! kill -0 "$pid" 2>/dev/null; then echo "npm start stopped; its output: $log"; exit 1; fi
  sleep 0.1
done
end=$(date +%s%N)
build=$(grep -m1 '^\[build\]' "$log" || echo '[build] ?')
echo "$label: ready in $(( (end - begin) / 1000000 )) ms; $build; load average $(cut -d' ' -f1-3 /proc/loadavg)"
