#!/bin/sh
# Creates the system user the units run as; its home is the runtime root.
set -e
if ! getent group cockpit-trading >/dev/null 2>&1; then
  groupadd --system cockpit-trading
fi
if ! getent passwd cockpit-trading >/dev/null 2>&1; then
  useradd --system --gid cockpit-trading --home-dir /var/lib/cockpit-trading --no-create-home \
    --shell /usr/sbin/nologin --comment "cockpit trading supervisor" cockpit-trading
fi
