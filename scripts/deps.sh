#!/usr/bin/env bash
# Installs the Debian packages RetryLab needs, and only those that are missing,
# so that a second run costs a few dpkg queries, and the commit-msg hook in a git
# checkout (scripts/install-hooks.sh). Usage: scripts/deps.sh [extra packages...]
set -euo pipefail

packages=(
    cmake ninja-build g++ make pkg-config
    qt6-base-dev qt6-charts-dev libqt6opengl6-dev libgl-dev qt6-qpa-plugins
    qt6-image-formats-plugins libqt6svg6
    qt6-svg-dev # QSvgGenerator: the window's pictures for slides (File > Export picture)
    # lupdate and CMake's qt_add_lupdate: translations/retrylab_en.ts and its check (tst_lupdate)
    qt6-l10n-tools qt6-tools-dev
    fonts-dejavu-core curl
    libssl-dev # OpenSSL's libcrypto: the fault server makes its TLS certificates with it
    # real servers of the executor's TLS, proxy and HTTP/2 suites (tests/core/executor/realservers.h)
    openssl nginx tinyproxy microsocks
    # a second real upstream of the fault proxy suite (tests/core/proxy)
    python3-httpbin
    # real gRPC, which must accept the exported service config (tests/app/tst_policycommand)
    python3-grpcio
    # third-party clients that tests/core/observe/tst_thirdpartyclients points at the observer
    wget python3 python3-requests python3-urllib3 python3-botocore python3-tenacity python3-backoff
    # Locust's master and workers, which run the file retrylab export-locust writes (tests/app/tst_locustcommand)
    python3-locust
    # a YAML reader for the Resilience4j and Envoy exports (tests/core/export/tst_policyexports)
    python3-yaml
    # PyJWT, which checks the RS256 JWTs of Google service accounts (tests/core/auth/tst_jwtsigner)
    python3-jwt
    # the monitors' history: Qt SQL's SQLite driver, and its PostgreSQL driver with a
    # real PostgreSQL server for the shared history of several agents (tests/core/history)
    libqt6sql6-sqlite libqt6sql6-psql postgresql
    # Qt's JavaScript engine (QJSEngine): the scripts of the collections retrylab run runs (core/scripting)
    qt6-declarative-dev
    # Prometheus and promtool, which scrape and check the monitors' /metrics (tests/core/metrics)
    prometheus
    # real TCP servers and clients behind retrylab proxy --tcp (tests/core/proxy/tst_tcpproxyclients);
    # PostgreSQL's psql comes with postgresql above
    redis-server redis-tools python3-redis
    # HTTP Digest answered to a real server: Apache's mod_auth_digest and htdigest (tests/core/auth)
    apache2 apache2-utils
    # the Debian packages (scripts/package.sh): cpack's dpkg-shlibdeps and dpkg-deb, lintian,
    # and file, which cpack's strip step and lintian use
    dpkg-dev lintian file
    # the manual pages, completions and desktop files made and checked by the suites
    # (tests/app/docgen, tests/packaging): groff and man, the three shells and
    # bash-completion, and the validators Debian checks its own packages with
    groff-base man-db bash-completion zsh fish desktop-file-utils appstream shared-mime-info
    "$@"
)

# Node.js runs the HAR schema check of the tests (tests/tools); any node and npm
# will do (Debian's, NodeSource's, nvm's), so the packages come only when missing.
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
    packages+=(nodejs npm)
fi

# The commit-msg hook (scripts/commit-msg) of this checkout, when it is a git checkout.
"$(dirname "$0")/install-hooks.sh"

missing=()
for pkg in "${packages[@]}"; do
    status=$(dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null || true)
    if [[ "$status" != "install ok installed" ]]; then
        missing+=("$pkg")
    fi
done

if ((${#missing[@]} > 0)); then
    echo "Installing missing packages: ${missing[*]}"
    SUDO=""
    if [[ $(id -u) -ne 0 ]]; then
        SUDO="sudo"
    fi
    export DEBIAN_FRONTEND=noninteractive
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The libraries a collection's scripts may require() (moment, lodash, crypto-js,
# uuid, chai, ajv, tv4), at the versions third_party/sandbox/package-lock.json
# pins; core/scripting builds their browser bundles into the program, and its
# configuration fails without them. `npm ci` runs only when node_modules is
# missing or the lock file changed since the last install.
sandbox="$(cd "$(dirname "$0")/.." && pwd)/third_party/sandbox"
stamp="$sandbox/node_modules/.installed-package-lock.json"
if [[ ! -f "$stamp" ]] || ! cmp -s "$sandbox/package-lock.json" "$stamp"; then
    echo "Installing the script sandbox's libraries into $sandbox/node_modules"
    npm ci --prefix "$sandbox" --no-audit --no-fund --loglevel=error
    cp "$sandbox/package-lock.json" "$stamp"
fi

# toxiproxy's own Node.js client (third_party/toxiproxy-client), which the tests point
# at retrylab proxy --api; installed the same way, when missing or its lock file changed.
client="$(cd "$(dirname "$0")/.." && pwd)/third_party/toxiproxy-client"
stamp="$client/node_modules/.installed-package-lock.json"
if [[ ! -f "$stamp" ]] || ! cmp -s "$client/package-lock.json" "$stamp"; then
    echo "Installing toxiproxy's Node.js client into $client/node_modules"
    npm ci --prefix "$client" --no-audit --no-fund --loglevel=error
    cp "$client/package-lock.json" "$stamp"
fi
