#!/bin/sh
# SPDX-License-Identifier: MIT
# Command-line contract of umsrestored: --help, --version, usage errors (exit 2),
# configuration errors (exit 8), and actions that are not implemented yet failing loudly.
set -u
BIN=${1:?usage: test-cli.sh PATH-TO-umsrestored TESTDATA-DIR}
DATA=${2:?usage: test-cli.sh PATH-TO-umsrestored TESTDATA-DIR}
VBE=${3:-yes} # whether this build has the vbe method (libx86emu)
M=$DATA/machines
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

# --status on fake machines (sysfs trees under --root)
expect 0 '^No display device found' --status --root "$M/no-gpu"
expect 0 '0000:00:02.0 +1234:1111 +yes +bochs-drm +kms ' --status --root "$M/stdvga-bochs-kms"
expect 0 'hands off: umsrestore does not touch this device' --status --root "$M/stdvga-bochs-kms"
expect 0 '0000:00:02.0 +1013:00b8 +yes +- +firmware +no kernel driver, console on vgacon' --status --root "$M/cirrus-nodriver"
expect 0 'methods: ' --status --root "$M/cirrus-nodriver"
expect 0 'last save: never' --status --root "$M/cirrus-nodriver"
expect 0 '0000:01:00.0 .*firmware' --status --root "$M/two-gpus"
expect 0 'legacy VGA through the VGA arbiter' --status --root "$M/two-gpus"
expect 0 'Cannot save or restore on this machine: kernel lockdown \(integrity\)' --status --root "$M/lockdown"
expect 1 "No display device at '0000:00:09.0'" --status --device 0000:00:09.0 --root "$M/two-gpus"
expect 0 '"verdict":"kms"' --status --json --root "$M/stdvga-bochs-kms"
# --report names the quirk sections that apply (the seed machine's among them) and what the
# kernel command line says that matters (i915.modeset=0), but nothing else of it.
expect 0 'quirks: .*\[MSI Wind U100\] [^ ]*50-umsrestore\.quirks:[0-9]+' --report --root "$M/msi-wind-u100" --quirks-dir "$DATA/../../conf/quirks"
expect 0 'what matters to the display: i915\.modeset=0$' --report --root "$M/msi-wind-u100" --quirks-dir "$DATA/../../conf/quirks"
expect 0 '"quirks":\[\{"name":"pm-utils' --report --json --root "$M/msi-wind-u100" --quirks-dir "$DATA/../../conf/quirks"
expect 2 "--force only applies to --test-restore" --status --force
# A firmware frame buffer mode no planned method brings back is named before sleep.
expect 0 'WARNING: its efifb console runs a linear frame buffer \(VESA/UEFI GOP\) mode that no planned method brings back: the screen will stay dark after sleep \(no built-in method can restore it on this device\)' --status --root "$M/efifb"
expect 0 '"mode":"linear","mode_restorable":false,"mode_warning":"its efifb console' --status --json --root "$M/efifb"
expect 0 '"mode":"linear","mode_restorable":true,"mode_warning":null' --status --json --root "$M/vesafb"
expect 0 '"mode":"vga","mode_restorable":true,"mode_warning":null' --status --json --root "$M/cirrus-nodriver"
# The video BIOS joins a default plan only for a mode nothing native brings back: vesafb on
# Cirrus; not vesafb on std VGA (bochs), not a text console, not efifb (a UEFI machine).
if [ "$VBE" = yes ]; then
    expect 0 '"vbe_available":true' --status --json --root "$M/cirrus-vesafb"
    expect 0 'Video BIOS method \(vbe\): available' --status --root "$M/cirrus-vesafb"
    expect 0 '"methods":\["backlight","console","dpms","vga","vbe","pci-config"\],"mode":"linear","mode_restorable":true' --status --json --root "$M/cirrus-vesafb"
    expect 0 '"methods":\["backlight","console","dpms","vga","bochs","pci-config"\]' --status --json --root "$M/vesafb"
    expect 0 '"methods":\["backlight","console","dpms","vga","pci-config"\]' --status --json --root "$M/cirrus-nodriver"
    # Named, it runs in a text mode too (its probe then decides at run time).
    cfg=$(mktemp); printf '[General]\nMethods=vga vbe\n' >"$cfg"
    expect 0 '"methods":\["vga","vbe"\]' --status --json --config "$cfg" --root "$M/cirrus-nodriver"
    rm -f "$cfg"
