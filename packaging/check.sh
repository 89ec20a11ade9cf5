#!/usr/bin/env bash
# Checks the release packaging: `goreleaser check` on .goreleaser.yaml (goreleaser v2.17.0, a
# Go tool of scripts/goreleaser), a one-target snapshot build whose `cockpit --version` must show
# the stamped snapshot version, and `systemd-analyze verify` on the units in packaging/systemd
# (skipped with a message where systemd-analyze cannot be had). Docker cannot build here: the
# Dockerfile is not built by this script.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT

bash scripts/goreleaser/run.sh check
bash scripts/goreleaser/run.sh build --snapshot --single-target --clean --output "$tmp/cockpit" >"$tmp/build.log" 2>&1 ||
  { cat "$tmp/build.log" >&2; exit 1; }
rm -rf dist
v="$("$tmp/cockpit" --version)"
case "$v" in
  "cockpit "*-snapshot" (commit "*) echo "ok  snapshot build: $v" ;;
  *) echo "FAIL: the snapshot build says \"$v\", want the stamped snapshot version" >&2; exit 1 ;;
esac

if ! command -v systemd-analyze >/dev/null 2>&1 && command -v apt-get >/dev/null 2>&1; then
  apt-get install -y --no-install-recommends systemd >/dev/null 2>&1 || true
fi
if ! command -v systemd-analyze >/dev/null 2>&1; then
  echo "skipped: systemd-analyze verify (systemd-analyze is not installed and could not be)"
  exit 0
fi
# verify wants each ExecStart binary to exist: the units are checked as written, with only
# /usr/bin/cockpit pointed at the binary just built.
mkdir "$tmp/units"
for u in packaging/systemd/*.service; do
  sed "s|^ExecStart=/usr/bin/cockpit |ExecStart=$tmp/cockpit |" "$u" >"$tmp/units/$(basename "$u")"
done
systemd-analyze verify --man=no "$tmp"/units/*.service
echo "ok  systemd-analyze verify: $(ls "$tmp"/units | tr '\n' ' ')"
