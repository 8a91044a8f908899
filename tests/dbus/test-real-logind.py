#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# The real umsrestored against the REAL systemd-logind: a suspend request makes logind
# emit PrepareForSleep(true) and wait for our delay lock; the daemon saves and releases;
# logind then starts suspend.target on a mocked org.freedesktop.systemd1 (mock_systemd1.py),
# which holds the job until the test has "woken" the simulated VGA; JobRemoved makes
# logind emit PrepareForSleep(false); the daemon restores and takes the lock again.
#   test-real-logind.py UMSRESTORED SIMCTL TESTDATA CASE
#
# The script re-runs itself under unshare(1) in private mount and PID namespaces: /run is
# a fresh tmpfs there (bus socket, logind's state, a logind.conf drop-in, all test files),
# a plain file saying "freeze mem disk" covers /sys/power/state, and when the test ends
# or is killed every process in the namespace dies with it. Nothing on the host is
# touched. Exits 77 only if this host cannot create those namespaces or mounts, or has
# no systemd-logind / dbus-daemon. The logs of logind, the daemon, the mock and the bus are
# printed when the case fails (always with UMSRESTORE_TEST_SHOW_LOGS=1).
import ctypes
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import time
import unittest

NS_MARK = "UMSRESTORE_TEST_IN_LOGIND_NS"
LOGIND_PATHS = ("/lib/systemd/systemd-logind", "/usr/lib/systemd/systemd-logind")
UNSHARE = ["unshare", "--mount", "--pid", "--fork", "--kill-child", "--mount-proc", "--propagation", "private"]
HERE = os.path.dirname(os.path.abspath(__file__))
CASE_NAMES = ("test_suspend_cycle", "test_short_delay", "test_control_stuck_daemon")


def skip(why):
    print(f"SKIP: {why}", file=sys.stderr)
    sys.exit(77)


def find_logind():
    for p in LOGIND_PATHS:
        if os.access(p, os.X_OK):
            return p
    return None


