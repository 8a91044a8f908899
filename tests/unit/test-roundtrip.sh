#!/bin/sh
# SPDX-License-Identifier: MIT
# The manual actions end to end on a simulated std VGA (umsrestored-sim with --root):
# save → dump → wake → restore gives the device back byte for byte, every bad state file
# is refused without touching the device, one failing device does not cost the other,
# and nothing run by hand hangs.
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

# At debug level a pass says where its time went: lock, survey, each method of each device.
cp -r "$DATA/machines/stdvga-vgacon" "$T/mdebug"
cp "$T/before" "$T/simdebug"
Udebug() { UMSRESTORE_TEST_HW_SIM="$T/simdebug" "$BIN" --root "$T/mdebug" "$@"; }
code 0 "save-now at debug level" Udebug --log-level debug --save-now
grep -Eq 'The save took [0-9.]+ ms: run lock and sweep [0-9.]+ ms, survey [0-9.]+ ms' "$T/out" &&
    ok "debug: the pass's phases" || { bad "debug: no phase line"; sed 's/^/#   /' "$T/out"; }
grep -Eq '0000:00:02\.0: [0-9.]+ ms in all; methods \(ms\): console [0-9.]+, dpms [0-9.]+, vga [0-9.]+, bochs [0-9.]+, pci-config [0-9.]+\.' "$T/out" &&
    ok "debug: each method's save time" || { bad "debug: no per-method line"; sed 's/^/#   /' "$T/out"; }
code 0 "restore-now at the default level" Udebug --restore-now
grep -q 'ms in all; methods' "$T/out" && bad "the timing lines show at the default level" || ok "no timing lines at info level"

code 0 "dump" U --dump "$STATE"
grep -q '^CRTC\[0x11\] = 0x8e' "$T/out" && ok "dump names CRTC registers" || bad "dump lacks CRTC[0x11]"
grep -q 'Device: *0000:00:02.0 \[1234:1111\]' "$T/out" && ok "dump shows the device" || bad "dump lacks the device"
check "dump --json parses" sh -c "'$BIN' --dump '$STATE' --json | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); assert [m[\"name\"] for m in d[\"methods\"]] == [\"console\", \"dpms\", \"vga\", \"bochs\", \"pci-config\"], d'"

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
refuse "other-readable (it holds the console text)" 'chmod 604 "$STATE"'
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

# The simulator build refuses the real machine, however the root is spelled.
code 2 "the simulator build needs --root" "$BIN" --save-now
code 2 "--root // is the real machine" "$BIN" --root // --save-now
code 2 "--root /. is the real machine" "$BIN" --root /. --restore-now

# A run directory others could plant files in is refused, with a message that names it.
RUN="$T/m/run/umsrestore"
chmod 0777 "$RUN"
code 1 "a run directory writable by others is refused" U --save-now
grep -q "'$RUN' may be written by group or others (mode 0777)" "$T/out" && ok "the message names it and its mode" \
    || bad "no message naming the run directory"
chmod 0700 "$RUN"
if [ "$(id -u)" = 0 ]; then
    chown 1000 "$RUN"
    code 1 "a run directory owned by another user is refused" U --restore-now
    grep -q "'$RUN' is owned by uid 1000" "$T/out" && ok "the message names the owner" || bad "no owner message"
    chown 0 "$RUN"
fi
mv "$RUN" "$RUN.real"; ln -s "$RUN.real" "$RUN"
code 1 "a symlinked run directory is refused" U --save-now
rm "$RUN"; mv "$RUN.real" "$RUN"

# What an unfinished write left is swept by the next pass (under the lock).
LEFT="$T/m/run/umsrestore/0000:00:02.0.state.tmp-0123456789abcdef"
: >"$LEFT"
code 0 "save-now with a crash's leftover in the run directory" U --save-now
[ ! -e "$LEFT" ] && ok "the leftover temp file is gone" || bad "leftover temp file still there"

