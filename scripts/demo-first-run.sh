#!/usr/bin/env bash
# What a newcomer meets: the README's demo command, `npm ci && npm run demo`, in a fresh clone, under
# whatever Node is first on PATH (CI runs it before switching to Node 22, so under the system's Node:
# 20 on Debian 12 and 13). Passes when the desk answers its printed URL with 200 and then, in the same
# clone, e2e/demo-bump.e2e.test.ts starts the demo again and, in Chromium, proposes a payment, signs
# it with the printed co-signer keys, bumps it, signs and submits the bump and sees a block confirm
# it; fails naming what happened otherwise. Leaves nothing running and removes its clone.
#   scripts/demo-first-run.sh [timeout-seconds]
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
limit="${1:-600}"
work="$(mktemp -d /tmp/countersign-first-run.XXXXXX)"
pid=""
stop_demo() {
  if [ -n "$pid" ]; then kill -TERM -- "-$pid" 2>/dev/null || true; sleep 3; kill -KILL -- "-$pid" 2>/dev/null || true; fi
  pid=""
}
cleanup() {
  stop_demo
  rm -rf "$work"
}
trap cleanup EXIT

echo "first-run: node $(node --version) from $(command -v node); cloning into $work"
git clone -q "$repo" "$work/countersign"
cd "$work/countersign"
log="$work/demo.log"
# Its own process group, so that cleanup stops npm, tsx, litecoind and hardhat together.
setsid bash -c 'npm ci --no-audit --no-fund && exec npm run demo' >"$log" 2>&1 < /dev/null &
pid=$!

deadline=$((SECONDS + limit))
url=""
while [ $SECONDS -lt $deadline ]; do
  url="$(grep -soE 'Open +http://127\.0\.0\.1:[0-9]+/[^ ]*' "$log" | head -n 1 | awk '{print $2}' || true)"
  [ -n "$url" ] && break
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "first-run: FAILED: the demo exited before printing its URL; its output:"; tail -n 40 "$log"; exit 1
  fi
  sleep 2
done
if [ -z "$url" ]; then echo "first-run: FAILED: no URL within ${limit}s; the demo's output:"; tail -n 40 "$log"; exit 1; fi

status="$(curl -s -o /dev/null -w '%{http_code}' "$url")"
if [ "$status" != "200" ]; then echo "first-run: FAILED: $url answered $status"; tail -n 40 "$log"; exit 1; fi
grep -E '^countersign: ' "$log" || true
echo "first-run: the desk answered 200 at ${url%%#*} after ${SECONDS}s"

# The demo's story for a stuck payment: its node relays replacements, so the bump goes through. The
# test starts its own demo (blocks mined on request, not every 20 s, so the payment stays stuck
# until the bump is in); this one is stopped first.
stop_demo
echo "first-run: proposing, signing, bumping and confirming a payment in the demo (e2e/demo-bump.e2e.test.ts)"
if ! npx vitest run e2e/demo-bump.e2e.test.ts; then echo "first-run: FAILED: the bump in the demo (screenshots: e2e/artifacts/demo-*.png in the clone)"; exit 1; fi
echo "first-run: a bump was proposed, signed and confirmed in the demo"
