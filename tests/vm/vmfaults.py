#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The fault cases of the vm suite, on the real kernel (vmtest.py's machinery and command
line; these cases are added to its table):

  fault-hang     --restore-now on a device whose every register write hangs
                 (umsrestored-faults, UMSRESTORE_TEST_HANG=restore): stopped at
                 ManualDeadlineSec=3 with exit 11, no pass left running; a normal restore
                 afterwards brings the picture back
  fault-kms      the device taken by a KMS driver (bochs loaded) between save and restore:
                 --restore-now skips it (exit 3, says kms) and writes nothing
  fault-removed  the device removed from the kernel between save and restore: --restore-now
                 skips it and writes nothing
  fault-full     the state directory full (a 64 KiB tmpfs; the state is 257 KiB): --save-now
                 fails naming the directory and the error, leaves no file and the console on
                 tty1; the machine suspends all the same; --restore-now after wake refuses
                 (no state) and writes nothing
  fault-kill     --save-now SIGKILLed (with its pass) in the middle of the save: the previous
                 state is intact but retired (SLOT.state.prev, byte for byte, --dump reads it:
                 the save moved it there before touching the device, so that no restore can
                 write back a picture from another time), the hardware is as before, a
                 restore refuses and writes nothing, the next save, S3 and restore give the
                 identical picture

