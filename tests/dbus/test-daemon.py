#!/usr/bin/python3
# SPDX-License-Identifier: MIT
# The real umsrestored daemon against python-dbusmock's logind on a private system bus,
# with the simulated VGA (UMSRESTORE_TEST_HW_SIM + --root). One meson test per case:
#   test-daemon.py UMSRESTORED SIMCTL TESTDATA CASE
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import unittest

import dbus
import dbusmock

BIN, SIMCTL, DATA = sys.argv[1:4]
SLOT = "0000:00:02.0"
LOGIND = ("org.freedesktop.login1", "/org/freedesktop/login1", "org.freedesktop.login1.Manager")


def wait_for(cond, timeout=10.0, what="condition"):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if cond():
            return
        time.sleep(0.02)
    raise AssertionError(f"timed out after {timeout} s waiting for {what}")


class DaemonTest(dbusmock.DBusTestCase):
    machine = "stdvga-vgacon"

    @classmethod
    def setUpClass(cls):
        cls.start_system_bus()
        cls.dbus_con = cls.get_dbus(system_bus=True)

    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="umsrestore-dbus-")
        self.root = os.path.join(self.tmp, "m")
        shutil.copytree(os.path.join(DATA, "machines", self.machine), self.root, symlinks=True)
        self.sim = os.path.join(self.tmp, "sim")
        self.before = os.path.join(self.tmp, "before")
        subprocess.run([SIMCTL, "init", self.sim, "mode3", "3"], check=True)
        shutil.copy(self.sim, self.before)
        self.state_dir = os.path.join(self.root, "run", "umsrestore")
        self.state = os.path.join(self.state_dir, SLOT + ".state")
        self.daemon = None
        self.log_path = os.path.join(self.tmp, "daemon.log")
        self.start_logind()

    def tearDown(self):
        if self.daemon and self.daemon.poll() is None:
            self.daemon.kill()
            self.daemon.wait()
        self.stop_logind()
        if self._outcome_failed():
            with open(self.log_path, errors="replace") as f:
                sys.stderr.write("----- umsrestored log -----\n" + f.read() + "---------------------------\n")
        shutil.rmtree(self.tmp, ignore_errors=True)

    def _outcome_failed(self):
        outcome = getattr(self, "_outcome", None)
        result = getattr(outcome, "result", None)
        if result is None:
            return True
        return any(t is self for t, _ in result.failures + result.errors)

    # --- logind mock -----------------------------------------------------------------
    def start_logind(self, deny=False):
        self.p_mock, self.obj = self.spawn_server_template("logind", {}, stdout=subprocess.DEVNULL)
        self.obj.AddProperty(LOGIND[2], "InhibitDelayMaxUSec", dbus.UInt64(5000000))
        if deny:
            self.obj.AddMethod(LOGIND[2], "Inhibit", "ssss", "h",
                               "raise dbus.exceptions.DBusException('Permission denied', "
                               "name='org.freedesktop.DBus.Error.AccessDenied')")
        self.manager = dbus.Interface(self.obj, LOGIND[2])

    def stop_logind(self):
        if self.p_mock:
            self.p_mock.terminate()
            self.p_mock.wait()
            self.p_mock = None

    def emit_sleep(self, start):
        self.obj.EmitSignal(LOGIND[2], "PrepareForSleep", "b", [dbus.Boolean(start)],
                            dbus_interface="org.freedesktop.DBus.Mock")

    def our_locks(self):
        return [i for i in self.manager.ListInhibitors() if str(i[1]) == "umsrestore"]

    # --- daemon ----------------------------------------------------------------------
    def start_daemon(self, *extra, env_extra=None):
        env = dict(os.environ, UMSRESTORE_TEST_HW_SIM=self.sim, **(env_extra or {}))
        self.log = open(self.log_path, "w")
        self.daemon = subprocess.Popen([BIN, "--root", self.root, "--log-level", "debug", *extra],
                                       env=env, stdout=self.log, stderr=subprocess.STDOUT)

    def log_text(self):
        with open(self.log_path, errors="replace") as f:
            return f.read()

    def wait_lock(self, held=True, timeout=10.0):
        wait_for(lambda: bool(self.our_locks()) == held, timeout, "the delay lock to be " + ("held" if held else "released"))

    def sim_diff(self, a, b):
        return subprocess.run([SIMCTL, "diff", a, b], stdout=subprocess.PIPE, text=True)

    def use_machine(self, name):
        shutil.rmtree(self.root)
        shutil.copytree(os.path.join(DATA, "machines", name), self.root, symlinks=True)

    def sim_vt(self):
        return int(subprocess.run([SIMCTL, "vt", self.sim], stdout=subprocess.PIPE, text=True, check=True).stdout)

    def write_conf(self, text):
        conf = os.path.join(self.tmp, "test.conf")
        with open(conf, "w") as f:
            f.write(text)
        return conf

    def sim_live(self):
        return subprocess.run([SIMCTL, "live", self.sim], stdout=subprocess.DEVNULL).returncode == 0

    def daemon_fds(self):
        return len(os.listdir(f"/proc/{self.daemon.pid}/fd"))

    def daemon_rss_kib(self):
        with open(f"/proc/{self.daemon.pid}/status") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1])
        return 0

    # --- cases -----------------------------------------------------------------------
    def test_lock_on_start(self):
        self.start_daemon()
        self.wait_lock(True)
        lock = self.our_locks()[0]
        self.assertEqual(str(lock[0]), "sleep")
        self.assertEqual(str(lock[3]), "delay")
        self.assertIn("non-KMS", str(lock[2]))
        # the lifetime lock the systemd-sleep hook looks at is held
        held = subprocess.run(["flock", "-n", os.path.join(self.state_dir, "daemon.lock"), "true"])
        self.assertNotEqual(held.returncode, 0, "daemon.lock is not held by the running daemon")
        # a second daemon refuses to run beside it
        second = subprocess.run([BIN, "--root", self.root], env=dict(os.environ, UMSRESTORE_TEST_HW_SIM=self.sim),
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=10)
        self.assertEqual(second.returncode, 6, second.stdout)
        self.assertIn("already running", second.stdout)

    def ctx_switches(self):
        total = 0
        with open(f"/proc/{self.daemon.pid}/status") as f:
            for line in f:
                if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")):
                    total += int(line.split()[1])
        return total

    def test_idle_no_wakeups(self):
        # holding the lock and waiting for signals: no timers, no polling
        self.start_daemon()
        self.wait_lock(True)
        time.sleep(0.5)
        before = self.ctx_switches()
        time.sleep(3.0)
        after = self.ctx_switches()
        self.assertLessEqual(after - before, 1, f"the idle daemon woke up {after - before} times in 3 s")

    def test_sleep_saves_and_releases(self):
        self.start_daemon()
        self.wait_lock(True)
        self.assertFalse(os.path.exists(self.state))
        t0 = time.monotonic()
        self.emit_sleep(True)
        self.wait_lock(False, timeout=5.0)
        released = time.monotonic() - t0
        self.assertTrue(os.path.exists(self.state), "no state file after PrepareForSleep(true)")
        self.assertLess(released, 4.0)
        dump = subprocess.run([BIN, "--dump", self.state], stdout=subprocess.PIPE, text=True)
        self.assertEqual(dump.returncode, 0)
        self.assertIn("[vga]", dump.stdout)

    def test_wake_restores(self):
        self.start_daemon()
        self.wait_lock(True)
        self.emit_sleep(True)
        self.wait_lock(False)
        subprocess.run([SIMCTL, "wake", self.sim], check=True)
        self.assertFalse(self.sim_live())
        self.emit_sleep(False)
        self.wait_lock(True)
        d = self.sim_diff(self.before, self.sim)
        self.assertEqual(d.returncode, 0, "device differs after restore:\n" + d.stdout)
        self.assertTrue(self.sim_live())
        self.assertIn("Restored display state", self.log_text())

    def test_false_without_true(self):
        self.start_daemon()
        self.wait_lock(True)
        subprocess.run([SIMCTL, "wake", self.sim], check=True)
        shutil.copy(self.sim, os.path.join(self.tmp, "woken"))
        self.emit_sleep(False)
        wait_for(lambda: "without a preceding true" in self.log_text(), 5, "the daemon to notice")
        self.assertEqual(self.sim_diff(os.path.join(self.tmp, "woken"), self.sim).returncode, 0,
                         "the daemon restored without a save from this sleep")
        self.assertTrue(self.our_locks())

    def test_duplicate_signals(self):
        self.start_daemon()
        self.wait_lock(True)
        self.emit_sleep(True)
        self.emit_sleep(True)
        self.wait_lock(False)
        subprocess.run([SIMCTL, "wake", self.sim], check=True)
        self.emit_sleep(False)
        self.wait_lock(True)
        self.emit_sleep(False)
        time.sleep(0.3)
        self.assertEqual(len(self.our_locks()), 1, "duplicate false took a second lock")
        self.assertEqual(self.sim_diff(self.before, self.sim).returncode, 0)
        self.assertEqual(self.log_text().count("Saved display state"), 1)

    def test_logind_restart(self):
        self.start_daemon()
        self.wait_lock(True)
        self.stop_logind()
        self.start_logind()
        self.wait_lock(True)
        self.assertIn("logind (re)started", self.log_text())
        self.assertIsNone(self.daemon.poll())

    def test_logind_late(self):
        self.stop_logind()
        self.start_daemon()
        wait_for(lambda: "logind is not running yet" in self.log_text(), 5, "the daemon to wait for logind")
        self.start_logind()
        self.wait_lock(True)

    def test_inhibit_denied(self):
        self.stop_logind()
        self.start_logind(deny=True)
        self.start_daemon()
        wait_for(lambda: "org.freedesktop.login1.inhibit-delay-sleep" in self.log_text(), 5,
                 "a message naming the polkit action")
        time.sleep(0.2)
        self.assertIsNone(self.daemon.poll(), "the daemon died after a refused Inhibit")
        # a logind that allows it: the daemon retries on the owner change
        self.stop_logind()
        self.start_logind()
        self.wait_lock(True)

    def test_sigterm(self):
        self.start_daemon()
        self.wait_lock(True)
        self.daemon.send_signal(signal.SIGTERM)
        self.assertEqual(self.daemon.wait(timeout=10), 0)
        self.wait_lock(False, timeout=3)

    def test_save_error_releases_lock(self):
        self.start_daemon()
        self.wait_lock(True)
        # the undo record's place is taken by a directory: the save must fail at the console
        # method, before the VT switch
        os.makedirs(os.path.join(self.state_dir, SLOT + ".undo", "x"))
        t0 = time.monotonic()
        self.emit_sleep(True)
        self.wait_lock(False, timeout=5.0)
        self.assertLess(time.monotonic() - t0, 4.0)
        wait_for(lambda: "Saving display state failed" in self.log_text(), 5, "the failure to be logged")
        # and after wake nothing is restored, but the lock comes back
        self.emit_sleep(False)
        self.wait_lock(True)
        self.assertIn("not restoring", self.log_text())

    def test_save_deadline(self):
        # a save slower than the deadline: the lock goes at the deadline, not when the save ends
        conf = os.path.join(self.tmp, "deadline.conf")
        with open(conf, "w") as f:
            f.write("[General]\nSaveDeadlineSec=0.5\n")
        self.start_daemon("--config", conf, env_extra={"UMSRESTORE_TEST_SLOW_SAVE_MS": "4000"})
        self.wait_lock(True)
        t0 = time.monotonic()
        self.emit_sleep(True)
        self.wait_lock(False, timeout=3.0)
        released = time.monotonic() - t0
        self.assertGreater(released, 0.4)
        self.assertLess(released, 1.5, f"lock released after {released:.2f} s, deadline 0.5 s")
        wait_for(lambda: "did not finish within" in self.log_text(), 3, "the deadline to be logged")
        self.emit_sleep(False)
        self.wait_lock(True)
        self.assertIn("not restoring", self.log_text())
        self.assertIsNone(self.daemon.poll())

    def test_partial_save_restores_the_rest(self):
        # two managed devices, the second cannot be opened: the first is still restored
        # after wake (and its console switched back), the second is named
        self.use_machine("two-gpus-none-kms")
        self.start_daemon(env_extra={"UMSRESTORE_TEST_FAIL_OPEN": "0000:01:00.0"})
        self.wait_lock(True)
        self.emit_sleep(True)
        self.wait_lock(False, timeout=5.0)
        wait_for(lambda: "Saved the display state of some devices" in self.log_text(), 5, "the partial save")
        self.assertIn("0000:01:00.0: save failed: cannot open the device", self.log_text())
        self.assertNotEqual(self.sim_vt(), 1, "the save did not move to a spare VT")
        subprocess.run([SIMCTL, "wake", self.sim], check=True)
        self.assertFalse(self.sim_live())
        self.emit_sleep(False)
        wait_for(lambda: "Restored the display state of some devices" in self.log_text(), 5, "the restore")
        self.wait_lock(True)
        self.assertTrue(self.sim_live(), "the device that saved was not restored")
        self.assertEqual(self.sim_vt(), 1)
        self.assertEqual(self.sim_diff(self.before, self.sim).returncode, 0)

    def test_killed_save_switches_back(self):
        # the save hangs right after its VT switch and is killed at the deadline: the
        # daemon rolls the switch back, and nothing of it is restored after wake
        conf = self.write_conf("[General]\nSaveDeadlineSec=0.5\n")
        self.start_daemon("--config", conf, env_extra={"UMSRESTORE_TEST_HANG_AFTER_VT_SWITCH": "1"})
        self.wait_lock(True)
        self.emit_sleep(True)
        self.wait_lock(False, timeout=3.0)
        wait_for(lambda: "rolled back what an unfinished save or test-restore changed" in self.log_text(), 5, "the rollback")
        self.assertEqual(self.sim_vt(), 1, "the console was left on the spare VT")
        self.assertFalse(os.path.exists(os.path.join(self.state_dir, SLOT + ".undo")))
        self.emit_sleep(False)
        self.wait_lock(True)
        self.assertIn("not restoring", self.log_text())

    def test_killed_save_leaves_no_old_state(self):
        # a state from an earlier sleep is not restorable once a save for this sleep began
        self.start_daemon()
        self.wait_lock(True)
        self.emit_sleep(True)
        self.wait_lock(False, timeout=5.0)
        self.assertTrue(os.path.exists(self.state))
        self.emit_sleep(False)
        wait_for(lambda: "Restored display state" in self.log_text(), 5, "the first restore")
        self.wait_lock(True)
        self.daemon.kill()
        self.daemon.wait()
        conf = self.write_conf("[General]\nSaveDeadlineSec=0.5\n")
        self.start_daemon("--config", conf, env_extra={"UMSRESTORE_TEST_HANG_AFTER_VT_SWITCH": "1"})
        self.wait_lock(True)
        self.emit_sleep(True)
        self.wait_lock(False, timeout=3.0)
        wait_for(lambda: "rolled back" in self.log_text(), 5, "the rollback")
        self.assertFalse(os.path.exists(self.state), "the previous sleep's state is still restorable")
        r = subprocess.run([BIN, "--root", self.root, "--restore-now"], env=dict(os.environ, UMSRESTORE_TEST_HW_SIM=self.sim),
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        self.assertEqual(r.returncode, 4, r.stdout)

    def test_no_lock_taken_mid_sleep(self):
        # a restore still running when the next PrepareForSleep(true) arrives must not take
        # a delay lock when it ends: logind would wait for it the whole InhibitDelayMaxSec
        self.start_daemon(env_extra={"UMSRESTORE_TEST_SLOW_RESTORE_MS": "1500"})
        self.wait_lock(True)
        self.emit_sleep(True)
        self.wait_lock(False, timeout=5.0)
        self.emit_sleep(False)
        time.sleep(0.3)
        self.emit_sleep(True)
        wait_for(lambda: "Restored display state" in self.log_text(), 5, "the slow restore to end")
        time.sleep(0.5)
        self.assertEqual(self.our_locks(), [], "a delay lock was taken in the middle of a sleep")
        self.emit_sleep(False)
        self.wait_lock(True)

    def test_stuck_child_holds_no_lock(self):
        # the daemon dies while its save child hangs: the child must not keep logind's
        # delay lock (nor daemon.lock) alive
        self.start_daemon(env_extra={"UMSRESTORE_TEST_SLOW_SAVE_MS": "4000"})
        self.wait_lock(True)
        self.emit_sleep(True)
        time.sleep(0.3)
        children = subprocess.run(["pgrep", "-P", str(self.daemon.pid)], stdout=subprocess.PIPE, text=True).stdout.split()
        self.assertEqual(len(children), 1, "no save child")
        self.daemon.kill()
        self.daemon.wait()
        self.wait_lock(False, timeout=1.0)
        self.assertTrue(os.path.exists(f"/proc/{children[0]}"), "the child is gone already: nothing was shown")
        held = subprocess.run(["flock", "-n", os.path.join(self.state_dir, "daemon.lock"), "true"])
        self.assertEqual(held.returncode, 0, "the save child holds daemon.lock")
        os.kill(int(children[0]), signal.SIGKILL)

    def test_excluded_device_no_lock(self):
        # the only device is excluded by the configuration: idle, no lock, nothing saved
        conf = os.path.join(self.tmp, "exclude.conf")
        with open(conf, "w") as f:
            f.write("[General]\nExclude=00:02.0\n")
        self.start_daemon("--config", conf)
        wait_for(lambda: "Idle: no device to manage" in self.log_text(), 5, "the daemon to go idle")
        time.sleep(0.3)
        self.assertEqual(self.our_locks(), [])
        self.emit_sleep(True)
        time.sleep(0.5)
        self.assertFalse(os.path.exists(self.state))

    def test_late_kms_driver(self):
        # a KMS driver binds after the daemon started: the new DRM node makes it classify
        # again, hand the device off and give up its lock
        os.makedirs(os.path.join(self.root, "dev"))
        self.start_daemon()
        self.wait_lock(True)
        dev = os.path.join(self.root, "sys", "bus", "pci", "devices", SLOT)
        os.makedirs(os.path.join(dev, "drm", "card0", "card0-Virtual-1"))
        os.symlink("../../../bus/pci/drivers/bochs-drm", os.path.join(dev, "driver"))
        os.makedirs(os.path.join(self.root, "dev", "dri"))
        open(os.path.join(self.root, "dev", "dri", "card0"), "w").close()
        self.wait_lock(False, timeout=5.0)
        wait_for(lambda: "nothing to manage now" in self.log_text(), 5, "the rescan to be logged")
        # and back: the driver goes away, the device is managed again
        os.unlink(os.path.join(dev, "driver"))
        shutil.rmtree(os.path.join(dev, "drm"))
        os.unlink(os.path.join(self.root, "dev", "dri", "card0"))
        self.wait_lock(True, timeout=5.0)
        self.assertIsNone(self.daemon.poll())

    def test_cycles_stable(self):
        self.start_daemon()
        self.wait_lock(True)
        for i in range(200):
            self.emit_sleep(True)
            self.wait_lock(False)
            subprocess.run([SIMCTL, "wake", self.sim], check=True)
            self.emit_sleep(False)
            self.wait_lock(True)
            if i == 9:
                fds, rss = self.daemon_fds(), self.daemon_rss_kib()
        self.assertEqual(self.daemon_fds(), fds, "fd count changed over 190 cycles")
        self.assertLess(self.daemon_rss_kib() - rss, 512, "RSS grew by more than 512 KiB over 190 cycles")
        self.assertEqual(self.sim_diff(self.before, self.sim).returncode, 0)


class IdleTest(DaemonTest):
    machine = "stdvga-bochs-kms"

    def test_idle_no_lock(self):
        self.start_daemon()
        wait_for(lambda: "Idle: all devices KMS" in self.log_text(), 5, "the daemon to go idle")
        time.sleep(0.3)
        self.assertEqual(self.our_locks(), [])
        self.emit_sleep(True)
        time.sleep(0.5)
        self.assertFalse(os.path.exists(self.state))
        self.assertIsNone(self.daemon.poll())


if __name__ == "__main__":
    case = sys.argv[4]
    cls = IdleTest if case == "test_idle_no_lock" else DaemonTest
    suite = unittest.TestSuite([cls(case)])
    result = unittest.TextTestRunner(verbosity=2).run(suite)
    sys.exit(0 if result.wasSuccessful() else 1)