else
    expect 0 '"vbe_available":false' --status --json --root "$M/cirrus-vesafb"
    expect 0 'Video BIOS method \(vbe\): unavailable \(built without libx86emu' --status --root "$M/cirrus-vesafb"
    expect 0 'WARNING: its vesafb console runs a linear frame buffer' --status --root "$M/cirrus-vesafb"
fi
# a KMS-only machine has nothing to save: exit 3, and no state directory is created
tmp=$(mktemp -d); cp -r "$M/stdvga-bochs-kms" "$tmp/m"
expect 3 'nothing to save' --save-now --root "$tmp/m"
n=$((n + 1))
if ls "$tmp/m/run/umsrestore/"*.state >/dev/null 2>&1; then
    echo "not ok $n - a state file was written for a KMS device"; fail=1
else
    echo "ok $n - no state file for a KMS device"
fi
rm -rf "$tmp"

# configuration: errors name FILE:LINE and exit 8; exclusion is honoured
tmp=$(mktemp -d); cp -r "$M/stdvga-vgacon" "$tmp/m"
printf '[General]\nConsoleSwitch=no\nMethods=vag\n' >"$tmp/c.conf"
expect 8 "c.conf:3: unknown method 'vag' \\(did you mean 'vga'\\?\\)" --check-config --config "$tmp/c.conf"
printf '[General]\nConsoleSwtich=no\n' >"$tmp/c.conf"
expect 8 "c.conf:2: " --status --config "$tmp/c.conf" --root "$tmp/m"
expect 8 "nonexistent.conf" --check-config --config "$tmp/nonexistent.conf"
printf '[General]\nMethods=pci-config\nLogLevel=debug\n' >"$tmp/c.conf"
expect 0 '^Methods=pci-config$' --check-config --config "$tmp/c.conf"
expect 0 'methods: pci-config$' --status --config "$tmp/c.conf" --root "$tmp/m"
printf '[General]\nExclude=00:02.0\n' >"$tmp/c.conf"
expect 0 'excluded by the configuration' --status --config "$tmp/c.conf" --root "$tmp/m"
expect 3 'excluded by the configuration' --save-now --config "$tmp/c.conf" --root "$tmp/m"
expect 2 '--config does not apply to --dump' --dump /dev/null --config "$tmp/c.conf"
# a comment after a value is an error, not a silent truncation of the value
printf '[General]\nMethods=vga ; pci-config\n' >"$tmp/c.conf"
expect 8 "c.conf:2: unexpected ';' in the value of Methods= \\(comments go on their own line\\)" --check-config --config "$tmp/c.conf"
# a FIFO is refused at once (reading it would wait for a writer forever)
mkfifo "$tmp/fifo.conf"
expect 8 "fifo.conf: cannot read: not a regular file \\(a FIFO\\)" --check-config --config "$tmp/fifo.conf"
# --check-config fails where the daemon (root without CAP_DAC_OVERRIDE) would
if [ "$(id -u)" -eq 0 ]; then
    printf '[General]\n' >"$tmp/zero.conf"; chmod 0000 "$tmp/zero.conf"
    expect 8 "zero.conf: the daemon cannot read this file \\(owner uid 0 gid 0, mode 0000; .*chmod 0644 " --check-config --config "$tmp/zero.conf"
fi
rm -rf "$tmp"

# JSON is valid
n=$((n + 1))
for m in no-gpu two-gpus lockdown i945-ums; do
    if ! "$BIN" --status --json --root "$M/$m" | /usr/bin/python3 -c 'import json,sys; d=json.load(sys.stdin); assert isinstance(d["devices"], list)'; then
        echo "not ok $n - --status --json on $m is not valid JSON"; fail=1; break
    fi
done
[ $fail -eq 0 ] && echo "ok $n - --status --json parses on four machines"

# JSON lists are arrays (version 2), the roles and plans are what the machine implies.
n=$((n + 1))
if "$BIN" --status --json --root "$M/two-gpus" | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["version"] == 2, d["version"]
kms, fw = d["devices"]
assert kms["role"] == "hands-off" and kms["methods"] == [] and kms["drm_cards"] == ["card0"], kms
assert fw["role"] == "managed" and isinstance(fw["methods"], list) and "vga" in fw["methods"], fw
assert fw["last_save"] is None and fw["driver"] is None, fw
'; then
    echo "ok $n - --status --json: lists are arrays, roles and plans per device"
