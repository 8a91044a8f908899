#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# Benchmark: time from PrepareForSleep(true) to the release of the logind delay lock,
# median of N cycles, on a private bus with dbusmock's logind. Side by side:
#   umsrestored   the daemon (umsrestored-sim: the same code on a simulated std VGA, text mode, 4 planes)
#   no-op holder  a minimal client that closes its lock as soon as the signal arrives
#                 (what any inhibitor costs at least: D-Bus delivery and the mock's view)
# Usage: bench/sleep-latency.py BUILD-DIR [N] [--json FILE]   (FILE: the raw times, for bench/run)
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

import dbus
import dbusmock

ARGS = sys.argv[1:]
JSON_OUT = None
if "--json" in ARGS:
    JSON_OUT = ARGS[ARGS.index("--json") + 1]
    del ARGS[ARGS.index("--json"):ARGS.index("--json") + 2]
BUILD = ARGS[0] if len(ARGS) > 0 else "build"
N = int(ARGS[1]) if len(ARGS) > 1 else 100
TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BIN = os.path.join(BUILD, "tests", "sim", "umsrestored-sim")
SIMCTL = os.path.join(BUILD, "tests", "simctl")
MGR = "org.freedesktop.login1.Manager"

NOOP_HOLDER = r'''
import dbus, os, sys
from dbus.mainloop.glib import DBusGMainLoop
from gi.repository import GLib
DBusGMainLoop(set_as_default=True)
bus = dbus.SystemBus()
mgr = dbus.Interface(bus.get_object("org.freedesktop.login1", "/org/freedesktop/login1"), "org.freedesktop.login1.Manager")
state = {"fd": mgr.Inhibit("sleep", "noop-holder", "benchmark", "delay").take()}
def on_sleep(start):
    if start and state["fd"] is not None:
        os.close(state["fd"]); state["fd"] = None
    elif not start and state["fd"] is None:
        state["fd"] = mgr.Inhibit("sleep", "noop-holder", "benchmark", "delay").take()
bus.add_signal_receiver(on_sleep, "PrepareForSleep", "org.freedesktop.login1.Manager")
print("ready", flush=True)
GLib.MainLoop().run()
'''


class Bench(dbusmock.DBusTestCase):
    pass


def held(manager, who):
    return any(str(i[1]) == who for i in manager.ListInhibitors())


def wait(cond, timeout=10.0):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return True
    raise RuntimeError("timeout")


def measure(obj, manager, who, n):
    times = []
    wait(lambda: held(manager, who))
    for _ in range(n):
        t0 = time.perf_counter()
        obj.EmitSignal(MGR, "PrepareForSleep", "b", [True], dbus_interface="org.freedesktop.DBus.Mock")
        wait(lambda: not held(manager, who))
        times.append((time.perf_counter() - t0) * 1000.0)
        obj.EmitSignal(MGR, "PrepareForSleep", "b", [False], dbus_interface="org.freedesktop.DBus.Mock")
        wait(lambda: held(manager, who))
    return times


def main():
    Bench.start_system_bus()
    p_mock, obj = Bench.spawn_server_template("logind", {}, stdout=subprocess.DEVNULL)
    obj.AddProperty(MGR, "InhibitDelayMaxUSec", dbus.UInt64(5000000))
    manager = dbus.Interface(obj, MGR)
    # A tmpfs, as /run is on a real system (state files live in /run/umsrestore).
    tmp = tempfile.mkdtemp(prefix="umsrestore-bench-", dir="/dev/shm" if os.path.isdir("/dev/shm") else None)
    results = {}
    try:
        # no-op holder
        holder = subprocess.Popen(["/usr/bin/python3", "-c", NOOP_HOLDER], stdout=subprocess.PIPE, text=True)
        holder.stdout.readline()
        results["no-op holder"] = measure(obj, manager, "noop-holder", N)
        holder.kill()
        holder.wait()

        # umsrestored on a simulated std VGA
        root = os.path.join(tmp, "m")
        shutil.copytree(os.path.join(TOP, "tests", "data", "machines", "stdvga-vgacon"), root, symlinks=True)
        sim = os.path.join(tmp, "sim")
        subprocess.run([SIMCTL, "init", sim, "mode3"], check=True)
        env = dict(os.environ, UMSRESTORE_TEST_HW_SIM=sim)
        log_path = os.path.join(tmp, "daemon.log")
        with open(log_path, "w") as log:
            daemon = subprocess.Popen([BIN, "--root", root, "--log-level", "info"], env=env, stdout=log,
                                      stderr=subprocess.STDOUT)
            results["umsrestored (sim VGA)"] = measure(obj, manager, "umsrestore", N)
            daemon.terminate()
            daemon.wait()
        # the engine's own per-device time: simulated hardware access + state file write
        device_ms = []
        with open(log_path) as log:
            for line in log:
                if ": saved " in line and " in " in line and line.rstrip().endswith(" ms."):
                    device_ms.append(float(line.rsplit(" in ", 1)[1].split()[0]))
    finally:
        p_mock.terminate()
        p_mock.wait()
        shutil.rmtree(tmp, ignore_errors=True)
        Bench.tearDownClass()  # stops the private bus

    if JSON_OUT:
        with open(JSON_OUT, "w") as f:
            json.dump(dict(results, device_ms=device_ms), f)
    print(f"PrepareForSleep(true) -> delay lock released, {N} cycles (ms)")
    print(f"{'':24} {'median':>8} {'p90':>8} {'min':>8} {'max':>8}")
    for name, t in results.items():
        t = sorted(t)
        print(f"{name:24} {statistics.median(t):8.2f} {t[int(len(t) * 0.9) - 1]:8.2f} {t[0]:8.2f} {t[-1]:8.2f}")
    base = statistics.median(results["no-op holder"])
    ours = statistics.median(results["umsrestored (sim VGA)"])
    hw = statistics.median(device_ms) if device_ms else float("nan")
    print(f"{'device save (sim+file)':24} {hw:8.2f}   (engine's own time per device, from the daemon's log)")
    print(f"umsrestored adds {ours - base:.2f} ms over a no-op inhibitor; without the device save itself "
          f"{ours - base - hw:.2f} ms (target: <= 5 ms + hardware time)")


if __name__ == "__main__":
    main()
