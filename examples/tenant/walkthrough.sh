#!/usr/bin/env bash
# The tenant walk-through of the README, step by step through the gateway (the services started with
# `AUTH_MODE=none npm start`; GATEWAY names another gateway). Run from the project's folder:
#   bash examples/tenant/walkthrough.sh
# test/tenant-walkthrough.int.spec.ts runs this file against the real services.
set -euo pipefail
GATEWAY="${GATEWAY:-http://127.0.0.1:8080}"
T="$GATEWAY/api/tenant"
post() { curl -sS --fail-with-body -X "${3:-POST}" "$1" -H 'Content-Type: application/json' --data-binary "$2"; echo; }
field() { node -e 'let s="";process.stdin.on("data",(d)=>s+=d).on("end",()=>console.log(JSON.parse(s)[process.argv[1]]))' "$1"; }

echo '1. A measure mapping: the measure name facilities schedule, its dQM, its frequency'
MAPPING=$(post "$T/measure-mappings" @examples/tenant/1-measure-mapping.json)
echo "$MAPPING"
MAPPING_ID=$(echo "$MAPPING" | field id)

echo '2. A facility scheduling that measure monthly, in its own time zone'
post "$T/facilities" @examples/tenant/2-facility.json

echo '3. A reporting plan: the facility reports that measure mapping in December 2026'
post "$T/facility-reporting-plans" "$(sed "s/MEASURE_MAPPING_ID/$MAPPING_ID/" examples/tenant/3-reporting-plan.json)"

echo '4. A signing key (sealed under the master key; npm start made a local-only one), assigned to the facility'
KEY=$(post "$T/signing-keys" @examples/tenant/4-signing-key.json)
echo "$KEY"
KID=$(echo "$KEY" | field kid)
post "$T/facilities/riverside-general/signing-key" "$(sed "s/SIGNING_KEY_KID/$KID/" examples/tenant/5-facility-signing-key.json)" PUT

echo '5. The public key in the JWKS, for the EHR token endpoints'
curl -sS --fail-with-body "$GATEWAY/.well-known/jwks.json"; echo

echo '6. When the facility'"'"'s next ReportScheduled fires, and for which period'
curl -sS --fail-with-body "$T/facilities/riverside-general/next-runs"; echo