else
    echo "not ok $n - --status --json: lists, roles or plans wrong"; fail=1
fi

# The MSI Wind U100 (945GSE, i915 with modeset=0): intel for the engine, only pci-config for
# its second function; under KMS both functions are left alone.
n=$((n + 1))
if "$BIN" --status --json --root "$M/msi-wind-u100" | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
f0, f1 = d["devices"]
assert f0["slot"] == "0000:00:02.0" and f0["role"] == "managed", f0
assert "intel" in f0["methods"] and "vga" in f0["methods"], f0
assert f0["methods"].index("intel") > f0["methods"].index("vga"), f0  # restored before vga
assert f0["vga_arbiter"] is False and f0["engine_of"] is None, f0
assert f1["slot"] == "0000:00:02.1" and f1["methods"] == ["pci-config"], f1
assert f1["engine_of"] == "0000:00:02.0" and f1["vga_arbiter"] is False, f1
'; then
    echo "ok $n - --status --json on the MSI Wind U100: intel for 00:02.0, only pci-config for 00:02.1"
else
    echo "not ok $n - --status --json on the MSI Wind U100: wrong plans"; fail=1
fi
n=$((n + 1))
if "$BIN" --status --json --root "$M/i945-kms-second-function" | /usr/bin/python3 -c '
import json, sys
d = json.load(sys.stdin)
assert all(x["role"] == "hands-off" and x["methods"] == [] for x in d["devices"]), d["devices"]
'; then
    echo "ok $n - --status --json: the second function of a KMS engine is left alone"
else
    echo "not ok $n - --status --json: the second function of a KMS engine is planned"; fail=1
fi
expect 0 'methods: backlight, console, dpms, vga, intel, pci-config' --status --root "$M/msi-wind-u100"
expect 0 'methods: pci-config$' --status --device 0000:00:02.1 --root "$M/msi-wind-u100"
expect 0 'methods: backlight, console, dpms, vga, pci-config$' --status --root "$M/cirrus-nodriver"

# The Radeon Mobility M6 without a KMS driver: radeon for its panel and DAC, restored before
# vga (later in the save order); under radeon KMS, and for NVIDIA under nouveau KMS or the
# proprietary driver, nothing is planned; an NVIDIA card without a driver gets the native VGA
# path (no vbe unless a linear console mode needs it, no radeon).
n=$((n + 1))
if "$BIN" --status --json --root "$M/radeon-m6-vgacon" | /usr/bin/python3 -c '
import json, sys
(d,) = json.load(sys.stdin)["devices"]
assert d["role"] == "managed" and "radeon" in d["methods"] and "vga" in d["methods"], d
assert d["methods"].index("radeon") > d["methods"].index("vga"), d  # restored before vga
assert "intel" not in d["methods"] and "bochs" not in d["methods"], d
'; then
    echo "ok $n - --status --json on a Radeon Mobility M6 without KMS: radeon planned, restored before vga"
else
    echo "not ok $n - --status --json on a Radeon Mobility M6 without KMS: wrong plan"; fail=1
fi
n=$((n + 1))
if "$BIN" --status --json --root "$M/nvidia-nodriver" | /usr/bin/python3 -c '
import json, sys
(d,) = json.load(sys.stdin)["devices"]
assert d["role"] == "managed" and d["verdict"] == "firmware", d
assert d["methods"] == ["backlight", "console", "dpms", "vga", "pci-config"], d["methods"]
'; then
    echo "ok $n - --status --json on NVIDIA without a driver: the native VGA plan"
else
    echo "not ok $n - --status --json on NVIDIA without a driver: wrong plan"; fail=1
fi
for m in radeon-m6-kms nvidia-nouveau-kms nvidia; do
    n=$((n + 1))
    if "$BIN" --status --json --root "$M/$m" | /usr/bin/python3 -c '
import json, sys
(d,) = json.load(sys.stdin)["devices"]
assert d["role"] == "hands-off" and d["methods"] == [] and d["verdict"] in ("kms", "foreign"), d
'; then
        echo "ok $n - --status --json on $m: handed off, nothing planned"
    else
        echo "not ok $n - --status --json on $m: not handed off"; fail=1
    fi
done

# this machine: the real PCI bus through libpciaccess
expect 0 '(^No display device found|^DEVICE )' --status

echo "1..$n"
exit $fail
