#!/bin/sh
# SPDX-License-Identifier: MIT
# Command-line contract of umsrestored: --help, --version, usage errors (exit 2),
# and actions that are not implemented yet failing loudly instead of pretending.
set -u
BIN=${1:?usage: test-cli.sh PATH-TO-umsrestored}
fail=0
n=0

# expect CODE PATTERN ARGS... : runs BIN ARGS, checks the exit code and that the
# combined output matches the grep -E pattern.
expect() {
    code=$1; pattern=$2; shift 2
    n=$((n + 1))
    out=$("$BIN" "$@" 2>&1)
    rc=$?
    if [ "$rc" -ne "$code" ]; then
        echo "not ok $n - umsrestored $*: exit $rc, expected $code"; echo "$out" | sed 's/^/#   /'
        fail=1; return
    fi
    if ! printf '%s\n' "$out" | grep -Eq -- "$pattern"; then
        echo "not ok $n - umsrestored $*: output does not match /$pattern/"; echo "$out" | sed 's/^/#   /'
        fail=1; return
    fi
    echo "ok $n - umsrestored $* -> $rc"
}

expect 0 '^Usage: umsrestored ' --help
expect 0 '--restore-now' -h
expect 0 '^umsrestored [0-9]+\.[0-9]+\.[0-9]+$' --version
expect 2 "Unknown option '--bogus'" --bogus
expect 2 "cannot be combined" --save-now --restore-now
expect 2 "cannot be combined" --status --dump /tmp/x
expect 2 "needs an argument" --dump
expect 2 "Unexpected argument 'extra'" --status extra
expect 2 "--json only applies" --save-now --json
expect 2 "--device only applies" --dump /tmp/x --device 0000:00:02.0
expect 2 "Unknown log level" --log-level loud --status

echo "1..$n"
exit $fail
