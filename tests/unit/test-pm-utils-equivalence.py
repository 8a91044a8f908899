#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# The import keeps pm-utils' meaning: for a DMI identity built from every entry of pm-utils'
# video quirk database (and a few that match nothing), pm-utils' own 98video-quirk-db-handler
# and `umsrestored --root FAKE --quirks --json` select the same quirks.
#
#   test-pm-utils-equivalence.py UMSRESTORED SOURCE-DIR [QUIRKDB-DIR]
#
# Without QUIRKDB-DIR: Debian's installed database against conf/quirks; with it, that
# database against its fresh conversion.
#
# The handler reads /sys/class/dmi/id, /sys/bus/pci/devices, /sys/module and /proc/fb at
# fixed paths: it runs in a private mount namespace (unshare -m, as root; unshare -rm
# otherwise) where the fake tree is bound over /sys, and with pm-utils' state files in a
# temporary directory. Nothing of the real system changes.
import concurrent.futures
import importlib.machinery
import importlib.util
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import warnings

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import sre_constants as C
    import sre_parse

HANDLER = "/usr/lib/pm-utils/sleep.d/98video-quirk-db-handler"
FUNCTIONS = "/usr/lib/pm-utils/functions"
# pm-utils' quirks that umsrestore does not import (listed in the converted files' headers):
# pm-utils may select them, umsrestore never does.
NOT_IMPORTED = {"--quirk-no-fb", "--quirk-pci-save"}
# The slot of the fake machine's one display device.
SLOT = "0000:00:02.0"
# Our attribute values back to pm-utils' names.
REVERSE = {
    ("VBEPost", "yes"): ["--quirk-vbe-post"],
    ("VBEMode", "yes"): ["--quirk-vbemode-restore"],
    ("VBEState", "yes"): ["--quirk-vbestate-restore"],
    ("DPMSOn", "yes"): ["--quirk-dpms-on"],
    ("DPMSSuspend", "yes"): ["--quirk-dpms-suspend"],
    ("ACPIVideoFlags", "s3_bios"): ["--quirk-s3-bios"],
    ("ACPIVideoFlags", "s3_mode"): ["--quirk-s3-mode"],
    ("ACPIVideoFlags", "both"): ["--quirk-s3-bios", "--quirk-s3-mode"],
    ("ResumesUnaided", "yes"): ["--quirk-none"],
    ("RadeonLight", "yes"): ["--quirk-radeon-off"],
    ("BacklightReset", "yes"): ["--quirk-reset-brightness"],
    ("AddMethods", "pci-config"): ["--quirk-save-pci"],
}
FIELD_FILES = {
    "system.hardware.vendor": "sys_vendor",
    "system.hardware.product": "product_name",
    "system.hardware.version": "product_version",
    "system.firmware.vendor": "bios_vendor",
    "system.firmware.version": "bios_version",
    "system.firmware.release_date": "bios_date",
    "system.board.product": "board_name",
    "system.board.vendor": "board_vendor",
    "system.board.version": "board_version",
}
BASE = {
    "sys_vendor": "Nobody Inc.",
    "product_name": "Nothing 1",
    "product_version": "None",
    "bios_vendor": "Nobody BIOS",
    "bios_version": "0.0",
    "bios_date": "01/01/2000",
    "board_name": "Nothing",
    "board_vendor": "Nobody Inc.",
    "board_version": "None",
}
# Identities of machines beside the entries' own: QEMU's, a DMI table without strings, the
# base one (no entry names them), the seed machine.
PLAIN = [
    ("QEMU i440FX", {"sys_vendor": "QEMU", "product_name": "Standard PC (i440FX + PIIX, 1996)",
                     "product_version": "pc-i440fx-7.2", "bios_vendor": "SeaBIOS",
                     "bios_version": "1.16.2-debian-1.16.2-1", "bios_date": "04/01/2014"}),
    ("empty strings", {k: "" for k in BASE}),
    ("base", {}),
    ("MSI Wind U100", {"sys_vendor": "MICRO-STAR INTERNATIONAL CO., LTD", "product_name": "U-100",
                       "product_version": "Ver.001", "bios_vendor": "Phoenix Technologies, LTD",
                       "bios_version": "1.0E", "bios_date": "06/05/2008"}),
]