# Nothing a user runs by hand hangs on a FIFO.
mkfifo "$T/fifo"
code 5 "--dump of a FIFO is refused at once" timeout 10 "$BIN" --dump "$T/fifo"
grep -q "not a regular file" "$T/out" && ok "the message says why" || bad "no 'not a regular file' message"
LAST="$T/m/run/umsrestore/0000:00:02.0.last-save"
rm -f "$LAST"; mkfifo "$LAST"
code 0 "--status with a FIFO as the last-save record" timeout 10 "$BIN" --root "$T/m" --status
grep -q "last save: never" "$T/out" && ok "the FIFO is not read as a record" || bad "status read the FIFO record"
rm -f "$LAST"

# A --save-now that hangs after its VT switch is stopped at ManualDeadlineSec= and the
# switch is rolled back.
"$SIMCTL" init "$T/sim" mode3 7
printf '[General]\nManualDeadlineSec=1\n' >"$T/deadline.conf"
start=$(date +%s)
code 11 "a hung --save-now is stopped at its deadline" env UMSRESTORE_TEST_HANG_AFTER_VT_SWITCH=1 \
    "$BIN" --root "$T/m" --config "$T/deadline.conf" --save-now
took=$(( $(date +%s) - start ))
[ "$took" -le 8 ] && ok "stopped within the bound ($took s)" || bad "took $took s"
[ "$("$SIMCTL" vt "$T/sim")" = 1 ] && ok "the console is back on VT 1" || bad "console left on VT $("$SIMCTL" vt "$T/sim")"
[ ! -e "$T/m/run/umsrestore/0000:00:02.0.undo" ] && ok "no undo record left" || bad "undo record left behind"
code 4 "nothing from the stopped save is restorable" U --restore-now

# Two managed devices, the second cannot be opened: per-device results, exit 10.
cp -r "$DATA/machines/two-gpus-none-kms" "$T/m2"
"$SIMCTL" init "$T/sim2" mode3 9
cp "$T/sim2" "$T/before2"
U2() { env UMSRESTORE_TEST_HW_SIM="$T/sim2" UMSRESTORE_TEST_FAIL_OPEN=0000:01:00.0 "$BIN" --root "$T/m2" "$@"; }
code 10 "save-now with one failing device says 'partly failed'" U2 --save-now
grep -q "0000:01:00.0: save failed: cannot open the device" "$T/out" && ok "the failing device is named with its reason" \
    || bad "no per-device failure line"
grep -q "0000:00:02.0: saved" "$T/out" && ok "the other device is reported saved" || bad "no line for the saved device"
grep -q "(null)" "$T/out" && bad "a message says (null)" || ok "no '(null)' in the messages"
"$SIMCTL" wake "$T/sim2"
code 10 "restore-now restores the device that saved" U2 --restore-now
grep -q "0000:01:00.0: restore failed: not restored: no state was saved" "$T/out" && ok "the other is named" \
    || bad "no line for the device without state"
check "  ...which is identical to before" "$SIMCTL" diff "$T/before2" "$T/sim2"

# A vesafb console in a Bochs dispi mode (800x600x16): the bochs method brings the mode back.
cp -r "$DATA/machines/vesafb" "$T/mv"
UV() { env UMSRESTORE_TEST_HW_SIM="$T/simv" "$BIN" --root "$T/mv" "$@"; }
"$SIMCTL" init "$T/simv" dispi 3
cp "$T/simv" "$T/beforev"
code 0 "dispi: save-now" UV --save-now
grep -q "WARNING" "$T/out" && bad "dispi: the save warns although bochs is planned" || ok "dispi: no warning from the save"
grep -q "saved 5 methods (console, dpms, vga, bochs, pci-config)" "$T/out" && ok "dispi: bochs saved" \
    || { bad "dispi: bochs not among the saved methods"; sed 's/^/#   /' "$T/out"; }
code 0 "dispi: dump" UV --dump "$T/mv/run/umsrestore/0000:00:02.0.state"
grep -q '^\[bochs\] method id 7' "$T/out" && grep -q '^bochs: dispi mode 800x600, 16 bpp, linear frame buffer$' "$T/out" \
    && grep -q '^XRES        = 800$' "$T/out" && grep -q '^ENABLE      = 0x0041  (enabled, linear frame buffer)$' "$T/out" \
    && ok "dispi: --dump names the dispi registers" || { bad "dispi: --dump lacks the bochs section"; sed 's/^/#   /' "$T/out"; }
