#!/bin/sh
# SPDX-License-Identifier: MIT
# The installed umsrestored holds no simulator and no test switch: neither the strings of
# the test-only environment variables and image format, nor a symbol of the simulator.
# The simulator build is checked to hold them, so that the search itself is shown to work.
# And it does not link libsystemd (the daemon loads it: libsystemd-dl.c), so that an action
# run by a sleep hook starts without it and the six libraries it pulls in.
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

needed=$(readelf -d "$BIN" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | tr '\n' ' ')
n=$((n + 1))
case " $needed" in
*" libc.so.6 "*) echo "ok $n - $(basename "$BIN") needs: $needed(the listing works)" ;;
*) echo "not ok $n - no libc.so.6 among the needed libraries '$needed': the listing is broken"; fail=1 ;;
esac
n=$((n + 1))
case " $needed" in
*" libsystemd.so"*) echo "not ok $n - $(basename "$BIN") links libsystemd: every action pays for loading it"; fail=1 ;;
*) echo "ok $n - $(basename "$BIN") does not link libsystemd" ;;
esac

echo "1..$n"
exit $fail
