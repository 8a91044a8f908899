#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The fault cases of the system suite, with umsrestored.service as installed and the real
logind (systest.py's machinery and command line; these cases are added to its table; the
full state directory with the daemon is systest.py's state-full):

  fault-kill-daemon  the daemon SIGKILLed while its save pass waits for the run lock (held
                     by a shell): logind goes on, systemd restarts the daemon, which takes
                     its lock again; the previous sleep's state, which the killed pass never
                     reached, is still valid: --restore-now brings the picture back with it;
                     the next sleep works with the new daemon

Each fails under UMSRESTORE_SYSTEM_NOOP=1.
"""

import os
import re
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import systest as T  # noqa: E402

V = T.V


def daemon_sleep_once(c, before, p0):
    """One systemctl suspend that the daemon saves and restores, checked like 'daemon'."""
    cursor = c.sleep('systemctl suspend', before)
    c.after_logind_sleep(cursor)
    restored = c.wait_journal(cursor, T.DAEMON_MATCH, '^Restored display state|^Restoring display state failed', 20)
    c.require(restored and restored.startswith('Restored'), f'the daemon logged no restore after wake: {restored!r}')
    c.expect_restored(before, p0)


def main_pid(c):
    return int(c.unit().get('MainPID', '0') or 0)


def case_fault_kill_daemon(c):
    """The daemon SIGKILLed in a save: restarted, lock again, the previous state still valid."""
    c.boot('std')
    pid = main_pid(c)
    c.require(pid > 0 and c.wait_lock(30, pid), f'umsrestored holds no sleep delay lock: {c.inhibitors()}')
    before, p0 = c.picture()
    daemon_sleep_once(c, before, p0)  # the previous sleep: its state stays in /run/umsrestore
    c.require(c.wait_lock(20, pid), f'no delay lock after the first sleep: {c.inhibitors()}')
    # A shell holds the run lock: the daemon's next save pass waits for it (up to its bound).
    c.run('flock -o /run/umsrestore/lock sleep 120 >/dev/null 2>&1 & echo $! >/tmp/holder.pid', expect=0)
    m = c.machine
    n = m.event_count()
    c.run('systemctl suspend', expect=0)
    end = time.monotonic() + 20
    while not c.unit().get('StatusText', '').startswith('saving'):
        c.require(time.monotonic() < end, f'the daemon did not start its save: {c.unit()}')
        c.require(m.event_count() == n, 'the machine suspended before the daemon started its save')
        time.sleep(0.2)
    c.run('systemctl kill -s KILL umsrestored.service', expect=0)
    m.wait_event('SUSPEND', n, c.deadline.bound(30))
    V.log('the daemon was SIGKILLed in its save; logind went on and the machine suspended')
    n = m.event_count()
    m.qmp('system_wakeup', timeout=c.deadline.bound(10))
    m.wait_event('WAKEUP', n, c.deadline.bound(15))
    time.sleep(1.0)
    c.run('kill $(cat /tmp/holder.pid)', expect=0)  # flock -o: the lock goes with flock itself
    end = time.monotonic() + 30
    while main_pid(c) in (0, pid):
        c.require(time.monotonic() < end, f'systemd did not restart the killed daemon: {c.unit()}')
        time.sleep(0.5)
    new = main_pid(c)
    V.log(f'the daemon was restarted: pid {pid} -> {new}')
    c.check(c.wait_lock(30, new), f'the restarted daemon holds no delay lock: {c.inhibitors()}')
    c.expect_off('after wake (the killed daemon saved nothing for this sleep)')
    _, out = c.run(f'umsrestored --dump /run/umsrestore/{T.SLOT}.state')
    c.check('Sections:' in out, f'the previous state file is gone or unreadable:\n{out}')
    rc, out = c.run('umsrestored --restore-now', timeout=60)
    c.check(rc == 0, f'--restore-now with the previous state exited {rc}:\n{out}')
    time.sleep(0.5)
    p = c.peek()
    c.check(not p.problems(sr01=c.sr01), f'the previous state did not bring the display back: {p.line}')
    d = V.compare(before, c.shot('after-previous-state'))
    # Known limit (reported): that state's planes were read on the console method's spare VT,
    # and with the console already on tty1 nothing redraws it, so the text is not back.
    c.times['previous_state_pixels_differ'] = d.pixels
    V.log(f'the previous state made the display live again; the picture vs before: {d}')
    before, p0 = c.picture()  # a fresh picture for the next sleep
    daemon_sleep_once(c, before, p0)  # the next sleep, with the restarted daemon


T.CASES.update({
    'fault-kill-daemon': case_fault_kill_daemon,
})

if __name__ == '__main__':
    sys.exit(T.main())