"$SIMCTL" wake "$T/simv"
code 1 "dispi: after wake the mode is off" "$SIMCTL" live "$T/simv"
code 0 "dispi: restore-now" UV --restore-now
grep -q "restored and verified 5 methods (pci-config, bochs, vga, dpms, console)" "$T/out" \
    && ok "dispi: restored and verified, bochs before vga" || bad "dispi: not restored in the order pci-config, bochs, vga"
check "dispi: restored device is identical to before sleep" "$SIMCTL" diff "$T/beforev" "$T/simv"

# The same without bochs in the plan: named before sleep (--status, the save's warning), and
# the restore is not "verified" while the dispi mode is off.
printf '[Device 1234:1111]\nMethods=console dpms vga pci-config\n' >"$T/nobochs.conf"
code 0 "no bochs: status" UV --config "$T/nobochs.conf" --status
grep -q "WARNING: its vesafb console runs a linear frame buffer .* mode that no planned method brings back.*the bochs method would" "$T/out" \
    && ok "no bochs: --status names the mode no method restores" || { bad "no bochs: no warning in --status"; sed 's/^/#   /' "$T/out"; }
check "no bochs: --status --json says mode_restorable false" sh -c "'$BIN' --root '$T/mv' --config '$T/nobochs.conf' --status --json | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin)[\"devices\"][0]; assert d[\"mode\"] == \"linear\" and d[\"mode_restorable\"] is False and \"bochs method would\" in d[\"mode_warning\"], d'"
check "with bochs: --status --json says mode_restorable true" sh -c "'$BIN' --root '$T/mv' --status --json | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin)[\"devices\"][0]; assert d[\"mode\"] == \"linear\" and d[\"mode_restorable\"] is True and d[\"mode_warning\"] is None, d'"
"$SIMCTL" init "$T/simv" dispi 3
code 0 "no bochs: save-now succeeds" UV --config "$T/nobochs.conf" --save-now
grep -q "WARNING: its vesafb console runs a linear frame buffer" "$T/out" && ok "no bochs: the save warns" \
    || { bad "no bochs: the save does not warn"; sed 's/^/#   /' "$T/out"; }
"$SIMCTL" wake "$T/simv"
code 9 "no bochs: restore-now is not verified" UV --config "$T/nobochs.conf" --restore-now
grep -q "Bochs dispi mode saved but not enabled now" "$T/out" && ok "no bochs: verify names the missing mode" \
    || { bad "no bochs: verify does not name the dispi mode"; sed 's/^/#   /' "$T/out"; }

# --test-restore: without sleeping, save, put the display in its after-sleep state, restore,
# verify; the device ends as it was, no state file, no VT switch; per-method table on stdout.
cp -r "$DATA/machines/stdvga-vgacon" "$T/mt"
UT() { env UMSRESTORE_TEST_HW_SIM="$T/simt" "$BIN" --root "$T/mt" "$@"; }
"$SIMCTL" init "$T/simt" mode3 11
cp "$T/simt" "$T/beforet"
code 0 "test-restore on a live text console" UT --test-restore
grep -q '^0000:00:02.0: RESTORABLE$' "$T/out" && grep -Eq '^  vga +[0-9.]+ +[0-9.]+  restorable$' "$T/out" \
    && ok "test-restore prints the device and each method" || { bad "test-restore output"; sed 's/^/#   /' "$T/out"; }
check "test-restore leaves the device as it was" "$SIMCTL" diff "$T/beforet" "$T/simt"
[ "$("$SIMCTL" vt "$T/simt")" = 1 ] && ok "test-restore did not switch VTs" || bad "test-restore switched VTs"
[ ! -e "$T/mt/run/umsrestore/0000:00:02.0.state" ] && [ ! -e "$T/mt/run/umsrestore/0000:00:02.0.undo" ] \
    && ok "test-restore leaves no state or undo file" || bad "test-restore left a state or undo file"
code 0 "status after a test-restore" UT --status
grep -q 'last test-restore: ok at .*restorable' "$T/out" && ok "status shows the last test-restore" \
    || { bad "status lacks the last test-restore"; sed 's/^/#   /' "$T/out"; }
