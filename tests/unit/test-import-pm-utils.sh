#!/bin/sh
# SPDX-License-Identifier: MIT
# tools/import-pm-utils-quirks: importing Debian's installed pm-utils gives exactly the
# committed conf/quirks/20-pm-utils-* files (and --check notices a changed, missing or stray
# file); the conversion rules on a small database of their own; the output loads in umsrestored.
set -u
IMPORTER=${1:?usage: test-import-pm-utils.sh IMPORTER SOURCE-DIR TESTDATA-DIR UMSRESTORED}
SRC=${2:?usage}
DATA=${3:?usage}
BIN=${4:?usage}
PM_DB=/usr/lib/pm-utils/video-quirks
n=0
fail=0
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT

ok() { n=$((n + 1)); echo "ok $n - $1"; }
not_ok() {
    n=$((n + 1)); echo "not ok $n - $1"; shift
    for f in "$@"; do sed 's/^/#   /' "$f"; done
    fail=1
}

if [ ! -d "$PM_DB" ]; then
    # Not a skip: the import test is what proves the committed files; pm-utils is in
    # tools/packages.txt.
    echo "not ok 1 - $PM_DB missing: apt-get install pm-utils (tools/packages.txt)"
    echo "1..1"
    exit 1
fi

# 1. The committed files are what the installed package gives, and the counts in README.md
#    are the importer's.
if "$IMPORTER" --check >"$TMP/out" 2>&1; then
    ok "import of $PM_DB gives exactly conf/quirks/20-pm-utils-*.quirks"
else
    not_ok "import of $PM_DB differs from conf/quirks (run tools/import-pm-utils-quirks)" "$TMP/out"
fi
summary=$(tail -n 1 "$TMP/out")
if grep -qF -- "$summary" "$SRC/README.md"; then
    ok "README.md gives the importer's counts ($summary)"
else
    not_ok "README.md lacks the importer's summary line: $summary" "$TMP/out"
fi

# 2. --check fails on a changed, a missing and a stray file, naming it.
check_fails() { # WHAT FILE-NAME
    if "$IMPORTER" --check --to "$TMP/copy" >"$TMP/out" 2>&1; then
        not_ok "--check passes with $1" "$TMP/out"
    elif grep -qF "$2" "$TMP/out"; then
        ok "--check fails with $1 and names $2"
    else
        not_ok "--check fails with $1 but does not name $2" "$TMP/out"
    fi
}
mkdir "$TMP/copy"
cp "$SRC"/conf/quirks/20-pm-utils-*.quirks "$TMP/copy/"
sed -i 's/^VBEPost=yes$/VBEPost=no/' "$TMP/copy/20-pm-utils-dell.quirks"
check_fails "one value changed" 20-pm-utils-dell.quirks
cp "$SRC/conf/quirks/20-pm-utils-dell.quirks" "$TMP/copy/"
rm "$TMP/copy/20-pm-utils-sony.quirks"
check_fails "one file missing" 20-pm-utils-sony.quirks
cp "$SRC/conf/quirks/20-pm-utils-sony.quirks" "$TMP/copy/"
: >"$TMP/copy/20-pm-utils-extra.quirks"
check_fails "a file no pm-utils file gives" 20-pm-utils-extra.quirks

# 3. The conversion rules on a database of our own: backslashes dropped as bash's read did,
#    ';' as '|', nesting as AND, an empty pattern and an invalid one under regex_inverse left
#    out, an invalid pattern's entry dropped, the primary video vendor as MatchPCIID=, the
#    lines after a stray endmatch dropped, the unmapped quirks listed.
mkdir "$TMP/out-test"
if "$IMPORTER" --from "$DATA/pm-utils-import" --to "$TMP/out-test" >"$TMP/out" 2>&1; then
    sed "s|$DATA/pm-utils-import|@FROM@|" "$TMP/out-test/20-pm-utils-test.quirks" >"$TMP/got"
    if diff -u "$DATA/pm-utils-import/20-pm-utils-test.quirks.expected" "$TMP/got" >"$TMP/diff"; then
        ok "conversion of tests/data/pm-utils-import gives the expected file"
    else
        not_ok "conversion of tests/data/pm-utils-import differs" "$TMP/diff"
    fi
    if grep -qx "14 quirk lines under 9 matches in 1 files: 10 imported into 5 sections, 4 dropped" "$TMP/out"; then
        ok "the counts of the test database"
    else
        not_ok "wrong counts for the test database" "$TMP/out"
    fi
else
    not_ok "importer failed on tests/data/pm-utils-import" "$TMP/out"
fi

# 4. What the importer writes loads in umsrestored (every key and value valid).
if "$BIN" --check-config --quirks-dir "$TMP/out-test" --config /dev/null >"$TMP/out" 2>&1; then
    ok "umsrestored --check-config takes the converted test file"
else
    not_ok "umsrestored --check-config refuses the converted test file" "$TMP/out"
fi

echo "1..$n"
exit $fail
