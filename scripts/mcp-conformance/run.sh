#!/usr/bin/env bash
# Runs the official MCP conformance suite (@modelcontextprotocol/conformance, pinned with the
# MCP Inspector and Node 22 in package-lock.json) against `cockpit serve-mcp --http` on a fresh
# temporary root, through proxy.mjs, which adds the bearer token the suite cannot send (the
# server's auth is not weakened). Every applicable scenario must pass; scenarios.tsv lists the
# rest with the reason (evaluate.mjs). It also runs the Inspector's `tools/list --strict` on the
# server and fails on any schema portability problem. Skipped when node or npm is missing.
# COCKPIT_BIN runs a given cockpit binary instead of building one.
#
# npm's node@22 package installs the Node binary for this platform in its preinstall script.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
cd "$here/../.."
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "skipped: node and npm are not installed (the MCP conformance suite needs them; npm's node@22 package brings Node 22)"
  exit 0
fi
tmp="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT

npm ci --prefix "$here" --silent --no-audit --no-fund >/dev/null 2>&1 || npm ci --prefix "$here" --no-audit --no-fund
node22="$(ls -d "$here"/node_modules/node/node_modules/node-*/bin 2>/dev/null | head -1)"
if [ -z "$node22" ]; then
  echo "FAIL: npm's node package brought no Node binary under $here/node_modules/node/node_modules" >&2
  exit 1
fi
export PATH="$node22:$PATH"
case "$(node --version)" in
  v2[2-9].*|v[3-9][0-9].*) ;;
  *) echo "FAIL: node $(node --version) from $node22; the suite needs Node >= 22" >&2; exit 1 ;;
esac

bin="${COCKPIT_BIN:-$tmp/cockpit}"
[ -n "${COCKPIT_BIN:-}" ] || go build -o "$bin" ./cmd/cockpit
home="$tmp/home"
"$bin" init --home "$home" >/dev/null
"$bin" serve-mcp --http 127.0.0.1:0 --home "$home" 2>"$tmp/serve.err" &
pids+=($!)
url=""
for _ in $(seq 1 300); do
  url="$(sed -n 's|.*streamable HTTP on \(http://[0-9.:]*\).*|\1|p' "$tmp/serve.err" | head -1)"
  [ -n "$url" ] && break
  sleep 0.1
done
if [ -z "$url" ]; then
  echo "FAIL: serve-mcp did not say where it listens:" >&2
  cat "$tmp/serve.err" >&2
  exit 1
fi
node "$here/proxy.mjs" "$url" "$home/serve-mcp.token" >"$tmp/proxy.out" &
pids+=($!)
port=""
for _ in $(seq 1 100); do
  port="$(sed -n 's/^listening \([0-9]*\)$/\1/p' "$tmp/proxy.out")"
  [ -n "$port" ] && break
  sleep 0.1
done
[ -n "$port" ] || { echo "FAIL: the token proxy did not start" >&2; exit 1; }

# The Inspector's strict schema check, straight at the server with the token.
failed=0
if ! "$here/node_modules/.bin/mcp-inspector" --cli "$url/mcp" --method tools/list --strict \
    --header "Authorization: Bearer $(cat "$home/serve-mcp.token")" >"$tmp/tools.json" 2>"$tmp/strict.err" ||
  grep -qE '^(Warning|Error)' "$tmp/strict.err"; then
  echo "FAIL: mcp-inspector tools/list --strict reports schema problems:" >&2
  cat "$tmp/strict.err" >&2
  failed=1
else
  echo "ok  mcp-inspector tools/list --strict: $(grep -c '"name"' "$tmp/tools.json") tools, no schema portability problems"
fi

suite="$here/node_modules/.bin/conformance"
"$suite" list --server >"$tmp/list.txt"
while IFS=$'\t' read -r name verdict _; do
  case "$name" in ''|'#'*) continue ;; esac
  [ "$verdict" = applies ] || continue
  "$suite" server --url "http://localhost:$port/mcp" --scenario "$name" -o "$tmp/results/$name" >"$tmp/$name.log" 2>&1 || true
done <"$here/scenarios.tsv"
node "$here/evaluate.mjs" "$here/scenarios.tsv" "$tmp/list.txt" "$tmp/results" || failed=1
exit "$failed"
