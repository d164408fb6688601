#!/usr/bin/env bash
# Builds RetryLab's two Debian packages, retrylab (the window) and retrylab-cli (the
# commands, without Qt Gui), checks them with lintian and tries them out unpacked.
#   build-package/retrylab_VERSION_ARCH.deb, build-package/retrylab-cli_VERSION_ARCH.deb
# The build is the package preset (optimised, a unity build, no suites) with Debian's
# hardening flags from dpkg-buildflags; cpack makes the packages, their dependencies
# computed by dpkg-shlibdeps. lintian must report no error, and every warning it reports
# must be answered in packaging/lintian-notes.md. Then tests/scripts/tst_debianpackage.sh
# unpacks both (dpkg -x) and runs retrylab-cli --version, demo and monitor from there.
# Install with: apt install ./build-package/retrylab-cli_*.deb ./build-package/retrylab_*.deb
# Usage: scripts/package.sh [--no-deps]   (--no-deps: scripts/deps.sh has run already)
set -euo pipefail
cd "$(dirname "$0")/.."

if [[ ${1:-} != --no-deps ]]; then
    ./scripts/deps.sh
fi
# What the packages are made and checked with, and the Debian package of each
# (scripts/deps.sh installs them all): a missing one stops here, named.
for tool in dpkg-buildflags:dpkg-dev dpkg-shlibdeps:dpkg-dev dpkg-deb:dpkg lintian:lintian file:file cpack:cmake; do
    if ! command -v "${tool%%:*}" >/dev/null; then
        echo "RetryLab: ${tool%%:*} is missing (Debian package ${tool#*:}); scripts/deps.sh installs it" >&2
        exit 1
    fi
done

# Debian's flags for a package: optimised, fortified, stack protector, full RELRO and
# immediate binding (hardening=+all), without debug information (cpack strips it).
export DEB_BUILD_MAINT_OPTIONS=hardening=+all
cxxflags="$(dpkg-buildflags --get CPPFLAGS) $(dpkg-buildflags --get CXXFLAGS)"
cxxflags=$(sed -E 's/(^| )-g( |$)/ /g' <<<"$cxxflags")
ldflags=$(dpkg-buildflags --get LDFLAGS)

mkdir -p build-package
log=build-package/package-build.log
echo "RetryLab: building the packages' programs in build-package/ (the log is $log)..."
start=$SECONDS
# (CMAKE_CXX_FLAGS_RELEASE without its -O3: dpkg-buildflags' -O2 is what Debian builds with.)
if ! { cmake --preset package -DCMAKE_CXX_FLAGS="$cxxflags" -DCMAKE_CXX_FLAGS_RELEASE=-DNDEBUG \
    -DCMAKE_EXE_LINKER_FLAGS="$ldflags" &&
    cmake --build --preset package; } 2>&1 | tee "$log" | ./scripts/progress.sh building; then
    echo "RetryLab: the build failed; the end of $log:" >&2
    tail -n 40 "$log" >&2
    exit 1
fi
echo "RetryLab: built in $((SECONDS - start)) s; making the packages (cpack -G DEB)..."

rm -f build-package/*.deb
(cd build-package && cpack -G DEB >cpack.log 2>&1) || {
    echo "RetryLab: cpack failed; build-package/cpack.log:" >&2
    cat build-package/cpack.log >&2
    exit 1
}
debs=(build-package/retrylab-cli_*.deb build-package/retrylab_*.deb)
for deb in "${debs[@]}"; do
    [[ -f $deb ]] || { echo "RetryLab: cpack made no $deb" >&2; exit 1; }
    echo "  $deb ($(du -h "$deb" | cut -f1))"
done

# lintian: no error; each warning's tag named in packaging/lintian-notes.md with the answer.
echo "RetryLab: checking the packages with lintian..."
lint=$(lintian --no-cfg --tag-display-limit 0 "${debs[@]}" 2>&1) || true
echo "$lint" | sed 's/^/  /'
status=0
if grep -q '^E: ' <<<"$lint"; then
    echo "RetryLab: lintian reports errors" >&2
    status=1
fi
while read -r tag; do
    [[ -n $tag ]] || continue
    if ! grep -qF -- "\`$tag\`" packaging/lintian-notes.md; then
        echo "RetryLab: lintian warns \"$tag\", which packaging/lintian-notes.md does not answer" >&2
        status=1
    fi
done < <(grep '^W: ' <<<"$lint" | awk '{print $3}' | sort -u)
((status == 0)) || exit 1

bash tests/scripts/tst_debianpackage.sh "${debs[@]}"
echo "RetryLab: the packages are in build-package/ (scripts/package.sh took $((SECONDS - start)) s)."
