#!/bin/sh
# SPDX-License-Identifier: MIT
# The installed umsrestored holds no simulator and no test switch: neither the strings of
# the test-only environment variables and image format, nor a symbol of the simulator.
# The simulator build is checked to hold them, so that the search itself is shown to work.
#   test-binary-clean.sh UMSRESTORED UMSRESTORED-SIM      (TAP output)
set -u
BIN=${1:?usage: test-binary-clean.sh UMSRESTORED UMSRESTORED-SIM}
SIM=${2:?}
n=0
fail=0
PATTERN='UMSRESTORE_TEST_[A-Z_]*|UMSSIM01|UMSSYS01|hw_sim_[a-z_]*|umsrestored-sim|umsrestored-faults'

found=$(grep -a -o -E "$PATTERN" "$BIN" | sort -u | tr '\n' ' ')
n=$((n + 1))
if [ -z "$found" ]; then
    echo "ok $n - $(basename "$BIN") holds no test switch or simulator"
else
    echo "not ok $n - $(basename "$BIN") holds: $found"
    fail=1
fi

for want in UMSRESTORE_TEST_HW_SIM UMSSIM01 hw_sim_open_func; do
    n=$((n + 1))
    if grep -a -q "$want" "$SIM"; then
        echo "ok $n - the simulator build holds '$want' (the search finds what is there)"
    else
        echo "not ok $n - '$want' not found in $(basename "$SIM"): the search is broken"
        fail=1
    fi
done

echo "1..$n"
exit $fail
