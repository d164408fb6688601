#!/usr/bin/env bash
# The Debian packages scripts/package.sh made, as a user gets them: their control
# fields (the dependencies dpkg-shlibdeps computed, the version with its commit), the
# files each holds, and the programs run from the packages unpacked with dpkg -x into
# an empty folder (no chroot, no installation): retrylab-cli --version, demo, and
# monitor against a fault server started from the same unpacked binary.
# Usage: tst_debianpackage.sh RETRYLAB_CLI_DEB RETRYLAB_DEB
set -uo pipefail

cli_deb=${1:?usage: tst_debianpackage.sh RETRYLAB_CLI_DEB RETRYLAB_DEB}
gui_deb=${2:?usage: tst_debianpackage.sh RETRYLAB_CLI_DEB RETRYLAB_DEB}
tmp=$(mktemp -d)
server_pid=
cleanup() {
    [[ -n $server_pid ]] && kill "$server_pid" 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT

failures=0
passed=0
check() { # NAME CONDITION-EXIT-STATUS [DETAIL]
    if [[ $2 -eq 0 ]]; then
        echo "PASS: $1"
        passed=$((passed + 1))
    else
        echo "FAIL: $1${3:+: $3}"
        failures=$((failures + 1))
    fi
}
contains() { grep -qF -- "$2" <<<"$1"; }

for tool in dpkg-deb ldd; do
    if ! command -v "$tool" >/dev/null; then
        echo "FAIL: $tool is missing (Debian package dpkg / libc-bin)"
        exit 1
    fi
done

# The control fields.
cli_control=$(dpkg-deb --field "$cli_deb")
gui_control=$(dpkg-deb --field "$gui_deb")
check "retrylab-cli is the headless package" "$(contains "$cli_control" "Package: retrylab-cli"; echo $?)"
check "retrylab is the window's package" "$(contains "$gui_control" "Package: retrylab"; echo $?)"
version=$(dpkg-deb --field "$cli_deb" Version)
[[ $version =~ ^[0-9]+\.[0-9]+\.[0-9]+(\+git[0-9]{8}\.[0-9a-f]+)?$ ]]
check "the version is the project's and its commit ($version)" $?
cli_depends=$(dpkg-deb --field "$cli_deb" Depends)
gui_depends=$(dpkg-deb --field "$gui_deb" Depends)
# dpkg-shlibdeps found what the binaries link: Qt Core and Network for both, Qt Gui
# and Widgets for the window only, the C++ runtime; and the plugins no linker sees.
check "retrylab-cli depends on Qt Core and Network" \
    "$(contains "$cli_depends" libqt6core6 && contains "$cli_depends" libqt6network6; echo $?)" "$cli_depends"
check "retrylab-cli depends on no Qt Gui" "$(! contains "$cli_depends" libqt6gui6; echo $?)" "$cli_depends"
check "retrylab-cli depends on the SQLite driver of Qt SQL" \
    "$(contains "$cli_depends" libqt6sql6-sqlite; echo $?)" "$cli_depends"
check "retrylab depends on Qt Widgets, the platform plugins and retrylab-cli" \
    "$(contains "$gui_depends" libqt6widgets6 && contains "$gui_depends" qt6-qpa-plugins &&
        contains "$gui_depends" "retrylab-cli (= $version)"; echo $?)" "$gui_depends"
check "both depend on the C++ runtime" \
    "$(contains "$cli_depends" libstdc++6 && contains "$gui_depends" libstdc++6; echo $?)"

