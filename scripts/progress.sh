#!/usr/bin/env bash
# Reads a build's output (ninja's "[n/N] ..." lines) on standard input and shows
# its progress: on a terminal one line that counts up, elsewhere a line at every
# tenth of the way. The output itself is not shown; pipe it to a log first.
# Usage: cmake --build ... 2>&1 | tee build.log | scripts/progress.sh [LABEL]
set -uo pipefail

label=${1:-building}
tty=0
[[ -t 1 ]] && tty=1
last=-1
shown=0
while IFS= read -r line; do
    if [[ $line =~ ^\[([0-9]+)/([0-9]+)\] ]]; then
        done_steps=${BASH_REMATCH[1]}
        total=${BASH_REMATCH[2]}
        (( total > 0 )) || continue
        percent=$(( done_steps * 100 / total ))
        if (( tty )); then
            printf '\r  %s: %d of %d steps (%d %%)' "$label" "$done_steps" "$total" "$percent"
            shown=1
        elif (( percent / 10 != last )); then
            last=$(( percent / 10 ))
            printf '  %s: %d of %d steps (%d %%)\n' "$label" "$done_steps" "$total" "$percent"
        fi
    fi
done
if (( shown )); then
    printf '\n'
fi
exit 0