def enter_namespace():
    """Outside the namespace: check the host can do it, then exec ourselves inside."""
    if os.geteuid() != 0:
        skip("needs root: private mount/PID namespaces, and systemd-logind runs as root")
    if not find_logind():
        skip("no systemd-logind binary (looked at " + ", ".join(LOGIND_PATHS) + ")")
    for tool in ("unshare", "dbus-daemon"):
        if not shutil.which(tool):
            skip(f"'{tool}' is not installed")
    probe = subprocess.run(UNSHARE + ["true"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=20)
    if probe.returncode != 0:
        skip("cannot create private mount/PID namespaces here (" + probe.stdout.strip() + ")")
    env = dict(os.environ)
    env[NS_MARK] = "1"
    argv = UNSHARE + ["--", sys.executable, os.path.abspath(__file__)] + sys.argv[1:]
    os.execvpe(argv[0], argv, env)


if os.environ.get(NS_MARK) != "1":
    if len(sys.argv) != 5 or sys.argv[4] not in CASE_NAMES:
        print("usage: test-real-logind.py UMSRESTORED SIMCTL TESTDATA CASE\ncases: " + " ".join(CASE_NAMES),
              file=sys.stderr)
        sys.exit(2)
    enter_namespace()

# --- from here on we are PID 1 of a private PID namespace with a private mount table ---
import dbus  # noqa: E402
import dbus.mainloop.glib  # noqa: E402
import dbusmock  # noqa: E402
from gi.repository import GLib  # noqa: E402

BIN, SIMCTL, DATA = (os.path.abspath(a) for a in sys.argv[1:4])
SLOT = "0000:00:02.0"
BUS_SOCKET = "/run/dbus/system_bus_socket"
BUS_ADDRESS = "unix:path=" + BUS_SOCKET
LOGIND_NAME, LOGIND_PATH = "org.freedesktop.login1", "/org/freedesktop/login1"
LOGIND_IFACE = "org.freedesktop.login1.Manager"
TEST_DIR = "/run/umsrestore-test"  # on the namespace's tmpfs: gone with the namespace
TIMEOUT_MSG = "inhibitor timeout is reached"
# Anything that would talk to a service manager or journal outside the namespace.
ENV_DROP = ("NOTIFY_SOCKET", "WATCHDOG_PID", "WATCHDOG_USEC", "LISTEN_FDS", "LISTEN_PID", "LISTEN_FDNAMES",
            "JOURNAL_STREAM", "INVOCATION_ID", "DBUS_SESSION_BUS_ADDRESS")


class Skip(Exception):
    pass


class Terminated(Exception):
    """SIGTERM (meson's timeout): fail the case so the cleanup prints the logs and stops everything."""


def on_sigterm(signo, frame):
    raise Terminated("received SIGTERM")


MS_NOSUID, MS_NODEV, MS_BIND = 0x2, 0x4, 0x1000


def mount(source, target, fstype, flags, data):
    """mount(2) itself: mount(8) would keep libmount's utab under the host's /run."""
    libc = ctypes.CDLL(None, use_errno=True)
    if libc.mount(source.encode(), target.encode(), fstype.encode() if fstype else None, ctypes.c_ulong(flags),
                  data.encode() if data else None) != 0:
        e = ctypes.get_errno()
        raise Skip(f"mount {source} on {target} failed: {os.strerror(e)}")


def private_mounts(power_state):
    """Hide the host's /run, give logind a sleep-capable /sys/power/state that is a plain file."""
    mount("umsrestore-test-run", "/run", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755")
    os.makedirs(TEST_DIR)
    with open(power_state, "w") as f:
        f.write("freeze mem disk\n")
    if os.path.exists("/sys/power/state"):
        mount(power_state, "/sys/power/state", None, MS_BIND, None)
    else:  # a kernel or container without it: a directory of our own
        mount("umsrestore-test-power", "/sys/power", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755")
        shutil.copy(power_state, "/sys/power/state")
    # a host with lingering users would make logind start user@.service units on the mock
    if os.path.isdir("/var/lib/systemd/linger"):
        mount("umsrestore-test-linger", "/var/lib/systemd/linger", "tmpfs", MS_NOSUID | MS_NODEV, "mode=0755")
    # sd_booted(): systemctl refuses to talk to logind without it
    os.makedirs("/run/systemd/system")
    os.makedirs("/run/systemd/logind.conf.d")
    os.makedirs("/run/dbus")


BUS_CONFIG = f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<!-- SPDX-License-Identifier: MIT -->
<busconfig>
  <type>system</type>
  <listen>unix:path={BUS_SOCKET}</listen>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <allow own="*"/>
    <allow send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_type="method_return"/>
    <allow send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="signal"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow send_destination="*"/>
    <allow eavesdrop="true"/>
  </policy>
</busconfig>
"""


def wait_for(cond, timeout, what):
    """Poll cond() (pumping the GLib main context for signals) until true or timeout."""
    ctx = GLib.MainContext.default()
    end = time.monotonic() + timeout
    while True:
        while ctx.pending():
            ctx.iteration(False)
        if cond():
            return
        if time.monotonic() >= end:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(0.01)


def stop_process(p, name, grace=5.0):
    if p is None or p.poll() is not None:
        return
    try:
        p.send_signal(signal.SIGCONT)
        p.terminate()
        p.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        sys.stderr.write(f"{name} did not stop on SIGTERM within {grace} s; killing it\n")
        p.kill()
        p.wait(timeout=grace)


class RealLogindTest(unittest.TestCase):
    inhibit_delay_sec = 5

    def setUp(self):
        self.procs = []     # (name, Popen), stopped in reverse order
        self.logs = []      # (name, path), printed on failure
        self.addCleanup(self.stop_all)  # runs even when setUp fails half-way
        self.tmp = TEST_DIR
        self.root = os.path.join(self.tmp, "m")
        shutil.copytree(os.path.join(DATA, "machines", "stdvga-vgacon"), self.root, symlinks=True)
        self.sim = os.path.join(self.tmp, "sim")
        self.before = os.path.join(self.tmp, "before")
        subprocess.run([SIMCTL, "init", self.sim, "mode3", "3"], check=True, timeout=20)
        shutil.copy(self.sim, self.before)
        self.state = os.path.join(self.root, "run", "umsrestore", SLOT + ".state")
        self.prepare = []   # PrepareForSleep arguments, in order
        self.daemon = None

        env = {k: v for k, v in os.environ.items() if k not in ENV_DROP}
        env["DBUS_SYSTEM_BUS_ADDRESS"] = BUS_ADDRESS
        os.environ.clear()
        os.environ.update(env)

        with open("/run/systemd/logind.conf.d/zz-umsrestore-test.conf", "w") as f:
            f.write("# SPDX-License-Identifier: MIT\n[Login]\n"
                    f"InhibitDelayMaxSec={self.inhibit_delay_sec}\n"
                    "ReserveVT=0\nNAutoVTs=0\nKillUserProcesses=no\nIdleAction=ignore\n"
                    "HandlePowerKey=ignore\nHandleSuspendKey=ignore\nHandleHibernateKey=ignore\n"
                    "HandleLidSwitch=ignore\nHandleLidSwitchExternalPower=ignore\nHandleLidSwitchDocked=ignore\n")
        self.start_bus()
        self.start_systemd_mock()
        self.start_logind()

    def stop_all(self):
        failed = self._outcome_failed()
        for name, p in reversed(self.procs):
            stop_process(p, name)
        if failed or os.environ.get("UMSRESTORE_TEST_SHOW_LOGS") == "1":
            for name, path in self.logs:
                try:
                    with open(path, errors="replace") as f:
                        text = f.read()
                except OSError as e:
                    text = f"(cannot read: {e})\n"
                sys.stderr.write(f"----- {name} log -----\n{text}")
            sys.stderr.write("-----------------------\n")

    def _outcome_failed(self):
        result = getattr(getattr(self, "_outcome", None), "result", None)
        if result is None:
            return True
        return any(t is self for t, _ in result.failures + result.errors)

    def log_path(self, name):
        path = os.path.join(self.tmp, name + ".log")
        self.logs.append((name, path))
        return path

    def spawn(self, name, argv, **kw):
        log = open(self.log_path(name), "w")
        p = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, **kw)
        log.close()
        self.procs.append((name, p))
        return p

    def read_log(self, name):
        with open(os.path.join(self.tmp, name + ".log"), errors="replace") as f:
            return f.read()

    # --- the system bus, systemd1 mock, logind -------------------------------------------
    def start_bus(self):
        conf = os.path.join(self.tmp, "system-bus.conf")
        with open(conf, "w") as f:
            f.write(BUS_CONFIG)
        with open(self.log_path("dbus-daemon"), "w") as log:
            p = subprocess.Popen(["dbus-daemon", "--nofork", "--nopidfile", "--config-file=" + conf,
                                  "--print-address=1"], stdout=subprocess.PIPE, stderr=log)
        self.procs.append(("dbus-daemon", p))
        ready, _, _ = select.select([p.stdout], [], [], 10)
        if not ready or not p.stdout.readline().strip():
            raise AssertionError("dbus-daemon did not start")
        dbus.mainloop.glib.DBusGMainLoop(set_as_default=True)
        self.bus = dbus.bus.BusConnection(BUS_ADDRESS)
        self.bus.add_signal_receiver(self.on_prepare, signal_name="PrepareForSleep", dbus_interface=LOGIND_IFACE,
                                     path=LOGIND_PATH)

    def on_prepare(self, start):
        self.prepare.append(bool(start))

    def wait_name(self, name, proc, what):
        dbus_iface = dbus.Interface(self.bus.get_object("org.freedesktop.DBus", "/org/freedesktop/DBus"),
                                    "org.freedesktop.DBus")

        def up():
            if proc.poll() is not None:
                raise AssertionError(f"{what} exited with {proc.returncode}")
            return bool(dbus_iface.NameHasOwner(name))

        wait_for(up, 10, f"{what} to own {name}")

    def start_systemd_mock(self):
        template = os.path.join(HERE, "mock_systemd1.py")
        p = self.spawn("systemd1-mock", [sys.executable, "-m", "dbusmock", "--system", "--template", template,
                                         "--parameters", json.dumps({"state_file": self.state})])
        self.wait_name("org.freedesktop.systemd1", p, "the systemd1 mock")
        self.systemd = dbus.Interface(self.bus.get_object("org.freedesktop.systemd1", "/org/freedesktop/systemd1"),
                                      dbusmock.MOCK_IFACE)

    def start_logind(self):
        env = dict(os.environ, SYSTEMD_LOG_LEVEL="debug", SYSTEMD_LOG_TARGET="console", SYSTEMD_LOG_TIME="1")
        self.logind = self.spawn("systemd-logind", [find_logind()], env=env)
        self.wait_name(LOGIND_NAME, self.logind, "systemd-logind")
        self.login1 = self.bus.get_object(LOGIND_NAME, LOGIND_PATH)
        self.manager = dbus.Interface(self.login1, LOGIND_IFACE)
        self.assertEqual(int(self.logind_prop("InhibitDelayMaxUSec")), self.inhibit_delay_sec * 1000000,
                         "the logind.conf drop-in was not applied")

    def logind_prop(self, name):
        return self.login1.Get(LOGIND_IFACE, name, dbus_interface="org.freedesktop.DBus.Properties")

    def start_units(self):
        return [(float(t), str(n), str(m), str(p), bool(s)) for t, n, m, p, s in self.systemd.GetStartUnitCalls()]

    # --- the daemon -----------------------------------------------------------------
    def start_daemon(self):
        env = dict(os.environ, UMSRESTORE_TEST_HW_SIM=self.sim)
        self.daemon = self.spawn("umsrestored", [BIN, "--root", self.root, "--log-level", "debug"], env=env)

    def our_locks(self):
        return [tuple(i) for i in self.manager.ListInhibitors() if str(i[1]) == "umsrestore"]

    def wait_lock(self, held, timeout=10):
        def check():
            if self.daemon.poll() is not None:
                raise AssertionError(f"umsrestored exited with {self.daemon.returncode}")
            return bool(self.our_locks()) == held
        wait_for(check, timeout, "umsrestore's delay lock to be " + ("held" if held else "released"))

    def check_lock(self):
        locks = self.our_locks()
        self.assertEqual(len(locks), 1, f"expected one umsrestore lock, logind lists {locks}")
        what, who, why, mode, uid, pid = locks[0]
        self.assertEqual((str(what), str(mode), int(uid), int(pid)), ("sleep", "delay", 0, self.daemon.pid))

    def sim_live(self):
        return subprocess.run([SIMCTL, "live", self.sim], stdout=subprocess.DEVNULL, timeout=20).returncode == 0

    # --- one suspend through logind ---------------------------------------------------------
    def request_suspend(self, how):
        if how == "systemctl":
            # (if logind refused, systemctl would try suspend.target itself: no PrepareForSleep then)
            r = subprocess.run(["systemctl", "suspend"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               timeout=30)
            self.assertEqual(r.returncode, 0, "systemctl suspend failed:\n" + r.stdout)
        else:
            self.manager.Suspend(False)

    def suspend_cycle(self, how):
        """One full cycle; returns seconds from the request to logind's StartUnit."""
        self.wait_lock(True)
        self.check_lock()
        n_calls = len(self.start_units())
        n_prepare = len(self.prepare)
        saved_before = self.read_log("umsrestored").count("Saved display state")
        self.assertFalse(bool(self.logind_prop("PreparingForSleep")))

        t0 = time.monotonic()
        self.request_suspend(how)
        wait_for(lambda: len(self.start_units()) > n_calls, self.inhibit_delay_sec + 5,
                 "logind to start suspend.target on the systemd1 mock")
        called, unit, mode, _, state_seen = self.start_units()[-1]
        delay = called - t0
        self.assertEqual((unit, mode), ("suspend.target", "replace-irreversibly"))
        wait_for(lambda: len(self.prepare) > n_prepare, 5, "PrepareForSleep(true) from logind")
        self.assertEqual(self.prepare[n_prepare:], [True])
        # logind went on only after the daemon had written its state and let go of the lock
        self.assertTrue(state_seen, "logind started suspend.target before the state file was written")
        self.assertEqual(self.read_log("umsrestored").count("Saved display state"), saved_before + 1)
        self.assertEqual(self.our_locks(), [], "the delay lock is still listed while 'asleep'")
        self.assertNotIn(TIMEOUT_MSG, self.read_log("systemd-logind"), "logind had to wait out the delay")
        self.assertLess(delay, self.inhibit_delay_sec * 0.5,
                        f"logind went on {delay:.3f} s after the request (InhibitDelayMaxSec={self.inhibit_delay_sec})")
        self.assertTrue(bool(self.logind_prop("PreparingForSleep")))

        # "asleep": the hardware loses its state; then systemd's job ends and logind says so
        subprocess.run([SIMCTL, "wake", self.sim], check=True, timeout=20)
        self.assertFalse(self.sim_live(), "simctl wake left the display live")
        self.assertEqual(self.systemd.FinishJobs("done"), 1)
        wait_for(lambda: len(self.prepare) > n_prepare + 1, 5, "PrepareForSleep(false) from logind")
        self.assertEqual(self.prepare[n_prepare:], [True, False])
        self.wait_lock(True)
        self.check_lock()
        d = subprocess.run([SIMCTL, "diff", self.before, self.sim], stdout=subprocess.PIPE, text=True, timeout=20)
        self.assertEqual(d.returncode, 0, "device differs after restore:\n" + d.stdout)
        self.assertTrue(self.sim_live())
        self.assertIn("Restored display state", self.read_log("umsrestored"))
        self.assertIn("Operation 'sleep' finished", self.read_log("systemd-logind"))
        self.assertFalse(bool(self.logind_prop("PreparingForSleep")))
        sys.stderr.write(f"{how}: logind started suspend.target {delay * 1000:.1f} ms after the request\n")
        return delay

    # --- cases -----------------------------------------------------------------------
    def test_suspend_cycle(self):
        """systemctl suspend, then Suspend(false) over D-Bus, with the default 5 s delay."""
        self.start_daemon()
        self.suspend_cycle("systemctl")
        self.suspend_cycle("dbus")
        self.assertIsNone(self.daemon.poll())


class ShortDelayTest(RealLogindTest):
    inhibit_delay_sec = 1

    def test_short_delay(self):
        """InhibitDelayMaxSec=1: the daemon reads it from logind and still releases in time."""
        self.start_daemon()
        wait_for(lambda: "logind waits at most 1.0 s" in self.read_log("umsrestored"), 10,
                 "the daemon to read InhibitDelayMaxUSec=1 s from logind")
        self.suspend_cycle("dbus")
        self.suspend_cycle("dbus")

    def test_control_stuck_daemon(self):
        """Control: a daemon that never releases makes logind wait out the delay, and the
        checks of the other cases (state file at StartUnit, no timeout message) notice it."""
        self.start_daemon()
        self.wait_lock(True)
        self.daemon.send_signal(signal.SIGSTOP)
        t0 = time.monotonic()
        self.manager.Suspend(False)
        wait_for(lambda: self.start_units(), self.inhibit_delay_sec + 5, "logind to give up waiting")
        called, unit, _, _, state_seen = self.start_units()[0]
        self.assertEqual(unit, "suspend.target")
        self.assertGreaterEqual(called - t0, self.inhibit_delay_sec * 0.9)
        self.assertFalse(state_seen)
        wait_for(lambda: TIMEOUT_MSG in self.read_log("systemd-logind"), 5, "logind's timeout message")
        self.assertIn(f"PID {self.daemon.pid}/", self.read_log("systemd-logind"))
        # the daemon comes back: it must end up holding a lock again after the wake
        self.daemon.send_signal(signal.SIGCONT)
        wait_for(lambda: "Saved display state" in self.read_log("umsrestored"), 10, "the late save")
        self.assertEqual(self.systemd.FinishJobs("done"), 1)
        wait_for(lambda: self.prepare == [True, False], 5, "PrepareForSleep true, then false")
        self.wait_lock(True)
        self.check_lock()


CASES = {
    "test_suspend_cycle": RealLogindTest,
    "test_short_delay": ShortDelayTest,
    "test_control_stuck_daemon": ShortDelayTest,
}
assert set(CASES) == set(CASE_NAMES)

if __name__ == "__main__":
    case = sys.argv[4]
    # PID 1 of the namespace: without a handler SIGTERM would be ignored
    signal.signal(signal.SIGTERM, on_sigterm)
    try:
        private_mounts("/run/umsrestore-power-state")
    except Skip as e:
        skip(f"this host does not allow the private mounts the test needs: {e}")
    result = unittest.TextTestRunner(verbosity=2).run(unittest.TestSuite([CASES[case](case)]))
    sys.exit(0 if result.wasSuccessful() else 1)
