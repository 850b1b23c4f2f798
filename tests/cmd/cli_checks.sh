# Sourced by the command-line test scripts: `. cli_checks.sh FARMRT_BINARY SOURCE_DIR`.
# Sets farmrt, source_dir and work (a scratch directory with out/ and
# scenes/, removed at exit; the current directory is out/), counts failures
# and defines fail and expect_error.
# Absolute paths: the checks run in a scratch directory.
farmrt=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
source_dir=$(cd "$2" && pwd)
work=$(mktemp -d)
trap 'chmod -R u+w "$work"; rm -rf "$work"' EXIT
mkdir "$work/out" "$work/scenes"
cd "$work/out" || exit 1
failures=0
# A command that expect_error runs farmrt under (a limit, a timeout); none by default.
runner=()

fail() {
    echo "FAIL: $*"
    failures=$((failures + 1))
}

# expect_error NAME REGEX ARGS...: exit 2, one stderr line "farmrt: error: " + REGEX
# (an extended regular expression matched against the whole line), empty
# stdout, and the output directory unchanged.
expect_error() {
    local name=$1 pattern=$2
    shift 2
    local before after rc lines
    before=$(ls -A "$work/out")
    "${runner[@]}" "$farmrt" "$@" >"$work/stdout" 2>"$work/stderr"
    rc=$?
    after=$(ls -A "$work/out")
    [ "$rc" -eq 2 ] || fail "$name: exit code $rc, expected 2"
    lines=$(wc -l <"$work/stderr")
    [ "$lines" -eq 1 ] || fail "$name: $lines lines on stderr: $(cat "$work/stderr")"
    grep -Eqx "farmrt: error: $pattern" "$work/stderr" ||
        fail "$name: stderr '$(head -c 300 "$work/stderr")' does not match 'farmrt: error: $pattern'"
    [ -s "$work/stdout" ] && fail "$name: wrote to stdout: $(head -c 200 "$work/stdout")"
    [ "$before" = "$after" ] || fail "$name: the output directory changed: '$before' -> '$after'"
}

