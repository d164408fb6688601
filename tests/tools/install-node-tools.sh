#!/usr/bin/env bash
# Installs the Node.js tools the tests run (har-validator, and newman for the
# parity suite tests/app/tst_newmanparity, pinned by package-lock.json) into
# DEST with `npm ci`. A second run with the same lock file, and both tools in
# place, does nothing. Usage: install-node-tools.sh DEST
#
# Without node or npm it installs nothing and says so; the HAR test then skips
# its schema check, and the parity suite its runs, with that message (failing
# under CI=true; scripts/deps.sh installs Node.js). A failing `npm ci` fails, so
# the suites needing the tools do not run and the suite fails.
set -euo pipefail

src=$(cd "$(dirname "$0")" && pwd)
dest=${1:?usage: install-node-tools.sh DEST}

if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    echo "node or npm not found: the HAR schema check and the newman parity suite will be skipped (scripts/deps.sh installs Node.js)"
    exit 0
fi

mkdir -p "$dest"
stamp="$dest/.installed-package-lock.json"
if [[ -d "$dest/node_modules/har-validator" && -x "$dest/node_modules/.bin/newman" && -f "$stamp" ]] && cmp -s "$src/package-lock.json" "$stamp"; then
    echo "Node.js test tools in $dest are up to date"
    exit 0
fi

cp "$src/package.json" "$src/package-lock.json" "$dest/"
(cd "$dest" && npm ci --no-audit --no-fund --loglevel=error)
cp "$src/package-lock.json" "$stamp"
echo "installed the Node.js test tools into $dest"
