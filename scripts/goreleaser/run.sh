#!/usr/bin/env bash
# Runs goreleaser (v2.17.0, pinned in this directory's go.mod as a Go tool) on the repository's
# .goreleaser.yaml: `run.sh check` validates it, `run.sh release --snapshot --clean` builds the
# binaries and packages into dist/. goreleaser lives in its own module so that its hundreds of
# dependencies stay out of cockpit's go.mod (and out of the binary's dependency versions).
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
cd "$root"
exec go tool -modfile="$here/go.mod" goreleaser "$@"