Each fails under UMSRESTORE_VM_NOOP=1 (the no-op stand-in for umsrestored and
umsrestored-faults).
"""

import os
import re
import sys
import time

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmtest as T  # noqa: E402

V = T.V
check = T.check
EXIT_NO_STATE = 4
EXIT_TIMEOUT = 11
HANG_MARKER = '/run/umsrestored-faults.hung'
DEVICE = f'/sys/bus/pci/devices/{T.SLOT}'


def saved_and_asleep(c, save='--no-console-switch --save-now'):
    """Picture, a good save, one S3 cycle; returns (picture, registers before, registers woken)."""
    before = c.picture()
    p0 = c.peek(mem=True)
    check(not p0.problems(), f'display not live before suspend: {p0.line}')
    c.ums(save, expect=0)
    _, out = c.run('vmt states', expect=0)
    check(out.strip() != 'none', 'the good save wrote no state file')
    _, _, p = c.sleep_and_wake(before)
    c.expect_off(p, 'after wake')
    return before, p0, p


def expect_untouched(c, p_woken, when):
    p = c.peek(mem=True)
    check(p.line == p_woken.line, f'{when}: the hardware changed:\n  before {p_woken.line}\n  after  {p.line}')
    V.log(f'{when}: registers and VGA memory untouched')


def case_fault_hang(c):
    """--restore-now with a hanging device is stopped at ManualDeadlineSec= (exit 11)."""
    check(c.args.umsrestored_faults, 'this case needs --umsrestored-faults')
    c.boot('std')
    T.write_config(c, '[General]\nManualDeadlineSec=3')
    before, p0, _ = saved_and_asleep(c)
    c.run(f'rm -f {HANG_MARKER}', expect=0)
    t0 = time.monotonic()
    rc, out = c.run('UMSRESTORE_TEST_HANG=restore umsrestored-faults --no-console-switch --restore-now', timeout=40)
    took = time.monotonic() - t0
    c.times['hung_restore_s'] = round(took, 1)
    _, pid = c.run(f'cat {HANG_MARKER}')
    pid = pid.strip()
    check(pid.isdigit(), 'the restore pass never reached the hanging register write: this run proves nothing')
    check(rc == EXIT_TIMEOUT and re.search(r'did not finish within 3\.0 s', out),
          f'the hung --restore-now exited {rc}, expected {EXIT_TIMEOUT} with the deadline named:\n{out}')
    check(took < 12, f'the hung --restore-now took {took:.1f} s with ManualDeadlineSec=3')
    rc, _ = c.run(f'kill -0 {pid}')
    check(rc != 0, f'the hung pass (pid {pid}) is still running after --restore-now returned')
    V.log(f'the hung restore was stopped after {took:.1f} s (exit {EXIT_TIMEOUT}); its pass {pid} is gone')
    c.restore('--no-console-switch --restore-now', before, p0)


def case_fault_kms(c):
    """The device bound to a KMS driver between save and restore: skipped, nothing written."""
    c.boot('std', modules=['bochs'])
    before = c.picture()
    p0 = c.peek(mem=True)
    check(not p0.problems(), f'display not live before suspend: {p0.line}')
    c.ums('--no-console-switch --save-now', expect=0)
    c.run('vmt kms', expect=0)  # bochs takes the device: a KMS one from now on
    kms_picture = c.picture()
    _, _, p_woken = c.sleep_and_wake(kms_picture)
    check(not p_woken.problems(want_dispi=True), 'after wake the kernel did not bring the bochs display back: '
          + '; '.join(p_woken.problems(want_dispi=True)))
    rc, out = c.ums('--no-console-switch --restore-now')
    check(rc == T.EXIT_NOTHING and re.search(r'\bkms\b', out),
          f'--restore-now on a device KMS took over exited {rc}, expected {T.EXIT_NOTHING} saying kms:\n{out}')
    expect_untouched(c, p_woken, 'after --restore-now on the KMS device')
    c.expect_restored(kms_picture, p_woken, want_dispi=True)


def case_fault_removed(c):
    """The device removed between save and restore: skipped, nothing written."""
    c.boot('std')
    _, _, p_woken = saved_and_asleep(c)
    c.run(f'echo 1 > {DEVICE}/remove', expect=0)
    rc, _ = c.run(f'test -e {DEVICE}')
    check(rc != 0, f'{DEVICE} is still there after its removal')
    rc, out = c.ums('--no-console-switch --restore-now')
    check(rc == T.EXIT_NOTHING, f'--restore-now with the device removed exited {rc}, expected {T.EXIT_NOTHING}:\n{out}')
    check(not re.search(r'\d: restored|Restored display state', out), f'--restore-now says it restored something:\n{out}')
    expect_untouched(c, p_woken, 'after --restore-now with the device removed')


def case_fault_full(c):
    """The state directory full: a clear error, no file left, the sleep goes on."""
    c.boot('std')
    c.run('mkdir -p /run/umsrestore && mount -t tmpfs -o size=64k,mode=0700 tmpfs /run/umsrestore', expect=0)
    before = c.picture()
    p0 = c.peek(mem=True)
    rc, out = c.ums('--save-now')  # with the console method: its VT switch must be put back
    check(rc != 0 and re.search(r'No space left on device', out) and '/run/umsrestore' in out,
          f'--save-now into a full directory exited {rc}; expected a failure naming the directory and '
          f'"No space left on device":\n{out}')
    _, vt = c.run('vmt active', expect=0)
    check(vt.strip() == 'tty1', f'the failed save left the console on {vt.strip()!r}')
    _, files = c.run('ls -A /run/umsrestore', expect=0)
    left = [f for f in files.split() if f.endswith('.state') or '.tmp-' in f or f.endswith('.undo')]
    check(not left, f'the failed save left files behind: {left}')
    V.log(f'--save-now into the full directory: exit {rc}, console on tty1, no state or temporary file')
    p1 = c.peek(mem=True)
    check(p1.registers() == p0.registers(), f'the failed save changed the registers:\n  {p0.line}\n  {p1.line}')
    _, _, p_woken = c.sleep_and_wake(before)  # the sleep goes on
    c.expect_off(p_woken, 'after wake')
    rc, out = c.ums('--no-console-switch --restore-now')
    check(rc == EXIT_NO_STATE, f'--restore-now without a state exited {rc}, expected {EXIT_NO_STATE}:\n{out}')
    expect_untouched(c, p_woken, 'after --restore-now without a state')


def case_fault_kill(c):
    """--save-now and its pass SIGKILLed mid-save: nothing restorable is left (the save retired
    the previous state before touching the device, by design: a restore must never write back
    a picture from another time), the hardware is as before, a restore refuses and writes
    nothing, and the next save, sleep and restore give the identical picture."""
    check(c.args.umsrestored_faults, 'this case needs --umsrestored-faults')
    c.boot('std')
    before = c.picture()
    p0 = c.peek(mem=True)
    c.ums('--no-console-switch --save-now', expect=0)  # the previous sleep's state
    c.run(f'cp -p {T.STATE} /tmp/previous.state', expect=0)
    c.run(f'rm -f {HANG_MARKER}', expect=0)
    # setsid: the save and its pass in a process group of their own, killed together below.
    c.run('UMSRESTORE_TEST_HANG=save setsid umsrestored-faults --no-console-switch --save-now '
          '>/tmp/killed-save.log 2>&1 &', expect=0)
    pid = ''
    for _ in range(50):
        _, pid = c.run(f'cat {HANG_MARKER} 2>/dev/null')
        if pid.strip().isdigit():
            break
        time.sleep(0.2)
    pid = pid.strip()
    check(pid.isdigit(), 'the save pass never reached the hanging register write: this run proves nothing')
    _, pgid = c.run(f'cut -d" " -f5 /proc/{pid}/stat', expect=0)
    c.run(f'kill -9 -{pgid.strip()}', expect=0)  # busybox kill: the whole process group
    time.sleep(0.5)
    rc, _ = c.run(f'kill -0 {pid}')
    check(rc != 0, f'the save pass {pid} survived SIGKILL')
    _, files = c.run('ls -A /run/umsrestore', expect=0)
    V.log(f'after the SIGKILL: /run/umsrestore holds {files.split()}')
    check(not any(f.endswith('.state') for f in files.split()),
          f'a state file is left that a restore could take: {files.split()}')
    # "The previous state is still valid" now means: intact, kept as SLOT.state.prev (the save
    # moved it there before it touched the device), readable by --dump, never taken by a restore.
    rc, _ = c.run(f'cmp /tmp/previous.state {T.STATE}.prev')
    check(rc == 0, f'{T.STATE}.prev is not the previous state, byte for byte')
    rc, out = c.ums(f'--dump {T.STATE}.prev')
    check(rc == 0 and 'Sections:' in out, f'--dump of the kept previous state exited {rc}:\n{out}')
    p_killed = c.peek(mem=True)
    check(p_killed.line == p0.line, f'the killed save left the hardware changed:\n  {p0.line}\n  {p_killed.line}')
    rc, out = c.ums('--no-console-switch --restore-now')
    check(rc == EXIT_NO_STATE, f'--restore-now after the killed save exited {rc}, expected {EXIT_NO_STATE}:\n{out}')
    expect_untouched(c, p_killed, 'after --restore-now following the killed save')
    _, files = c.run('ls -A /run/umsrestore', expect=0)
    check(not any('.tmp-' in f for f in files.split()), f'unfinished files are still there: {files.split()}')
    c.times['files_after_kill'] = ' '.join(files.split())
    # The next save is a normal one, and its state restores the picture after S3.
    c.ums('--no-console-switch --save-now', expect=0)
    _, _, p = c.sleep_and_wake(before)
    c.expect_off(p, 'after wake')
    c.restore('--no-console-switch --restore-now', before, p0)


T.CASES.update({
    'fault-hang': case_fault_hang,
    'fault-kms': case_fault_kms,
    'fault-removed': case_fault_removed,
    'fault-full': case_fault_full,
    'fault-kill': case_fault_kill,
})

if __name__ == '__main__':
    sys.exit(T.main())