# The files.
cli_files=$(dpkg-deb --contents "$cli_deb" | awk '{print $6}')
gui_files=$(dpkg-deb --contents "$gui_deb" | awk '{print $6}')
for file in ./usr/bin/retrylab-cli ./usr/share/man/man1/retrylab-cli.1.gz ./usr/share/man/man1/retrylab-run.1.gz \
    ./usr/share/man/man1/retrylab-monitor.1.gz ./usr/share/bash-completion/completions/retrylab-cli \
    ./usr/share/zsh/vendor-completions/_retrylab-cli ./usr/share/fish/vendor_completions.d/retrylab-cli.fish \
    ./usr/lib/systemd/user/retrylab-monitor.service ./usr/share/doc/retrylab-cli/copyright \
    ./usr/share/doc/retrylab-cli/changelog.gz; do
    check "retrylab-cli holds $file" "$(grep -qxF -- "$file" <<<"$cli_files"; echo $?)"
done
for file in ./usr/bin/retrylab ./usr/share/man/man1/retrylab.1.gz ./usr/share/man/man1/retrylab-screenshot.1.gz \
    ./usr/share/bash-completion/completions/retrylab ./usr/share/applications/io.github.retrylab.retrylab.desktop \
    ./usr/share/metainfo/io.github.retrylab.retrylab.metainfo.xml ./usr/share/mime/packages/retrylab.xml \
    ./usr/share/icons/hicolor/scalable/apps/retrylab.svg ./usr/share/doc/retrylab/copyright; do
    check "retrylab holds $file" "$(grep -qxF -- "$file" <<<"$gui_files"; echo $?)"
done
check "no file is in both packages" "$(comm -12 <(grep -v '/$' <<<"$cli_files" | sort) \
    <(grep -v '/$' <<<"$gui_files" | sort) | grep -q .; [[ $? -ne 0 ]]; echo $?)"

# The programs, unpacked into an empty folder.
root=$tmp/root
mkdir -p "$root"
dpkg -x "$cli_deb" "$root" && dpkg -x "$gui_deb" "$root"
check "dpkg -x unpacks both" $?
cli=$root/usr/bin/retrylab-cli
export HOME=$tmp/home XDG_RUNTIME_DIR=$tmp/run
mkdir -p "$HOME" "$XDG_RUNTIME_DIR" && chmod 700 "$XDG_RUNTIME_DIR"

check "the unpacked retrylab-cli links no Qt Gui" "$(! ldd "$cli" | grep -q libQt6Gui; echo $?)"
out=$("$cli" --version 2>&1)
check "retrylab-cli --version says its version" "$(contains "$out" "retrylab ${version%%+*}"; echo $?)" "$out"
out=$(timeout 120 "$cli" demo --seed 7 --width 40 2>&1)
status=$?
check "retrylab-cli demo runs (exit $status)" "$([[ $status -eq 0 ]] && contains "$out" jitter; echo $?)" "$out"

# monitor: a fault server from the same binary, a monitor of it for two seconds.
"$cli" serve --port 0 >"$tmp/serve.out" 2>&1 &
server_pid=$!
url=
for _ in $(seq 100); do
    url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$tmp/serve.out" | head -n1)
    [[ -n $url ]] && break
    sleep 0.1
done
check "retrylab-cli serve listens" "$([[ -n $url ]]; echo $?)" "$(cat "$tmp/serve.out")"
cat >"$tmp/monitors.json" <<JSON
{"format": "retrylab-monitors", "version": 1,
 "monitors": [{"name": "flaky", "url": "$url/fail/1?key=package", "intervalMs": 500, "policy": "aws-standard"}]}
JSON
out=$(timeout 60 "$cli" monitor "$tmp/monitors.json" --db "$tmp/history.sqlite" --duration 2 2>&1)
status=$?
check "retrylab-cli monitor runs its monitors and exits 0 (exit $status)" "$([[ $status -eq 0 ]]; echo $?)" "$out"
check "the monitor kept its checks" "$([[ -s $tmp/history.sqlite ]]; echo $?)"
out=$("$cli" history --db "$tmp/history.sqlite" 2>&1)
check "retrylab-cli history reads them back" "$(contains "$out" flaky; echo $?)" "$out"

echo "$passed passed, $failures failed"
((failures == 0))
