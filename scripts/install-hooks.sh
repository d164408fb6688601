#!/usr/bin/env bash
# Installs scripts/commit-msg as the commit-msg hook of the git checkout this script is in
# (scripts/deps.sh runs it, so ./scripts/run.sh and ./scripts/test.sh do too). The hook is
# copied into `git rev-parse --git-path hooks`, which every worktree of a repository shares,
# so a second worktree needs no second copy; a copy of an older version is replaced, a hook
# of someone else's is left alone. Outside a git checkout, without git, or when
# core.hooksPath points elsewhere it says why it did nothing and succeeds: a source tarball
# builds and tests without it.
set -uo pipefail

root=$(cd "$(dirname "$0")/.." && pwd -P)
hook="$root/scripts/commit-msg"
marker="RetryLab's commit-msg hook"

note() {
    echo "install-hooks: $*"
    exit 0
}

command -v git >/dev/null 2>&1 || note "git is not installed; no commit-msg hook"
top=$(git -C "$root" rev-parse --show-toplevel 2>/dev/null) || note "not a git checkout; no commit-msg hook"
# Inside someone else's repository (a tarball unpacked in it), the hooks are not ours to set.
[[ "$(cd "$top" && pwd -P)" == "$root" ]] || note "$root is not the top of its git checkout; no commit-msg hook"
if [[ -n "$(git -C "$root" config --get core.hooksPath 2>/dev/null)" ]]; then
    note "core.hooksPath is set; to check commit messages, put scripts/commit-msg there"
fi

hooks=$(git -C "$root" rev-parse --git-path hooks 2>/dev/null) || note "git cannot name the hooks folder"
[[ "$hooks" == /* ]] || hooks="$root/$hooks"
target="$hooks/commit-msg"

if [[ -e "$target" ]]; then
    cmp -s "$hook" "$target" && exit 0
    grep -qF "$marker" "$target" || note "$target is another hook; left as it is"
fi
mkdir -p "$hooks" && cp "$hook" "$target.tmp" && chmod +x "$target.tmp" && mv -f "$target.tmp" "$target" \
    || note "could not write $target"
echo "install-hooks: commit messages are checked by $target"
