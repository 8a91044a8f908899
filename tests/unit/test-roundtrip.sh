#!/bin/sh
# SPDX-License-Identifier: MIT
# The manual actions end to end on a simulated std VGA (the documented test switch
# UMSRESTORE_TEST_HW_SIM with --root): save → dump → wake → restore gives the device back
# byte for byte, and every bad state file is refused without touching the device.
set -u
BIN=${1:?usage: test-roundtrip.sh UMSRESTORED SIMCTL TESTDATA}
SIMCTL=${2:?}
DATA=${3:?}
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail=0
n=0

ok() { n=$((n + 1)); echo "ok $n - $*"; }
bad() { n=$((n + 1)); echo "not ok $n - $*"; fail=1; }
# check DESCRIPTION COMMAND...: passes when COMMAND exits 0
check() { d=$1; shift; if "$@" >"$T/out" 2>&1; then ok "$d"; else bad "$d"; sed 's/^/#   /' "$T/out"; fi; }
# code EXPECTED DESCRIPTION COMMAND...: passes when COMMAND exits with EXPECTED
code() {
    e=$1 d=$2; shift 2
    "$@" >"$T/out" 2>&1; rc=$?
    if [ "$rc" -eq "$e" ]; then ok "$d (exit $rc)"; else bad "$d: exit $rc, expected $e"; sed 's/^/#   /' "$T/out"; fi
}

cp -r "$DATA/machines/stdvga-vgacon" "$T/m"
export UMSRESTORE_TEST_HW_SIM="$T/sim"
STATE="$T/m/run/umsrestore/0000:00:02.0.state"
U() { "$BIN" --root "$T/m" "$@"; }

"$SIMCTL" init "$T/sim" mode3 7
cp "$T/sim" "$T/before"

code 4 "restore with no saved state says so" U --restore-now
grep -q "no state was saved" "$T/out" && ok "message names the missing state" || bad "no 'no state was saved' message"

code 0 "save-now" U --save-now
[ -f "$STATE" ] && ok "state file written" || bad "no state file at $STATE"
[ "$(stat -c %a "$STATE")" = 600 ] && ok "state file mode 0600" || bad "state file mode $(stat -c %a "$STATE")"
[ "$(stat -c %a "$T/m/run/umsrestore")" = 700 ] && ok "state dir mode 0700" || bad "state dir mode"
check "saving changed nothing on the device" "$SIMCTL" diff "$T/before" "$T/sim"

code 0 "dump" U --dump "$STATE"
grep -q '^CRTC\[0x11\] = 0x8e' "$T/out" && ok "dump names CRTC registers" || bad "dump lacks CRTC[0x11]"
grep -q 'Device: *0000:00:02.0 \[1234:1111\]' "$T/out" && ok "dump shows the device" || bad "dump lacks the device"
check "dump --json parses" sh -c "'$BIN' --dump '$STATE' --json | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); assert [m[\"name\"] for m in d[\"methods\"]] == [\"console\", \"dpms\", \"vga\", \"pci-config\"], d'"

"$SIMCTL" wake "$T/sim"
code 1 "after wake the display is off" "$SIMCTL" live "$T/sim"
code 1 "after wake the device differs from before" "$SIMCTL" diff "$T/before" "$T/sim"
cp "$T/sim" "$T/woken"

# Bad state files: each refused with exit 5, and the device is left exactly as woken.
refuse() {
    what=$1
    cp "$STATE" "$T/good"
    eval "$2"
    code 5 "refuses a $what state file" U --restore-now
    check "  ...and did not touch the device ($what)" "$SIMCTL" diff "$T/woken" "$T/sim"
    rm -f "$STATE"; cp "$T/good" "$STATE"; chmod 600 "$STATE"
}
refuse truncated 'head -c 1000 "$T/good" >"$STATE"'
refuse tampered 'cp "$T/good" "$STATE"; printf "\377" | dd of="$STATE" bs=1 seek=5000 conv=notrunc 2>/dev/null'
refuse "group-writable" 'chmod 660 "$STATE"'
refuse symlinked 'rm "$STATE"; ln -s "$T/good" "$STATE"'
refuse foreign 'echo 0x1112 >"$T/m/sys/bus/pci/devices/0000:00:02.0/device"'
echo 0x1111 >"$T/m/sys/bus/pci/devices/0000:00:02.0/device"
refuse "other boot" 'mkdir -p "$T/m/proc/sys/kernel/random"; echo 11111111-2222-3333-4444-555555555555 >"$T/m/proc/sys/kernel/random/boot_id"'
rm -rf "$T/m/proc/sys"

code 0 "restore-now" U --restore-now
check "restored device is identical to before sleep" "$SIMCTL" diff "$T/before" "$T/sim"
check "restored display is live" "$SIMCTL" live "$T/sim"

code 0 "status after a cycle" U --status
grep -q 'last save: ok at' "$T/out" && ok "status shows the last save" || bad "status lacks the last save"
grep -q 'last restore: ok at' "$T/out" && ok "status shows the last restore" || bad "status lacks the last restore"

# Two savers at once: the lock serialises them, both succeed, the file is valid.
U --save-now >"$T/a" 2>&1 & pa=$!
U --save-now >"$T/b" 2>&1 & pb=$!
wait $pa; ra=$?; wait $pb; rb=$?
[ $ra -eq 0 ] && [ $rb -eq 0 ] && ok "two concurrent savers both succeed" || bad "concurrent savers: $ra $rb"
[ -f "$STATE.prev" ] && ok "previous state kept as .prev" || bad "no .prev"
code 0 "state valid after concurrent saves" U --dump "$STATE"

# Busy: a held lock makes a caller give up after the bound with exit 6 (flock from util-linux).
if command -v flock >/dev/null; then
    flock "$T/m/run/umsrestore/lock" sleep 14 & pl=$!
    sleep 0.3
    code 6 "a caller gives up with 'busy' while the lock is held" U --save-now
    kill $pl 2>/dev/null; wait $pl 2>/dev/null
else
    bad "flock(1) missing: cannot test the busy path"
fi

# The test switch is refused without --root.
code 2 "the simulator switch needs --root" "$BIN" --save-now

echo "1..$n"
exit $fail
