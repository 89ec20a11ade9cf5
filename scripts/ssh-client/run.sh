#!/usr/bin/env bash
# Drives `cockpit serve-ssh` with a real OpenSSH client on a fresh temporary home: a viewer
# key connects with an 80×24 pty, sees the screen, presses H, quits; the HALT file and the
# audit trail (ssh_connect, halt_tripped by ssh:viewer@ci, ssh_disconnect) are checked.
# Skipped (with the reason) when ssh, ssh-keygen or script is missing. Bounded by a timeout;
# kills what it started.
set -euo pipefail
cd "$(dirname "$0")/../.."
for tool in ssh ssh-keygen script; do
  if ! command -v "$tool" >/dev/null 2>&1; then
    echo "skipped: $tool is not installed (Debian: apt-get install -y openssh-client bsdutils)"
    exit 0
  fi
done
tmp="$(mktemp -d)"
pids=()
cleanup() {
  for p in "${pids[@]}"; do kill "$p" 2>/dev/null || true; done
  wait 2>/dev/null || true
  rm -rf "$tmp"
}
trap cleanup EXIT
fail() { echo "ssh-client: FAIL: $*" >&2; echo "--- server stderr" >&2; cat "$tmp/server.err" >&2 || true; exit 1; }
# wait_for DESCRIPTION COMMAND…: polls COMMAND for up to 30 s.
wait_for() {
  local what="$1"; shift
  for _ in $(seq 300); do
    if "$@"; then return 0; fi
    sleep 0.1
  done
  fail "gave up waiting for $what"
}

go build -o "$tmp/cockpit" ./cmd/cockpit
home="$tmp/home"
mkdir -p "$home/ssh"
ssh-keygen -q -t ed25519 -N '' -C viewer@ci -f "$tmp/key"
echo "role=viewer $(cat "$tmp/key.pub")" >"$home/ssh/authorized_keys"

"$tmp/cockpit" serve-ssh --home "$home" --listen 127.0.0.1:0 --agent none >"$tmp/server.out" 2>"$tmp/server.err" &
pids+=($!)
wait_for "the server to listen" grep -q "serve-ssh on 127.0.0.1:" "$tmp/server.err"
port="$(sed -n 's/.*serve-ssh on 127\.0\.0\.1:\([0-9]*\).*/\1/p' "$tmp/server.err" | head -1)"
grep -q "host key ssh-ed25519 SHA256:" "$tmp/server.err" || fail "no host key fingerprint printed"
[ "$(stat -c %a "$home/ssh/host_ed25519")" = 600 ] || fail "host key is not mode 600"

# script(1) gives ssh a real 80×24 terminal; the keys come through a fifo.
mkfifo "$tmp/keys"
script -qfec "stty cols 80 rows 24; exec ssh -tt -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o BatchMode=yes -o LogLevel=ERROR -i $tmp/key -p $port 127.0.0.1" /dev/null <"$tmp/keys" >"$tmp/screen" 2>&1 &
client=$!
pids+=($client)
exec 3>"$tmp/keys"
wait_for "the screen" grep -q "PAPER" "$tmp/screen"
wait_for "who is connected on the screen" grep -q "ssh: viewer@ci (viewer) ← you" "$tmp/screen"
printf 'H' >&3
wait_for "the HALT file" test -e "$home/live/HALT"
wait_for "HALTED on the screen" grep -q "HALTED" "$tmp/screen"
printf 'qy' >&3 # quit, leaving resting orders: this connection only
wait_for "the client to disconnect" bash -c "! kill -0 $client 2>/dev/null"
exec 3>&-

wait_for "the disconnect in the audit" bash -c "'$tmp/cockpit' audit list --home '$home' 2>/dev/null | grep -q ssh_disconnect"
audit="$("$tmp/cockpit" audit list --home "$home" --json 2>&1)"
echo "$audit" | grep '"ssh_connect"' | grep -q '80x24' || fail "no ssh_connect row with the 80x24 pty"
echo "$audit" | grep '"halt_tripped"' | grep -q 'ssh:viewer@ci' || fail "halt_tripped not audited as ssh:viewer@ci"
grep -q "ssh:viewer@ci" "$home/live/HALT" || fail "the HALT file does not say who"
echo "ssh-client: ok — viewer@ci connected at 80×24 over OpenSSH, pressed H (live/HALT by ssh:viewer@ci), disconnected"
