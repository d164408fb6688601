#!/usr/bin/env bash
# scripts/commit-msg and scripts/install-hooks.sh. The hook passes good messages and refuses
# bad ones, one case per row; installed by the installer, it makes `git commit` refuse a long
# subject, in a second worktree too; the installer leaves other hooks alone and succeeds,
# doing nothing, outside a git checkout and without git.
# Usage: tst_commitmsg.sh SOURCE_DIR
set -uo pipefail

src=${1:?usage: tst_commitmsg.sh SOURCE_DIR}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_COMMON_DIR
export HOME="$tmp/home" GIT_CONFIG_NOSYSTEM=1 GIT_CONFIG_GLOBAL=/dev/null
mkdir -p "$HOME"

failures=0
passed=0
fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}
ok() {
    echo "PASS: $*"
    passed=$((passed + 1))
}

# A subject of exactly n characters.
subject() {
    local text="executor: hedge after the hedging delay"
    while ((${#text} < $1)); do text+=" and more"; done
    printf '%s' "${text:0:$1}"
}
s72=$(subject 72)
s73=$(subject 73)
scissors='# ------------------------ >8 ------------------------'

# expect NAME pass|refuse MESSAGE
expect() {
    printf '%s' "$3" >"$tmp/message"
    "$src/scripts/commit-msg" "$tmp/message" >"$tmp/said" 2>&1
    local rc=$?
    if [[ $2 == pass && $rc -ne 0 ]]; then
        fail "hook refuses '$1': $(cat "$tmp/said")"
    elif [[ $2 == refuse && $rc -eq 0 ]]; then
        fail "hook passes '$1'"
    elif [[ $2 == refuse ]] && ! grep -q '^commit-msg: ' "$tmp/said"; then
        fail "hook refuses '$1' without saying why"
    else
        ok "hook: $1"
    fi
}

expect "subject only" pass $'executor: hedge after the hedging delay\n'
expect "subject and body" pass $'docs: split the README\n\nThe README was the whole manual.\n'
expect "72 characters" pass "$s72"$'\n\nbody\n'
expect "72 characters, some beyond ASCII" pass "$(subject 69)→é…"$'\n'
expect "no newline at the end" pass "executor: a subject"
expect "CRLF line ends" pass $'executor: a subject\r\n\r\nbody\r\n'
expect "leading blank lines" pass $'\n\nexecutor: a subject\n\nbody\n'
expect "comments ignored" pass $'executor: a subject\n# Please enter the commit message for your changes. Lines starting\n# with \'#\' will be ignored, and an empty message aborts the commit.\n'
expect "comment between subject and body" pass $'executor: a subject\n# a comment\n\nbody\n'
expect "scissors and what follows ignored" pass $'executor: a subject\n\nbody\n'"$scissors"$'\ndiff --git a/x b/x with a line that is far longer than seventy-two characters, as a diff has\n'
expect "merge as git writes it" pass "Merge branch 'a-branch-with-a-rather-long-name-for-the-feature' into release-2026-11-the-next-one"$'\n'
expect "revert as git writes it" pass "Revert \"$s72\""$'\n\nThis reverts commit 0123456789abcdef0123456789abcdef01234567.\n'
expect "reapply as git writes it" pass "Reapply \"$s72\""$'\n\nThis reverts commit 0123456789abcdef.\n'
expect "fixup!" pass "fixup! $s72"$'\n'
expect "squash!" pass "squash! $s72"$'\n\nbody\n'
expect "amend!" pass "amend! $s72"$'\n\n'"$s72"$'\n'
expect "73 characters" refuse "$s73"$'\n'
expect "73 characters, some beyond ASCII" refuse "$(subject 70)→é…"$'\n'
expect "an essay in the subject" refuse "$(subject 300)"$'\n'
expect "empty message" refuse ""
expect "only blank lines" refuse $'\n   \n\n'
expect "only comments" refuse $'# Please enter the commit message\n# for your changes.\n'
expect "only comments before the scissors" refuse $'# a comment\n'"$scissors"$'\nexecutor: not a message\n'
expect "second line not blank" refuse $'executor: a subject\nand the body right after it\n'
expect "long subject before the scissors" refuse "$s73"$'\n\n'"$scissors"$'\n'
expect "Merged is not a merge of git's" refuse "Merged the executor's long-standing branch of the attempt transport work, finally"$'\n'
expect "Revert without its quote is not git's" refuse "Revert the executor change that made attempts slower than they were before it"$'\n'

# The installer and git, in a repository of the hook and its installer alone.
installer_copy() { # DIR: a tree with scripts/commit-msg and scripts/install-hooks.sh
    mkdir -p "$1/scripts"
    cp "$src/scripts/commit-msg" "$src/scripts/install-hooks.sh" "$1/scripts/"
}

if command -v git >/dev/null 2>&1; then
    repo="$tmp/repo"
    installer_copy "$repo"
    git -C "$repo" init -q
    git -C "$repo" config user.name "Test"
    git -C "$repo" config user.email "test@example.invalid"
    git -C "$repo" config commit.gpgsign false
    hooks=$(git -C "$repo" rev-parse --git-path hooks)
    [[ "$hooks" == /* ]] || hooks="$repo/$hooks"

    if "$repo/scripts/install-hooks.sh" >"$tmp/said" 2>&1 && cmp -s "$src/scripts/commit-msg" "$hooks/commit-msg" \
        && [[ -x "$hooks/commit-msg" ]]; then
        ok "installer: installs the hook"
    else
        fail "installer: no hook at $hooks/commit-msg: $(cat "$tmp/said")"
    fi

    git -C "$repo" add scripts
    if git -C "$repo" commit -q -m "scripts: the commit-msg hook and its installer" 2>"$tmp/said"; then
        ok "git commit: a good message"
    else
        fail "git commit refuses a good message: $(cat "$tmp/said")"
    fi
    if git -C "$repo" commit -q --allow-empty -m "$s73" 2>"$tmp/said"; then
        fail "git commit takes a 73-character subject"
    else
        ok "git commit: refuses a 73-character subject"
    fi
    if git -C "$repo" commit -q --allow-empty -m "executor: a subject" -m "the why" 2>"$tmp/said"; then
        ok "git commit: subject and body (-m twice)"
    else
        fail "git commit refuses subject and body: $(cat "$tmp/said")"
    fi

    if git -C "$repo" worktree add -q "$tmp/second" 2>"$tmp/said"; then
        "$tmp/second/scripts/install-hooks.sh" >"$tmp/said" 2>&1
        if [[ $? -eq 0 && ! -s "$tmp/said" ]]; then
            ok "installer: a second worktree shares the hook already installed"
        else
            fail "installer in a second worktree: $(cat "$tmp/said")"
        fi
        if git -C "$tmp/second" commit -q --allow-empty -m "$s73" 2>/dev/null; then
            fail "git commit in a second worktree takes a 73-character subject"
        else
            ok "git commit: refuses a 73-character subject in a second worktree"
        fi
    else
        fail "git worktree add: $(cat "$tmp/said")"
    fi

    printf '%s\n' "# RetryLab's commit-msg hook, an older version" "exit 0" >"$hooks/commit-msg"
    "$repo/scripts/install-hooks.sh" >/dev/null 2>&1
    if cmp -s "$src/scripts/commit-msg" "$hooks/commit-msg"; then
        ok "installer: replaces an older copy of the hook"
    else
        fail "installer left an older copy of the hook"
    fi

    printf '%s\n' "#!/bin/sh" "exec my-own-checks \"\$1\"" >"$hooks/commit-msg"
    cp "$hooks/commit-msg" "$tmp/theirs"
    if "$repo/scripts/install-hooks.sh" >"$tmp/said" 2>&1 && cmp -s "$tmp/theirs" "$hooks/commit-msg"; then
        ok "installer: leaves someone else's hook alone"
    else
        fail "installer replaced someone else's hook, or failed: $(cat "$tmp/said")"
    fi

    plain="$tmp/plain"
    installer_copy "$plain"
    if "$plain/scripts/install-hooks.sh" >"$tmp/said" 2>&1 && grep -q 'not a git checkout' "$tmp/said"; then
        ok "installer: outside a git checkout it succeeds and says so"
    else
        fail "installer outside a git checkout: $(cat "$tmp/said")"
    fi
else
    echo "SKIP: git is not installed; the installer's git cases need it"
fi

# Without git on the PATH (the tools the installer needs, and nothing else).
nogit="$tmp/nogit"
mkdir -p "$nogit"
for tool in bash dirname cmp grep mkdir cp chmod mv; do
    found=$(command -v "$tool") && ln -s "$found" "$nogit/$tool"
done
installer_copy "$tmp/lonely"
if PATH="$nogit" "$tmp/lonely/scripts/install-hooks.sh" >"$tmp/said" 2>&1 && grep -q 'git is not installed' "$tmp/said"; then
    ok "installer: without git it succeeds and says so"
else
    fail "installer without git: $(cat "$tmp/said")"
fi

echo "$passed passed, $failures failed"
((failures == 0))
