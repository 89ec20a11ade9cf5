#!/bin/sh
# Makes systemd see the units. None is enabled or started: the operator chooses which
# (`systemctl enable --now cockpit-serve-mcp`), after `cockpit init` and a mandate.
set -e
if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
  systemctl daemon-reload || true
fi
