#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# The include graph of daemon/ goes one way: every #include "..." names a module of a
# strictly lower layer (or the file's own module), so there is no cycle, and the call chain
# reads main -> umsrestored -> actions -> manager -> pass -> engine -> survey -> ... -> hw.
# System headers that reach hardware or D-Bus are allowed only in their own layer.
#   test-layers.py DAEMON-DIR        (TAP output)
import os
import re
import sys

# Lowest first. A file's module is its path without extension; conf-* files are one
# module "conf", methods/ is "methods", hw/ is "hw".
LAYERS = [
    ["macro", "exit-codes", "version"],
    ["fileio"],
    ["log", "buffer", "sysfs", "suggest", "textmatch", "child", "conf-reader"],
    ["rundir", "devices", "intel-chips", "dmi"],
    ["hw", "classify", "state"],
    ["methods"],
    ["conf"],
    ["quirks"],
    ["quirks-match"],
    ["survey"],
    ["sleep-flags"],
    ["engine"],
    ["status", "pass"],
    ["report"],
    ["libsystemd-dl"],
    ["manager"],
    ["actions"],
    ["umsrestored"],
    ["main"],
]
RANK = {m: i for i, layer in enumerate(LAYERS) for m in layer}

# <system headers> that only these modules may include.
SYSTEM_ONLY = {
    "systemd/sd-bus.h": {"manager", "libsystemd-dl"},
    "systemd/sd-event.h": {"manager", "libsystemd-dl"},
    "pciaccess.h": {"hw"},
    "linux/vt.h": {"hw"},
    "linux/kd.h": {"hw"},
    "sys/io.h": {"hw"},
    "sys/ioctl.h": {"hw"},
}


def module_of(rel):
    rel = os.path.splitext(rel)[0]
    if rel.startswith("hw/"):
        return "hw"
    if rel.startswith("methods/"):
        return "methods"
    if rel == "conf-reader":
        return "conf-reader"
    if rel == "conf" or rel.startswith("conf-"):
        return "conf"
    return rel


def main():
    top = sys.argv[1]
    n = 0
    bad = 0
    files = []
    for d, _, names in os.walk(top):
        for name in names:
            if name.endswith((".c", ".h")):
                files.append(os.path.relpath(os.path.join(d, name), top))
    for rel in sorted(files):
        src = module_of(rel)
        problems = []
        if src not in RANK:
            problems.append(f"module '{src}' is in no layer: add it to LAYERS")
        with open(os.path.join(top, rel)) as f:
            text = f.read()
        for inc in re.findall(r'^#include\s+"([^"]+)"', text, re.M):
            dst = module_of(inc)
            if dst == src:
                continue
            if dst not in RANK:
                problems.append(f"includes '{inc}' of no layer")
            elif src in RANK and RANK[dst] >= RANK[src]:
                problems.append(f"includes '{inc}' ({dst}, layer {RANK[dst]}) from layer {RANK[src]}: "
                                "an include may only point down")
        for inc in re.findall(r'^#include\s+<([^>]+)>', text, re.M):
            allowed = SYSTEM_ONLY.get(inc)
            if allowed is not None and src not in allowed:
                problems.append(f"includes <{inc}>, which only {', '.join(sorted(allowed))} may")
        for word in ("UMSRESTORE_TEST", "hw-sim", "hw_sim"):
            if word in text:
                problems.append(f"mentions '{word}': test code belongs under tests/")
        n += 1
        if problems:
            bad = 1
            print(f"not ok {n} - {rel}")
            for p in problems:
                print(f"#   {p}")
        else:
            print(f"ok {n} - {rel} ({src}, layer {RANK[src]})")
    print(f"1..{n}")
    return bad


sys.exit(main())