code 2 "--force without --test-restore is a usage error" UT --save-now --force
code 2 "--deadline takes positive seconds" UT --test-restore --deadline 0
"$SIMCTL" vt-graphics "$T/simt" 1
code 6 "test-restore refused under a graphical session" UT --test-restore
grep -q 'graphical session .* owns the active VT.*nothing was written.*--force' "$T/out" \
    && ok "the refusal says why and what to do" || { bad "refusal message"; sed 's/^/#   /' "$T/out"; }
code 0 "test-restore --force under a graphical session" UT --test-restore --force
"$SIMCTL" vt-graphics "$T/simt" 0
# Stopped at its deadline after the display was disturbed: the saved state is written back.
code 11 "test-restore that hangs is stopped at --deadline" env UMSRESTORE_TEST_HANG_IN_TEST=1 \
    UMSRESTORE_TEST_HW_SIM="$T/simt" "$BIN" --root "$T/mt" --test-restore --deadline 1
grep -q 'state saved before the test was written back' "$T/out" && ok "the stopped test says it wrote the state back" \
    || { bad "no write-back after the stopped test"; sed 's/^/#   /' "$T/out"; }
check "after the stopped test the device is as it was" "$SIMCTL" diff "$T/beforet" "$T/simt"
check "after the stopped test the display is live" "$SIMCTL" live "$T/simt"

# --report: kernel, the command-line flags that matter, the DMI modalias (never a serial or
# UUID), the devices with their plan and every method's last results.
mkdir -p "$T/mt/sys/class/dmi/id" "$T/mt/proc/sys/kernel"
echo "dmi:bvnAmericanMegatrendsInc.:bvr1.0B:svnMICRO-STARINTERNATIONALCO.,LTD:pnU100:pvrVer.001:" >"$T/mt/sys/class/dmi/id/modalias"
echo "SERIAL-4711-SECRET" >"$T/mt/sys/class/dmi/id/product_serial"
echo "6f1d2c44-0000-4711-8888-123456789abc" >"$T/mt/sys/class/dmi/id/product_uuid"
echo "6.1.0-test-amd64" >"$T/mt/proc/sys/kernel/osrelease"
echo "BOOT_IMAGE=/vmlinuz root=UUID=6f1d2c44-0000-4711-8888-123456789abc ro quiet nomodeset vga=0x314 i915.modeset=0" >"$T/mt/proc/cmdline"
code 0 "report" UT --report
grep -q '^Kernel: 6.1.0-test-amd64$' "$T/out" && ok "report: kernel" || bad "report: kernel"
grep -q '^Kernel command line, what matters to the display: nomodeset vga=0x314 i915.modeset=0$' "$T/out" \
    && ok "report: only the flags that matter" || { bad "report: flags"; sed 's/^/#   /' "$T/out"; }
grep -q '^DMI modalias: dmi:bvnAmericanMegatrendsInc.:.*pnU100' "$T/out" && ok "report: DMI modalias" || bad "report: modalias"
! grep -Eq 'SERIAL-4711|6f1d2c44' "$T/out" && ok "report: no DMI serial or UUID, no root= UUID" || bad "report leaks a serial or UUID"
grep -Eq '^ +vga +save [0-9.]+ ms, restore [0-9.]+ ms: ok$' "$T/out" && grep -q 'last test-restore: ok' "$T/out" \
    && ok "report: the last test-restore per method" || { bad "report: per-method results"; sed 's/^/#   /' "$T/out"; }
check "report --json parses and carries the same" sh -c "env UMSRESTORE_TEST_HW_SIM='$T/simt' '$BIN' --root '$T/mt' --report --json | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d[\"kernel\"] == \"6.1.0-test-amd64\", d
assert d[\"cmdline_flags\"] == [\"nomodeset\", \"vga=0x314\", \"i915.modeset=0\"], d
assert d[\"dmi_modalias\"].startswith(\"dmi:bvn\"), d
dev = d[\"status\"][\"devices\"][0]
names = [m[\"name\"] for m in dev[\"last_test\"][\"methods\"]]
assert \"vga\" in names and all(m[\"ok\"] for m in dev[\"last_test\"][\"methods\"]), dev
assert \"SERIAL-4711\" not in json.dumps(d)
'"

echo "1..$n"
exit $fail
