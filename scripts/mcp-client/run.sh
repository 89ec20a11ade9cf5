#!/usr/bin/env bash
# Builds cockpit and drives `cockpit serve-mcp` with the official MCP TypeScript SDK
# (scripts/mcp-client/client.mjs) against a fresh temporary home: stdio tools, a read, an
# in-mandate order, an oversize order approved from another process, a halt that refuses the
# next order, and the HTTP transport's bearer token. Skipped when node is not installed.
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v node >/dev/null 2>&1; then
  echo "skipped: node is not installed"
  exit 0
fi
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
go build -o "$tmp/cockpit" ./cmd/cockpit
npm ci --prefix scripts/mcp-client --silent --no-audit --no-fund >/dev/null
node scripts/mcp-client/client.mjs "$tmp/cockpit" "$tmp/home"
