#!/bin/sh
# SPDX-License-Identifier: MIT
# The quirk database from the command line: `umsrestored --quirks [--json]` explains the MSI
# Wind U100's match (file:line, the matching lines and values, the plan); a broken local
# override is named FILE:LINE and the shipped set kept; a save and a restore pass on the fake
# U100 (simulator) set kernel.acpi_video_flags from its quirks and put the old value back.
set -u
BIN=${1:?usage: test-quirks-cli.sh UMSRESTORED UMSRESTORED-SIM SIMCTL TESTDATA-DIR QUIRKS-DIR}
SIM=${2:?usage}
SIMCTL=${3:?usage}
DATA=${4:?usage}
QDIR=${5:?usage}
n=0
fail=0
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
ok() { n=$((n + 1)); echo "ok $n - $*"; }
bad() { n=$((n + 1)); echo "not ok $n - $*"; sed 's/^/#   /' "$T/out"; fail=1; }
has() { if grep -Eq -- "$2" "$T/out"; then ok "$1"; else bad "$1: no /$2/"; fi; }

cp -a "$DATA/machines/msi-wind-u100" "$T/m"
"$BIN" --root "$T/m" --quirks --quirks-dir "$QDIR" >"$T/out" 2>&1 && ok "--quirks on the U100 exits 0" \
    || bad "--quirks on the U100 fails"
has "--quirks names the seed section and its file:line" "^  \[MSI Wind U100\] .*/50-umsrestore.quirks:[0-9]+$"
has "--quirks shows the modalias line and what it matched" \
    "^    line [0-9]+: MatchDMIModalias=dmi:\*:svnMICRO-STARINTERNATIONALCO.,LTD:pnU-100:\* matched 'dmi:.*:pnU-100:"
has "--quirks shows the PCI ID line and the device's ID" "^    line [0-9]+: MatchPCIID=8086:27ae matched '8086:27ae:"
has "--quirks shows pm-utils' entry for the model, with the product value" \
    "^    line [0-9]+: MatchProductName=regex \^\(MS-1057\|U-100\)\\$ matched 'U-100'$"
has "--quirks gives the plan with intel" "^  plan: .*intel"
has "--quirks gives the machine-wide flags and where they come from" \
    "^kernel.acpi_video_flags around sleep: both \(ACPIVideoFlags= of \[pm-utils 20-video-quirk-pm-misc.quirkdb:[0-9]+\]"
if "$BIN" --root "$T/m" --quirks --json --quirks-dir "$QDIR" 2>&1 | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
dev = next(x for x in d["devices"] if x["slot"] == "0000:00:02.0")
seed = next(q for q in dev["quirks"] if q["name"] == "MSI Wind U100")
assert d["version"] == 1 and d["acpi_video_flags"] == "both", d
assert [m["key"] for m in seed["matches"]] == ["MatchDMIModalias", "MatchPCIID"], seed
assert seed["attributes"] == {"AddMethods": "intel"} and "intel" in dev["plan"], dev
second = next(x for x in d["devices"] if x["slot"] == "0000:00:02.1")
assert second["quirks"] == [], second
' >"$T/out" 2>&1; then ok "--quirks --json: the seed section, its matches, the plan, nothing on 00:02.1"
else bad "--quirks --json on the U100"; fi

# A broken local override: named with FILE:LINE and a suggestion, the shipped set kept.
mkdir -p "$T/m/usr/local/etc/umsrestore/quirks.d" "$T/m/etc/umsrestore/quirks.d"
for d in "$T/m/usr/local/etc/umsrestore/quirks.d" "$T/m/etc/umsrestore/quirks.d"; do
    printf '[Mine]\nMatchProductName=regex U-100\nDPMSOnn=yes\n' >"$d/10-mine.quirks"
done
"$BIN" --root "$T/m" --quirks --quirks-dir "$QDIR" >"$T/out" 2>&1
has "--quirks names the broken local file FILE:LINE with a suggestion" \
    "10-mine.quirks:3: unknown key 'DPMSOnn' in \[Mine\] \(did you mean 'DPMSOn'\?\)"
has "--quirks keeps the shipped set with a broken local file" "^  \[MSI Wind U100\] "
rm -rf "$T/m/usr" "$T/m/etc"

# kernel.acpi_video_flags around a pass (umsrestored-sim on the fake U100).
mkdir -p "$T/m/proc/sys/kernel"
echo 0 >"$T/m/proc/sys/kernel/acpi_video_flags"
"$SIMCTL" init "$T/sim" mode3
UMSRESTORE_TEST_HW_SIM="$T/sim" "$SIM" --root "$T/m" --quirks-dir "$QDIR" --save-now >"$T/out" 2>&1
[ "$(cat "$T/m/proc/sys/kernel/acpi_video_flags")" = 3 ] && ok "a save sets kernel.acpi_video_flags to 3 (s3_bios + s3_mode)" \
    || bad "kernel.acpi_video_flags after the save: $(cat "$T/m/proc/sys/kernel/acpi_video_flags")"
has "the save says so" "kernel.acpi_video_flags set to 3 \(was 0\)"
"$SIMCTL" wake "$T/sim"
UMSRESTORE_TEST_HW_SIM="$T/sim" "$SIM" --root "$T/m" --quirks-dir "$QDIR" --restore-now >"$T/out" 2>&1
[ "$(cat "$T/m/proc/sys/kernel/acpi_video_flags")" = 0 ] && ok "the restore puts kernel.acpi_video_flags back to 0" \
    || bad "kernel.acpi_video_flags after the restore: $(cat "$T/m/proc/sys/kernel/acpi_video_flags")"
has "the restore says so" "kernel.acpi_video_flags put back to 0"

# A machine no quirk names: nothing written.
cp -a "$DATA/machines/cirrus-nodriver" "$T/c"
mkdir -p "$T/c/proc/sys/kernel"
echo 2 >"$T/c/proc/sys/kernel/acpi_video_flags"
"$SIMCTL" init "$T/simc" mode3
UMSRESTORE_TEST_HW_SIM="$T/simc" "$SIM" --root "$T/c" --quirks-dir "$QDIR" --save-now >"$T/out" 2>&1
[ "$(cat "$T/c/proc/sys/kernel/acpi_video_flags")" = 2 ] && ! grep -q acpi_video_flags "$T/out" \
    && ok "no quirk: kernel.acpi_video_flags left alone" || bad "no quirk: kernel.acpi_video_flags touched"

echo "1..$n"
exit $fail
