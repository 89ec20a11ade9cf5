#!/bin/sh
# Forgets the removed units. The runtime root (/var/lib/cockpit-trading: the audit trail, the
# mandates, the halt sentinels) and the cockpit-trading user are kept: an audit trail is not
# deleted by a package manager.
set -e
if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
  systemctl daemon-reload || true
fi