def load_importer(src):
    path = os.path.join(src, "tools", "import-pm-utils-quirks")
    loader = importlib.machinery.SourceFileLoader("importer", path)
    spec = importlib.util.spec_from_loader("importer", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


def sample(pattern):
    """A short string the ERE pattern matches (Python's parser reads these patterns alike),
    or None."""
    try:
        tree = sre_parse.parse(pattern)
    except (re.error, OverflowError, RecursionError):
        return None

    def gen(items):
        out = []
        for op, av in items:
            if op == C.LITERAL:
                out.append(chr(av))
            elif op == C.ANY:
                out.append("x")
            elif op == C.IN:
                chars = [a for a in av if a[0] in (C.LITERAL, C.RANGE)]
                if av and av[0][0] == C.NEGATE:
                    out.append("\x01" if chars else "x")
                elif chars:
                    out.append(chr(chars[0][1] if chars[0][0] == C.LITERAL else chars[0][1][0]))
                else:
                    out.append("a")
            elif op in (C.MAX_REPEAT, C.MIN_REPEAT):
                lo, _hi, sub = av
                out.append(gen(sub) * lo)
            elif op == C.SUBPATTERN:
                out.append(gen(av[-1]))
            elif op == C.BRANCH:
                out.append(gen(av[1][0]))
            elif op == C.AT:
                pass
            else:
                return "x"
        return "".join(out)

    return gen(tree)


def ere_search(pattern, value, icase):
    try:
        return re.search(pattern, value, re.I if icase else 0) is not None
    except re.error:
        return False


def holds(op, pattern, value):
    if op == "regex":
        return ere_search(pattern, value, False)
    if op == "regex_ncase":
        return ere_search(pattern, value, True)
    if op == "regex_inverse":
        return not ere_search(pattern, value, False)
    if op == "compare_lt":
        return value < pattern
    if op == "compare_ge":
        return value >= pattern
    return True


def field_value(constraints):
    """A value meeting every (op, pattern) of one field, as far as simple guesses go."""
    positives = []
    for op, pattern in constraints:
        if op.startswith("regex") and op != "regex_inverse":
            s = sample(pattern)
            if s is not None:
                positives.append(s)
        elif op == "compare_ge":
            positives.append(pattern)
        elif op == "compare_lt":
            positives.append(pattern[:-1] if pattern else "")
    candidates = []
    if positives:
        candidates += [" ".join(positives), "".join(positives)] + positives
    candidates.append("zz-unnamed")
    for c in candidates:
        if all(holds(op, p, c) for op, p in constraints):
            return c
    return candidates[0]


def tuples_of(importer, db_dir):
    """(name, dmi fields, pci (vendor, device, driver)) for every block with quirks."""
    out = []
    for name in sorted(n for n in os.listdir(db_dir) if n.endswith(".quirkdb")):
        root, _stray, _unread = importer.parse_db(os.path.join(db_dir, name))

        def walk(block, chain):
            chain = chain + [block] if block.key else chain
            if block.quirks:
                per_field, pci = {}, {"vendor": 0x8086, "device": 0x27A2, "driver": None}
                for b in chain:
                    if b.key in FIELD_FILES:
                        per_field.setdefault(FIELD_FILES[b.key], []).append(
                            (b.op, b.value.replace(";", "|")))
                    elif b.key.endswith("primary_video.vendor"):
                        pci["vendor"] = int(b.value, 0)
                    elif b.key.endswith("primary_video.product"):
                        pci["device"] = int(b.value, 0)
                    elif b.key.endswith("primary_video.driver"):
                        pci["driver"] = b.value
                fields = {f: field_value(c) for f, c in per_field.items()}
                out.append((f"{name}:{block.line}", fields, pci))
            for c in block.children:
                walk(c, chain)

        walk(root, [])
    return out


def write_machine(top, fields, pci):
    dmi = os.path.join(top, "sys", "class", "dmi", "id")
    dev = os.path.join(top, "sys", "bus", "pci", "devices", SLOT)
    os.makedirs(dmi)
    os.makedirs(dev)
    values = dict(BASE, **fields)
    for f, v in values.items():
        with open(os.path.join(dmi, f), "w", encoding="latin-1") as fh:
            fh.write(v + "\n")
    for f, v in (("vendor", "0x%04x" % pci["vendor"]), ("device", "0x%04x" % pci["device"]),
                 ("class", "0x030000"), ("subsystem_vendor", "0x1af4"), ("subsystem_device", "0x1100"),
                 ("revision", "0x00"), ("boot_vga", "1")):
        with open(os.path.join(dev, f), "w") as fh:
            fh.write(v + "\n")
    if pci["driver"]:
        os.symlink("../../../bus/pci/drivers/" + pci["driver"], os.path.join(dev, "driver"))


def run_pm_utils(top, db_dir, unshare):
    """The quirks pm-utils' handler selects on the fake machine, or 'default'."""
    state = os.path.join(top, "pm-state")
    os.makedirs(state)
    params = os.path.join(state, "parameters")
    open(params, "w").close()
    env = {
        "PATH": "/usr/sbin:/usr/bin:/sbin:/bin",
        "LC_ALL": "C",
        "PM_FUNCTIONS": FUNCTIONS,
        "PM_QUIRKDB": db_dir,
        "PM_LKW_QUIRKS": os.path.join(state, "last_known_working.quirkdb"),
        "STORAGEDIR": state,
        "PARAMETERS": params,
    }
    fb = "mount --bind /dev/null /proc/fb && " if os.path.exists("/proc/fb") else ""
    script = f'mount --bind "{top}/sys" /sys && {fb}exec /bin/bash "{HANDLER}" suspend'
    r = subprocess.run(unshare + ["/bin/sh", "-c", script], env=env, capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise RuntimeError(f"handler failed ({r.returncode}): {r.stdout}{r.stderr}")
    if "using default" in r.stdout:
        return "default", r.stdout
    if "Using quirks for this system from quirk database" not in r.stdout:
        raise RuntimeError(f"handler took another path: {r.stdout}{r.stderr}")
    with open(params) as f:
        return {p for p in f.read().split() if p not in NOT_IMPORTED}, r.stdout


def run_ours(binary, top, quirks_dir):
    r = subprocess.run([binary, "--root", top, "--quirks", "--json", "--quirks-dir", quirks_dir],
                       capture_output=True, text=True, timeout=60)
    if r.returncode != 0:
        raise RuntimeError(f"umsrestored --quirks failed ({r.returncode}): {r.stderr}")
    out = json.loads(r.stdout)
    if out["shipped_error"]:
        raise RuntimeError(f"shipped quirk files broken: {out['shipped_error']}")
    dev = next(d for d in out["devices"] if d["slot"] == SLOT)
    hits = [q for q in dev["quirks"] if q["name"].startswith("pm-utils ")]
    if not hits:
        return "default", []
    chosen = set()
    for q in hits:
        for key, value in q["attributes"].items():
            if (key, value) not in REVERSE:
                raise RuntimeError(f"[{q['name']}] {key}={value} has no pm-utils name")
            chosen.update(REVERSE[(key, value)])
    return chosen, [q["name"] for q in hits]


def pick_unshare():
    tries = [["unshare", "-m", "--propagation", "private"]] if os.geteuid() == 0 else []
    tries.append(["unshare", "-r", "-m", "--propagation", "private"])
    for u in tries:
        if subprocess.run(u + ["/bin/true"], capture_output=True).returncode == 0:
            return u
    return None


def main():
    binary, src = sys.argv[1], sys.argv[2]
    own_db = len(sys.argv) > 3
    db_dir = sys.argv[3] if own_db else "/usr/lib/pm-utils/video-quirks"
    quirks_dir = os.path.join(src, "conf", "quirks")
    # Share of the entries whose identity pm-utils must match, in tenths (the own database
    # holds entries that on purpose never match).
    min_share = 5 if own_db else 9
    for path in (HANDLER, FUNCTIONS, db_dir):
        if not os.path.exists(path):
            print(f"not ok 1 - {path} missing: apt-get install pm-utils (tools/packages.txt)\n1..1")
            return 1
    unshare = pick_unshare()
    if not unshare:
        print("1..0 # SKIP no mount namespace here (needs root or user namespaces); CI runs it as root")
        return 77
    importer = load_importer(src)
    cases = tuples_of(importer, db_dir) + [(f"identity {n}", f, {"vendor": 0x8086, "device": 0x27A2,
                                                                   "driver": None}) for n, f in PLAIN]
    tmp = tempfile.mkdtemp(prefix="pm-equiv-")
    if own_db:
        # A database of the test's own: its conversion, fresh.
        quirks_dir = os.path.join(tmp, "quirks")
        os.makedirs(quirks_dir)
        subprocess.run([os.path.join(src, "tools", "import-pm-utils-quirks"), "--from", db_dir, "--to", quirks_dir],
                       check=True, capture_output=True)

    def check(i):
        name, fields, pci = cases[i]
        top = os.path.join(tmp, str(i))
        write_machine(top, fields, pci)
        try:
            theirs, log = run_pm_utils(top, db_dir, unshare)
            ours, hits = run_ours(binary, top, quirks_dir)
        except (RuntimeError, OSError, ValueError, subprocess.TimeoutExpired) as e:
            return False, False, [f"{name}: {e}"]
        finally:
            shutil.rmtree(top, ignore_errors=True)
        matched = theirs != "default" and not name.startswith("identity ")
        desc = "default" if theirs == "default" else " ".join(sorted(theirs)) or "(nothing umsrestore imports)"
        if theirs == ours or (theirs != "default" and not theirs and ours == "default"):
            return True, matched, [f"{name}: {desc}"]
        return False, matched, [
            f"{name}: pm-utils selects {desc}, umsrestore {'default' if ours == 'default' else ' '.join(sorted(ours))} "
            f"(sections: {', '.join(hits)})"] + [f"  {k}={v!r}" for k, v in sorted(fields.items())] + [
            f"  pci={pci}"] + ["  " + line for line in log.strip().splitlines()]

    n = failed = pm_matched = 0
    try:
        with concurrent.futures.ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
            for good, matched, lines in pool.map(check, range(len(cases))):
                n += 1
                pm_matched += matched
                print(f"{'ok' if good else 'not ok'} {n} - {lines[0]}")
                for line in lines[1:]:
                    print("#   " + line)
                failed += not good
        # The identities must really exercise the database: most entries' own identity
        # makes pm-utils pick quirks from it (a generator that built nothing would not).
        n += 1
        n_entries = len(cases) - len(PLAIN)
        if pm_matched * 10 >= n_entries * min_share:
            print(f"ok {n} - pm-utils found its database entry for {pm_matched} of {n_entries} identities")
        else:
            failed += 1
            print(f"not ok {n} - pm-utils found an entry for only {pm_matched} of {n_entries} identities")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print(f"1..{n}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
