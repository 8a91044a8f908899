#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""One case of the system suite (meson suite 'system'): a Debian 12 guest with systemd,
real logind and pm-utils, umsrestore installed from its .deb, real S3 under TCG; each of
umsrestore's three entry points (the daemon, the systemd-sleep hook, the pm-utils hook)
used the way a user's system uses it.

Every sleeping case proves that its picture comparison can fail before it compares:
the screendump taken while suspended must differ from the picture (QEMU resets the VGA),
and the registers read in the guest after the restore must show a live display (vm-notes:
a screendump after wake can be stale); then registers and picture must equal the ones
from before sleep. The 'control' case shows the same machine with umsrestore out of the
way: the display stays off after wake.

  systest.py CASE --source-root DIR --build-root DIR --vgapeek BIN --workdir DIR

Cases: daemon, daemon-cirrus, vesafb, cirrus-vesafb, delay, pm-suspend, sleep-hook, kms, control,
killed-save, state-full.
Exit: 0 pass, 1 fail, 77 skip (the guest image cannot be built here: the reason is
printed; tools/check counts an unexpected skip as a failure).

Environment:
  UMSRESTORE_SYSTEM_NOOP=1   boot the 'noop' image (umsrestored replaced by a no-op
                             stand-in, its unit made Type=simple): every case but
                             'control' must fail
  UMSRESTORE_SYSTEM_KEEP=1   keep the screendumps of passing cases too
  (and those of sysimage.py: UMSRESTORE_SYSTEM_CACHE, _MIRROR, _INSTALL)
Logs (harness.log, serial and QEMU logs, journal.json), screendumps (PPM + PNG) of a
failing case stay in WORKDIR/CASE/.
"""

import argparse
import json
import os
import re
import shutil
import signal
import sys
import time
import types

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'vm'))
import sysimage as S  # noqa: E402
import vmlib as V  # noqa: E402

CASE_BUDGET_S = 330   # after the image is ready: boot (TCG, maybe beside another QEMU) + case
BOOT_TIMEOUT_S = 150
SLOT = '0000:00:02.0'
DEVICE_LINE = re.compile(r'^' + re.escape(SLOT) + r': (saved|restored)\b.* in ([0-9.]+) ms\.?$')
SAVED_LINE = re.compile(r'^Saved display state in ([0-9.]+) ms')
RESTORED_LINE = re.compile(r'^Restored display state in ([0-9.]+) ms')
LOGIND_TIMEOUT = re.compile(r'inhibitor timeout is reached')
LOGIND_FINISHED = "Operation 'sleep' finished"
HOOK_DEFERS = 'umsrestored.service handles this sleep, doing nothing'
DAEMON_MATCH = '_SYSTEMD_UNIT=umsrestored.service _COMM=umsrestored'

CAPS = ['CAP_CHOWN', 'CAP_DAC_OVERRIDE', 'CAP_DAC_READ_SEARCH', 'CAP_FOWNER', 'CAP_FSETID', 'CAP_KILL',
        'CAP_SETGID', 'CAP_SETUID', 'CAP_SETPCAP', 'CAP_LINUX_IMMUTABLE', 'CAP_NET_BIND_SERVICE',
        'CAP_NET_BROADCAST', 'CAP_NET_ADMIN', 'CAP_NET_RAW', 'CAP_IPC_LOCK', 'CAP_IPC_OWNER', 'CAP_SYS_MODULE',
        'CAP_SYS_RAWIO', 'CAP_SYS_CHROOT', 'CAP_SYS_PTRACE', 'CAP_SYS_PACCT', 'CAP_SYS_ADMIN', 'CAP_SYS_BOOT',
        'CAP_SYS_NICE', 'CAP_SYS_RESOURCE', 'CAP_SYS_TIME', 'CAP_SYS_TTY_CONFIG', 'CAP_MKNOD', 'CAP_LEASE',
        'CAP_AUDIT_WRITE', 'CAP_AUDIT_CONTROL', 'CAP_SETFCAP', 'CAP_MAC_OVERRIDE', 'CAP_MAC_ADMIN',
        'CAP_SYSLOG', 'CAP_WAKE_ALARM', 'CAP_BLOCK_SUSPEND', 'CAP_AUDIT_READ', 'CAP_PERFMON', 'CAP_BPF',
        'CAP_CHECKPOINT_RESTORE']


class Failure(Exception):
    pass


class Skip(Exception):
    pass


class SystemMachine(V.Machine):
    """vmlib's Machine with the guest's disk: the cached image, opened with snapshot=on so
    that every boot starts from the same state and cases can share the image."""

    def __init__(self, workdir, kernel, initrd, image, vga, append, name):
        super().__init__(workdir, kernel, initrd, vga=vga, append=append, memory=512, name=name)
        self.image = image

    def command_line(self, qmp_path):
        return super().command_line(qmp_path) + [
            '-drive', f'file={self.image},format=raw,if=virtio,snapshot=on']


class Case:
    def __init__(self, name, args):
        self.name = name
        self.args = args
        self.dir = os.path.join(args.workdir, name)
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        V.set_log_file(os.path.join(self.dir, 'harness.log'))
        self.noop = os.environ.get('UMSRESTORE_SYSTEM_NOOP', '') not in ('', '0')
        self.variant = 'noop' if self.noop else 'real'
        self.machine = None
        self.deadline = None
        self.prep = None
        self.times = {}
        self.sr01 = True  # VgaPeek.problems(sr01=): False for a Cirrus extended mode
        self.failures = []
        self.journal_log = []

    # -- checks: every failed check is recorded and the case goes on collecting evidence,
    #    so that one run shows everything that is wrong; require() stops the case.
    def check(self, cond, msg):
        if not cond:
            self.failures.append(msg)
            V.log('CHECK FAILED: ' + msg)
        return bool(cond)

    def require(self, cond, msg):
        if not cond:
            raise Failure(msg)

    # -- image and boot --
    def prepare(self):
        try:
            self.prep = S.prepare(self.args.source_root, self.args.build_root, self.dir, self.variant,
                                  self.args.vgapeek)
        except S.SetupError as e:
            raise Skip(str(e))
        self.times.update(self.prep['times'])
        self.deadline = V.Deadline(CASE_BUDGET_S)
        V.log(f"image {os.path.basename(self.prep['image'])}: umsrestore from the {self.prep['meta']['payload']}"
              + (' (NO-OP stand-in for umsrestored)' if self.noop else ''))

    def boot(self, vga='std', kms=False, append=''):
        if self.prep is None:
            self.prepare()
        cmdline = 'root=/dev/vda rw systemd.show_status=false'
        if not kms:
            # udev would load bochs / cirrus and make this a KMS machine (vm-notes).
            cmdline += ' modprobe.blacklist=bochs,cirrus'
        cmdline = (cmdline + ' ' + append).strip()
        kernel = types.SimpleNamespace(vmlinuz=self.prep['vmlinuz'])
        for attempt in (1, 2):
            name = 'guest' if attempt == 1 else 'guest-retry'
            self.machine = SystemMachine(self.dir, kernel, self.prep['initrd'], self.prep['image'], vga, cmdline,
                                         name)
            try:
                self.machine.start(self.deadline, boot_timeout=BOOT_TIMEOUT_S)
                break
            except V.VmError as e:
                self.machine.kill()
                if attempt == 2 or self.deadline.left() < BOOT_TIMEOUT_S:
                    raise
                V.log(f'boot failed ({e}); retrying once')
        self.times['boot_s'] = round(self.machine.boot_s, 1)
        rc, out = self.run('systemd-analyze time', timeout=30)
        V.log('boot: ' + ' '.join(out.split()))
        rc, out = self.run('systemctl is-system-running; systemctl --failed --no-legend --plain', timeout=30)
        if out.split()[:1] != ['running']:
            V.log('the guest is not fully up (for the record): ' + ' | '.join(out.strip().splitlines()))
        return self.machine

    # -- the guest --
    def run(self, line, expect=None, timeout=30):
        rc, out = self.machine.run(line, self.deadline, timeout=timeout)
        if expect is not None:
            self.require(rc == expect, f'{line!r} exited {rc}, expected {expect}:\n{out}')
        return rc, out

    def cursor(self):
        _, out = self.run('systest cursor', expect=0)
        c = out.strip().splitlines()[-1] if out.strip() else ''
        self.require(c.startswith('s='), f'no journal cursor: {out!r}')
        return c

    def journal(self, cursor, tag):
        """The entries after cursor (logged by umsrestored.service, logind, systemd-sleep
        and systemd about those units), parsed; kept in journal.json."""
        _, out = self.run(f"systest journal '{cursor}'", timeout=60)
        entries = []
        for line in out.splitlines():
            line = line.strip()
            if not line.startswith('{'):
                continue
            try:
                e = json.loads(line)
            except ValueError:
                continue
            if isinstance(e.get('MESSAGE'), list):
                e['MESSAGE'] = bytes(e['MESSAGE']).decode('utf-8', 'replace')
            e['_t'] = int(e.get('__MONOTONIC_TIMESTAMP', 0)) / 1e6
            entries.append(e)
        self.journal_log.append({'tag': tag, 'entries': entries})
        V.log(f'journal ({tag}):\n' + '\n'.join(
            f"    {e['_t']:10.3f} {e.get('_COMM') or e.get('SYSLOG_IDENTIFIER', '?')}[{e.get('_PID', '?')}]"
            f" {e.get('_SYSTEMD_UNIT') or ''}: {e.get('MESSAGE', '')}" for e in entries))
        return entries

    def wait_journal(self, cursor, match, regex, secs):
        """Waits (bounded) for a matching entry; returns its message or None."""
        rc, out = self.run(f"systest wait-journal '{cursor}' {secs} '{match}' \"{regex}\"",
                           timeout=secs + 20)
        return out.strip().splitlines()[-1] if rc == 0 and out.strip() else None

    def inhibitors(self):
        _, out = self.run('systest inhibitors', expect=0)
        try:
            data = json.loads(out[out.index('{'):out.rindex('}') + 1])
            return [tuple(i) for i in data['data'][0]]
        except (ValueError, KeyError, IndexError) as e:
            raise Failure(f'cannot parse ListInhibitors ({e}): {out!r}')

    def umsrestore_locks(self):
        return [i for i in self.inhibitors() if i[1] == 'umsrestore']

    def unit(self, name='umsrestored.service'):
        _, out = self.run(f'systest unit {name}', expect=0)
        return dict(l.split('=', 1) for l in out.splitlines() if '=' in l)

    def wait_lock(self, secs, pid=None):
        """Waits (bounded) until umsrestore holds a sleep delay lock; returns it or None."""
        end = time.monotonic() + secs
        while True:
            for i in self.umsrestore_locks():
                what, _who, _why, mode, _uid, ipid = i
                if 'sleep' in what.split(':') and mode == 'delay' and (pid is None or ipid == pid):
                    return i
            if time.monotonic() > end:
                return None
            time.sleep(0.5)

    def shot(self, name):
        return self.machine.screendump(os.path.join(self.dir, name + '.ppm'), self.deadline)

    def peek(self):
        return V.peek(self.machine, self.deadline, mem=True)

    def picture(self, want_dispi=False):
        self.run(f'vmt picture "system {self.name}"', expect=0)
        time.sleep(0.5)  # let QEMU's refresh catch up before the screendump
        img = self.shot('before')
        self.require(img.colours() >= 8, f'the test picture has only {img.colours()} colours: tty1 not drawn?')
        p0 = self.peek()
        self.require(not p0.problems(want_dispi=want_dispi, sr01=self.sr01), f'display not live before sleep: {p0.line}')
        return img, p0

    # -- one sleep --
    def sleep(self, command, before, synchronous=False, suspend_timeout=60, return_timeout=180):
        """Runs COMMAND (systemctl suspend returns at once; pm-suspend returns after wake),
        waits for QEMU's SUSPEND event, takes the 'asleep' screendump (it must differ from
        the picture, or this run cannot tell a lost screen from a restored one), wakes the
        guest and waits for WAKEUP (and, when synchronous, for COMMAND to return)."""
        m = self.machine
        cursor = self.cursor()
        n = m.event_count()
        t0 = time.monotonic()
        if synchronous:
            pos = m.send(command)
        else:
            self.run(command, expect=0)
        m.wait_event('SUSPEND', n, self.deadline.bound(suspend_timeout))
        self.times['suspend_s'] = round(time.monotonic() - t0, 2)
        V.log(f"SUSPEND event {self.times['suspend_s']:.2f} s after '{command}'")
        asleep = self.shot('asleep')
        d = V.compare(before, asleep)
        V.log(f'suspended vs before: {d}')
        self.require(d.pixels > 0, 'the screendump taken while suspended equals the picture: this run cannot '
                                   'tell a lost screen from a restored one')
        n = m.event_count()
        t1 = time.monotonic()
        m.qmp('system_wakeup', timeout=self.deadline.bound(10))
        m.wait_event('WAKEUP', n, self.deadline.bound(15))
        self.t_wake = t1
        if synchronous:
            rc, out = m.wait_rc(pos, self.deadline.bound(return_timeout), command)
            self.times['returned_s'] = round(time.monotonic() - t1, 2)
            V.log(f"'{command}' returned {rc} {self.times['returned_s']:.2f} s after system_wakeup")
            self.check(rc == 0, f"'{command}' exited {rc}:\n{out[-2000:]}")
        time.sleep(1.0)  # vm-notes: a line sent while the guest still wakes can arrive garbled
        return cursor

    def after_logind_sleep(self, cursor):
        """Waits for logind's end of the sleep operation (systemd-sleep's 'post' hooks have run)."""
        msg = self.wait_journal(cursor, '_SYSTEMD_UNIT=systemd-logind.service', LOGIND_FINISHED, 60)
        self.require(msg, f"logind did not log \"{LOGIND_FINISHED}\" within 60 s of the wake")
        self.times['sleep_finished_s'] = round(time.monotonic() - self.t_wake, 2)

    def expect_restored(self, before, p0, want_dispi=False, same_registers=True):
        """The display is live and as before sleep (registers, then picture, pixel for pixel).
        The screendump is judged only after the registers show a live display."""
        time.sleep(0.5)
        after = self.shot('after')
        d = V.compare(before, after)
        p = self.peek()
        problems = p.problems(want_dispi=want_dispi, sr01=self.sr01)
        V.log(f'after wake vs before: {d}' + (f'; display not live: {"; ".join(problems)}' if problems else ''))
        live = self.check(not problems, 'after wake the display is not live: ' + '; '.join(problems) +
                          f' (the screendump, {d}, says nothing while the display is off)')
        if same_registers:
            self.check(p.registers() == p0.registers(),
                       f'after wake the registers differ from before sleep:\n  before {p0.line}\n  after  {p.line}')
        if live:
            self.check(d.pixels == 0, f'after wake the picture differs: {d}')
        V.log(f'VGA memory window {"as before sleep" if p.mem == p0.mem else "differs from before sleep"} '
              f'({p0.mem} -> {p.mem}; not required: a console switch redraws it)')
        return p, d

    def expect_off(self, when):
        p = self.peek()
        problems = p.problems(sr01=self.sr01)
        self.check(problems, f'{when}: the display is live although nothing restored it; QEMU did not reset '
                             f'the VGA, so the other cases prove nothing ({p.line})')
        if problems:
            V.log(f'{when}: display off as expected: ' + '; '.join(problems))
        return p

    # -- what the daemon said --
    def daemon_lines(self, entries):
        """Lines logged by the daemon's own processes (in the unit's cgroup, not PID 1,
        _COMM umsrestored), not systemd's lines about the unit (UNIT=, which
        `journalctl -u` also shows: a no-op unit gets 'Started …' lines too). journald
        misses _COMM of a line whose writer exited at once (the daemon's save/restore
        child, seen once): such a line counts when its stream says umsrestored."""
        return [e for e in entries if e.get('_SYSTEMD_UNIT') == 'umsrestored.service' and e.get('_PID') != '1'
                and e.get('_COMM', 'umsrestored') == 'umsrestored' and e.get('SYSLOG_IDENTIFIER') == 'umsrestored']

    def hardening(self):
        """The unit runs as installed: the package's files unchanged (dpkg --verify and
        the manifest taken at install time), no drop-in, and the main process under the
        unit's restrictions (no new privileges, seccomp, the bounding set of the unit)."""
        meta = self.prep['meta']
        manifest = meta['manifest']
        unit_path = next((f for f in manifest if f.endswith('/umsrestored.service')), None)
        self.require(unit_path, 'the package installed no umsrestored.service')
        if meta['payload'] == 'deb':
            rc, out = self.run('dpkg --verify umsrestore')
            self.check(rc == 0 and not out.strip(), f'dpkg --verify umsrestore reports changes:\n{out}')
        _, out = self.run('systest sha256 ' + ' '.join(sorted(manifest)))
        got = {l.split()[1]: l.split()[0] for l in out.splitlines() if len(l.split()) == 2}
        changed = [f for f, h in manifest.items() if got.get(f) != h]
        self.check(not changed, f'installed files differ from the package: {changed}')
        u = self.unit()
        self.check(u.get('FragmentPath') == unit_path,
                   f"the unit is loaded from {u.get('FragmentPath')!r}, not the installed {unit_path!r}")
        self.check(not u.get('DropInPaths', '').strip(), f"the unit has drop-ins: {u.get('DropInPaths')}")
        _, unit_text = self.run(f'cat {unit_path}', expect=0)
        bset = set()
        for line in unit_text.splitlines():
            if line.startswith('CapabilityBoundingSet='):
                bset |= set(line.split('=', 1)[1].split())
        want = sum(1 << CAPS.index(c) for c in bset if c in CAPS)
        pid = int(u.get('MainPID', '0') or 0)
        self.require(pid > 0, f'umsrestored.service has no main process: {u}')
        _, out = self.run(f'systest proc {pid}', expect=0)
        st = dict((k.strip(), v.strip()) for k, v in (l.split(':', 1) for l in out.splitlines() if ':' in l))
        V.log(f'main process {pid}: ' + ', '.join(f'{k} {v}' for k, v in st.items()))
        self.check(st.get('NoNewPrivs') == '1', f"NoNewPrivs is {st.get('NoNewPrivs')}, the unit says yes")
        self.check(st.get('Seccomp') == '2', f"Seccomp is {st.get('Seccomp')}, the unit has a SystemCallFilter")
        if bset:
            self.check(int(st.get('CapBnd', '0'), 16) == want,
                       f"CapBnd {st.get('CapBnd')} is not the unit's CapabilityBoundingSet "
                       f"({' '.join(sorted(bset))} = {want:016x})")
        _, out = self.run('systemd-analyze security --no-pager umsrestored.service | tail -n 1')
        m = re.search(r'exposure level for \S+: ([0-9.]+)', out)
        V.log(f"systemd-analyze security in the guest: exposure {m.group(1) if m else out.strip()!r}")
        self.times['exposure'] = float(m.group(1)) if m else None

    def finish(self, ok):
        if self.machine:
            self.machine.kill()
        with open(os.path.join(self.dir, 'journal.json'), 'w') as f:
            json.dump(self.journal_log, f, indent=1)
        keep = not ok or os.environ.get('UMSRESTORE_SYSTEM_KEEP', '') not in ('', '0')
        for f in os.listdir(self.dir):
            path = os.path.join(self.dir, f)
            if f.endswith('.ppm'):
                if keep:
                    try:
                        V.write_png(path[:-4] + '.png', V.read_ppm(path))
                    except (V.VmError, OSError):
                        pass
                else:
                    os.unlink(path)
            elif f.endswith('.sock'):
                os.unlink(path)
            elif f == 'destdir':
                shutil.rmtree(path, ignore_errors=True)


# ---- the cases ------------------------------------------------------------------------

def daemon_sleep(c, vga='std', delay_s=None, append='', console=None):
    """systemctl suspend with umsrestored.service enabled (the package's default). With
    console (a /proc/fb name) the console is that firmware frame buffer, on std VGA in a Bochs
    dispi mode, which must be enabled before sleep and again after the restore; on Cirrus in
    the chip's extended mode, which SeaBIOS sets with the screen-off bit and the dpms method
    turns on."""
    want_dispi = console is not None and vga == 'std'
    c.boot(vga, append=' '.join(a for a in (append, f'umsrestore_test.inhibit_delay={delay_s}' if delay_s else '')
                                if a))
    if console:
        _, out = c.run('cat /proc/fb', expect=0)
        c.require(console in out, f'/proc/fb says {out.strip()!r}, expected the {console!r} console')
    rc, out = c.run('systest wait-unit umsrestored.service 30')
    c.require(rc == 0 and out.strip().endswith('active'), f'umsrestored.service is not active: {out}')
    u = c.unit()
    pid = int(u.get('MainPID', '0') or 0)
    V.log(f"umsrestored.service: {u.get('ActiveState')}/{u.get('SubState')}, pid {pid}, "
          f"status {u.get('StatusText')!r}")
    c.hardening()
    if delay_s:
        _, out = c.run('systest inhibit-delay', expect=0)
        c.require(out.split()[-1:] == [str(int(delay_s * 1000000))],
                  f'logind InhibitDelayMaxUSec is {out.strip()!r}, the boot asked for {delay_s} s')
        V.log(f'logind InhibitDelayMaxUSec: {out.split()[-1]} (lowered from the default 5 s)')
    lock = c.wait_lock(20, pid)
    c.check(lock, f'umsrestored (pid {pid}) holds no sleep delay lock before sleep: {c.inhibitors()}')
    if lock:
        V.log(f'before sleep: logind delay lock {lock}')
    c.run('umsrestored --status')
    before, p0 = c.picture(want_dispi=want_dispi)
    if want_dispi:
        V.log(f"before sleep: dispi mode {p0.f.get('dispi_mode')}, enable {p0.f.get('dispi_enable')}")
        _, fbmode = c.run('cat /sys/class/graphics/fb0/virtual_size /sys/class/graphics/fb0/bits_per_pixel', expect=0)
        w, h, bpp = re.split(r'[,\s]+', fbmode.strip())
        c.require(p0.f.get('dispi_mode') == f'{w}x{h}x{bpp}',
                  f"dispi mode {p0.f.get('dispi_mode')} is not fb0's {w}x{h}x{bpp}")
    cursor = c.sleep('systemctl suspend', before)
    c.after_logind_sleep(cursor)
    restored = c.wait_journal(cursor, DAEMON_MATCH, '^Restored display state|^Restoring display state failed', 20)
    c.check(restored and restored.startswith('Restored'), f'the daemon logged no restore after wake: {restored!r}')
    c.times['wake_to_restored_s'] = round(time.monotonic() - c.t_wake, 2)
    c.expect_restored(before, p0.with_screen_on() if not c.sr01 else p0, want_dispi=want_dispi)
    entries = c.journal(cursor, 'sleep')
    check_daemon_journal(c, entries, delay_s or 5)
    # The console method's spare VT is out of logind's autovt range: a switch to tty2..tty6
    # made logind start a getty there during the save (one more per sleep).
    _, out = c.run("systemctl list-units --no-legend --plain 'getty@*' 'autovt@*' | awk '{print $1}'", expect=0)
    gettys = sorted(out.split())
    c.check(gettys == ['getty@tty1.service'], f'gettys after the sleep: {gettys} (only tty1\'s before it)')
    lock = c.wait_lock(15, pid)
    c.check(lock, f'after wake umsrestored holds no sleep delay lock again: {c.inhibitors()}')
    if lock:
        V.log(f'after wake: the delay lock is back {lock}')
    u = c.unit()
    c.check(u.get('ActiveState') == 'active' and int(u.get('MainPID', '0') or 0) == pid,
            f'umsrestored.service after the sleep: {u} (was pid {pid})')


def check_daemon_journal(c, entries, delay_s):
    """The daemon saved before logind went on and restored after wake, each once, naming
    the device and the time; logind waited for the lock (no timeout); systemd-sleep's hook
    left the work to the daemon."""
    own = c.daemon_lines(entries)
    others = [e for e in entries if e.get('UNIT') == 'umsrestored.service']
    V.log(f'{len(own)} lines logged by umsrestored itself; {len(others)} lines by systemd about the unit '
          '(not counted)')
    dev = [(e, DEVICE_LINE.match(e.get('MESSAGE', ''))) for e in own]
    dev = [(e, m) for e, m in dev if m]
    saved_dev = [(e, m) for e, m in dev if m.group(1) == 'saved']
    restored_dev = [(e, m) for e, m in dev if m.group(1) == 'restored']
    saved = [e for e in own if SAVED_LINE.match(e.get('MESSAGE', ''))]
    restored = [e for e in own if RESTORED_LINE.match(e.get('MESSAGE', ''))]
    c.check(len(saved_dev) == 1 and len(saved) == 1,
            f'expected one save of {SLOT} and one "Saved display state" from the daemon, got '
            f'{len(saved_dev)} and {len(saved)}')
    c.check(len(restored_dev) == 1 and len(restored) == 1,
            f'expected one restore of {SLOT} and one "Restored display state" from the daemon, got '
            f'{len(restored_dev)} and {len(restored)}')
    logind = [e for e in entries if e.get('_SYSTEMD_UNIT') == 'systemd-logind.service']
    timeouts = [e for e in logind if LOGIND_TIMEOUT.search(e.get('MESSAGE', ''))]
    c.check(not timeouts, f"logind's delay ran out: {[e['MESSAGE'] for e in timeouts]}")
    # logind goes on by starting systemd-suspend.service (systemd logs it for the unit).
    go_on = [e for e in entries if e.get('UNIT') == 'systemd-suspend.service' and e.get('_PID') == '1'
             and e.get('MESSAGE', '').startswith('Starting ')]
    c.check(go_on, 'systemd did not log the start of systemd-suspend.service')
    if saved and go_on:
        t_saved, t_go = saved[0]['_t'], go_on[0]['_t']
        c.check(t_saved <= t_go, f'the daemon finished saving {t_saved - t_go:.3f} s after logind went on to '
                                 'suspend: it did not wait for the lock')
        V.log(f'logind started systemd-suspend.service {1000 * (t_go - t_saved):.0f} ms after the daemon '
              'released its lock')
    if saved_dev:
        ms = float(saved_dev[0][1].group(2))
        c.times['save_device_ms'] = ms
    if saved:
        ms = float(SAVED_LINE.match(saved[0]['MESSAGE']).group(1))
        c.times['save_pass_ms'] = ms
        c.check(ms < delay_s * 1000, f'the save pass took {ms} ms, more than logind waits ({delay_s} s)')
        V.log(f'save pass {ms} ms of the {delay_s} s logind allows ({100 * ms / (delay_s * 1000):.0f} %)')
    if restored_dev:
        c.times['restore_device_ms'] = float(restored_dev[0][1].group(2))
    if restored:
        c.times['restore_pass_ms'] = float(RESTORED_LINE.match(restored[0]['MESSAGE']).group(1))
    hook = [e for e in entries if e.get('_SYSTEMD_UNIT') == 'systemd-suspend.service']
    hook_dev = [e for e in hook if e.get('MESSAGE', '').startswith(SLOT)]
    c.check(not hook_dev, f'the systemd-sleep hook touched the device while the daemon runs: '
                          f'{[e["MESSAGE"] for e in hook_dev]}')
    V.log(f"systemd-sleep hook deferred to the daemon: "
          f"{sum(1 for e in hook if HOOK_DEFERS in e.get('MESSAGE', ''))} of 2 phases said so")


def case_daemon(c):
    """std VGA, text console: systemctl suspend with umsrestored.service (as installed)."""
    daemon_sleep(c, 'std')


def case_daemon_cirrus(c):
    """The same on cirrus."""
    daemon_sleep(c, 'cirrus')


def case_vesafb(c):
    """std VGA, vga=0x314: a vesafb 800x600x16 console in a Bochs dispi mode, systemctl suspend
    with umsrestored.service: the dispi mode, the registers and the picture come back."""
    daemon_sleep(c, 'std', append='vga=0x314', console='VESA VGA')


def case_cirrus_vesafb(c):
    """Cirrus, vga=0x314: a vesafb 800x600x16 console, which only the video BIOS brings back on
    this chip: the daemon's default plan takes the vbe method (SeaBIOS's BIOS in the emulator,
    under the unit's sandbox), and the picture and registers come back."""
    c.sr01 = False
    daemon_sleep(c, 'cirrus', append='vga=0x314', console='VESA VGA')


def case_delay(c):
    """logind's InhibitDelayMaxSec lowered from 5 s to 2 s: the daemon still saves within
    it (its save pass takes 0.3-0.7 s under TCG, beside another QEMU; it gives itself the
    delay less 0.5 s)."""
    daemon_sleep(c, 'std', delay_s=2)


def case_pm_suspend(c):
    """pm-suspend with the pm-utils hook and the daemon stopped: 99umsrestore saves and
    restores, pm-utils' own 99video does not run."""
    c.boot('std')
    c.run('systemctl stop umsrestored.service', expect=0)
    u = c.unit()
    c.require(u.get('ActiveState') == 'inactive', f'umsrestored.service did not stop: {u}')
    c.check(not c.umsrestore_locks(), f'an umsrestore lock is held with the daemon stopped: {c.inhibitors()}')
    before, p0 = c.picture()
    c.sleep('pm-suspend', before, synchronous=True, suspend_timeout=120, return_timeout=180)
    c.expect_restored(before, p0)
    _, log = c.run('cat /var/log/pm-suspend.log', timeout=60)
    with open(os.path.join(c.dir, 'pm-suspend.log'), 'w') as f:
        f.write(log)
    lines = log.splitlines()

    def results(hook, phase):
        """The outcome lines pm-utils logged for HOOK in PHASE (suspend / resume)."""
        tag = f'/{hook} {phase} suspend:'
        out, grab = [], False
        for line in lines:
            if line.startswith('Running hook ') and tag in line:
                grab = True
                continue
            if grab and tag in line:
                out.append(line.split(tag, 1)[1].strip())
                grab = False
        return out

    for phase in ('suspend', 'resume'):
        r = results('99umsrestore', phase)
        c.check(r == ['success.'], f'pm-utils ran 99umsrestore {phase}: {r or "never"}')
        v = results('99video', phase)
        c.check(v and all(x == 'disabled.' for x in v), f"pm-utils' 99video on {phase}: {v or 'not listed'} "
                                                        '(expected: disabled.)')
    dev = [DEVICE_LINE.match(l[len('umsrestored: '):]) for l in lines if l.startswith('umsrestored: ')]
    dev = [m for m in dev if m]
    V.log('umsrestored in pm-suspend.log: ' + ' | '.join(m.group(0) for m in dev))
    c.check([m.group(1) for m in dev] == ['saved', 'restored'],
            f'expected the hook to save then restore {SLOT} in pm-suspend.log, got {[m.group(0) for m in dev]}')
    for m in dev:
        c.times[f'{m.group(1)}_device_ms'] = float(m.group(2))
    c.check(not any('vbetool' in l for l in lines), 'vbetool ran (pm-utils video quirks)')


def case_sleep_hook(c):
    """systemctl suspend with umsrestored.service disabled: the systemd-sleep hook saves
    ('pre') and restores ('post')."""
    c.boot('std')
    c.run('systemctl disable --now umsrestored.service', expect=0)
    u = c.unit()
    c.require(u.get('ActiveState') == 'inactive' and u.get('UnitFileState') == 'disabled',
              f'umsrestored.service is not stopped and disabled: {u}')
    c.check(not c.umsrestore_locks(), f'an umsrestore lock is held with the daemon disabled: {c.inhibitors()}')
    before, p0 = c.picture()
    cursor = c.sleep('systemctl suspend', before)
    c.after_logind_sleep(cursor)
    c.expect_restored(before, p0)
    entries = c.journal(cursor, 'sleep')
    hook = [e for e in entries if e.get('_SYSTEMD_UNIT') == 'systemd-suspend.service']
    dev = [DEVICE_LINE.match(e.get('MESSAGE', '')) for e in hook]
    dev = [m for m in dev if m]
    c.check([m.group(1) for m in dev] == ['saved', 'restored'],
            f'expected the hook to save then restore {SLOT}, got {[m.group(0) for m in dev]}')
    for m in dev:
        c.times[f'{m.group(1)}_device_ms'] = float(m.group(2))
    c.check(not c.daemon_lines(entries), 'the daemon logged during the sleep although it is disabled')


def case_kms(c):
    """bochs loaded by udev (a KMS machine): the daemon stays idle without a lock, the
    sleep hook does nothing, nothing is saved or touched, and the kernel brings the picture back."""
    c.boot('std', kms=True)
    rc, out = c.run('systest wait-drm 60')
    c.require(rc == 0, f'bochs did not come up: {out}')
    V.log('KMS: ' + out.strip())
    rc, out = c.run('systest wait-unit umsrestored.service 30')
    c.require(rc == 0 and out.strip().endswith('active'), f'umsrestored.service is not active: {out}')
    time.sleep(1)
    u = c.unit()
    V.log(f"umsrestored.service: {u.get('ActiveState')}, status {u.get('StatusText')!r}")
    c.check(u.get('StatusText', '').startswith('idle'), f"the daemon is not idle: {u.get('StatusText')!r}")
    c.check(not c.umsrestore_locks(), f'umsrestore holds a lock on a KMS machine: {c.umsrestore_locks()}')
    entries = c.journal('boot', 'boot')
    _, out = c.run("journalctl -b -k -o short-monotonic --no-pager | grep -m1 'Initialized bochs'")
    m = re.search(r'\[\s*([0-9.]+)\]', out)
    started = [e['_t'] for e in c.daemon_lines(entries)]
    if m and started:
        # The daemon classifies at start-up: bochs must be bound by then (else it would
        # hold a lock until its first sleep). Recorded to watch the margin.
        c.times['bochs_before_daemon_s'] = round(started[0] - float(m.group(1)), 1)
        V.log(f"bochs initialised at {m.group(1)} s, the daemon's first line at {started[0]:.1f} s")
    own = [e.get('MESSAGE', '') for e in c.daemon_lines(entries)]
    c.check(any(m.startswith(f'{SLOT}: kms') for m in own),
            f'the daemon did not log that {SLOT} is KMS and not touched: {own}')
    _, out = c.run('umsrestored --status')
    c.check(re.search(r'\bkms\b', out), f'umsrestored --status does not say kms:\n{out}')
    before, p0 = c.picture(want_dispi=True)
    cursor = c.sleep('systemctl suspend', before)
    c.after_logind_sleep(cursor)
    time.sleep(1)
    c.expect_restored(before, p0, want_dispi=True, same_registers=False)
    entries = c.journal(cursor, 'sleep')
    own = c.daemon_lines(entries)
    acted = [e['MESSAGE'] for e in own if re.match(r'^(Saved|Restored|Saving|Restoring)|^' + re.escape(SLOT)
                                                     + r': (saved|restored)', e.get('MESSAGE', ''))]
    c.check(not acted, f'the daemon acted on a KMS machine: {acted}')
    hook = [e for e in entries if e.get('_SYSTEMD_UNIT') == 'systemd-suspend.service']
    hook_dev = [e['MESSAGE'] for e in hook if e.get('MESSAGE', '').startswith(SLOT)]
    c.check(not hook_dev, f'the systemd-sleep hook acted on a KMS machine: {hook_dev}')
    _, out = c.run('vmt states', expect=0)
    c.check(out.strip() == 'none', f'state files on a KMS machine:\n{out}')
    c.check(not c.umsrestore_locks(), f'umsrestore holds a lock after the sleep: {c.umsrestore_locks()}')


def case_control(c):
    """The same machine with umsrestore out of the way (daemon disabled, sleep hook
    removed): after systemctl suspend the display stays off."""
    c.boot('std')
    c.run('systemctl disable --now umsrestored.service && rm -f /lib/systemd/system-sleep/umsrestore '
          '/usr/lib/systemd/system-sleep/umsrestore', expect=0)
    before, _ = c.picture()
    cursor = c.sleep('systemctl suspend', before)
    c.after_logind_sleep(cursor)
    c.expect_off('after wake')
    time.sleep(2)
    later = c.shot('later')
    c.expect_off('3 s after wake, with no restore')
    d = V.compare(before, later)
    V.log(f'3 s after wake vs before: {d}' + (' (a stale frame: the display is off, QEMU shows the last one '
                                              'drawn)' if d.pixels == 0 else ''))


NO_SLEEP_HOOK = 'rm -f /lib/systemd/system-sleep/umsrestore /usr/lib/systemd/system-sleep/umsrestore'
# Holds tty1 in VT_PROCESS mode and never acknowledges a release (VT_SETMODE 0x5602 with
# struct vt_mode {mode 1, waitv 0, relsig SIGUSR1, acqsig SIGUSR2, frsig 0}): a switch away
# from it stays pending, as under a stuck X server. Bounded: it exits after 120 s.
VT_HOLDER = ("perl -e '$| = 1; open(my $t, \"+<\", \"/dev/tty1\") or die \"tty1: $!\"; $SIG{USR1} = sub {}; "
             "$SIG{USR2} = sub {}; my $m = pack(\"CCsss\", 1, 0, 10, 12, 0); ioctl($t, 0x5602, $m) or die \"VT_SETMODE: $!\"; "
             "print \"holding\\n\"; for (1..120) { sleep 1 }' </dev/null >/tmp/vt-holder.log 2>&1 & echo $!")


def daemon_up(c):
    """Waits for the daemon and its delay lock; returns its main pid."""
    rc, out = c.run('systest wait-unit umsrestored.service 30')
    c.require(rc == 0 and out.strip().endswith('active'), f'umsrestored.service is not active: {out}')
    pid = int(c.unit().get('MainPID', '0') or 0)
    c.require(c.wait_lock(20, pid), f'umsrestored (pid {pid}) holds no sleep delay lock: {c.inhibitors()}')
    return pid


def case_killed_save(c):
    """The daemon SIGKILLed in the middle of its save before sleep (the console's VT switch is
    made to wait by a process holding tty1, the kill comes once the save has recorded its undo
    file). The sleep goes on (the lock went with the process); systemd restarts the daemon,
    whose start rolls the unfinished save back (undo file used and removed, VT 1 active, no
    unfinished files); the state of the earlier save is kept as SLOT.state.prev and is still
    valid (--dump accepts it), but it is not restored: once a save has begun, the picture of
    another time must not be written back. The systemd-sleep hook is removed so that only the
    daemon acts."""
    c.boot('std')
    c.run(NO_SLEEP_HOOK, expect=0)
    pid = daemon_up(c)
    before, _ = c.picture()
    c.run('umsrestored --no-console-switch --save-now', expect=0)
    _, out = c.run(VT_HOLDER, expect=0)
    holder = out.strip().splitlines()[-1]
    time.sleep(1)
    _, log = c.run('cat /tmp/vt-holder.log')
    c.require('holding' in log, f'the VT holder did not take tty1: {log!r}')
    killer = (f'(i=0; until [ -e /run/umsrestore/{SLOT}.undo ] || [ $i -ge 500 ]; do sleep 0.02; i=$((i+1)); done; '
              f'ls /run/umsrestore; systemctl kill -s KILL umsrestored.service; kill {holder}) '
              '>/tmp/killer.log 2>&1 &')
    cursor = c.sleep(f'{killer} systemctl suspend', before)
    c.after_logind_sleep(cursor)
    _, klog = c.run('cat /tmp/killer.log')
    V.log('killer: ' + ' | '.join(klog.strip().splitlines()))
    c.check(f'{SLOT}.undo' in klog, f'the daemon was not caught in its save (no undo file seen): {klog!r}')
    rc, out = c.run('systest wait-unit umsrestored.service 30')
    u = c.unit()
    c.check(rc == 0 and u.get('ActiveState') == 'active' and int(u.get('NRestarts', '0') or 0) >= 1 and
            int(u.get('MainPID', '0') or 0) not in (0, pid), f'the daemon was not restarted after the kill: {u}')
    c.wait_journal(cursor, DAEMON_MATCH, 'rolled back what an unfinished save', 20)
    entries = c.journal(cursor, 'killed save')
    own = [e.get('MESSAGE', '') for e in c.daemon_lines(entries)]
    c.check(any(f'{SLOT}: rolled back what an unfinished save' in m for m in own),
            f'the restarted daemon did not roll the unfinished save back: {own}')
    logind = [e for e in entries if e.get('_SYSTEMD_UNIT') == 'systemd-logind.service']
    c.check(any(LOGIND_FINISHED in e.get('MESSAGE', '') for e in logind), 'logind did not finish the sleep')
    _, files = c.run('ls -a /run/umsrestore', expect=0)
    names = files.split()
    V.log('/run/umsrestore after: ' + ' '.join(names))
    c.check(f'{SLOT}.undo' not in names and not any('.tmp-' in n for n in names),
            f'the restart left the undo file or unfinished files: {names}')
    c.check(f'{SLOT}.state' not in names and f'{SLOT}.state.prev' in names,
            f'expected the earlier state kept as {SLOT}.state.prev and no {SLOT}.state: {names}')
    rc, out = c.run(f'umsrestored --dump /run/umsrestore/{SLOT}.state.prev')
    c.check(rc == 0 and SLOT in out, f'the earlier state is not valid any more (--dump exit {rc}):\n{out[-1500:]}')
    _, active = c.run('cat /sys/class/tty/tty0/active', expect=0)
    c.check(active.strip() == 'tty1', f'after the rollback the active VT is {active.strip()}, not tty1')


def case_state_full(c):
    """The state directory is full (a 64 KiB tmpfs on /run/umsrestore, the std VGA state needs
    about 260 KiB): the daemon's save fails with a message naming the directory and the cause,
    releases its lock at once, the sleep goes on without logind's timeout, nothing unfinished
    is left, and after wake the daemon runs on and takes its lock again."""
    c.boot('std')
    c.run('systemctl stop umsrestored.service && mount -t tmpfs -o size=64k,mode=0700 umsrestore-full '
          '/run/umsrestore && systemctl start umsrestored.service', expect=0)
    pid = daemon_up(c)
    before, _ = c.picture()
    cursor = c.sleep('systemctl suspend', before)
    c.after_logind_sleep(cursor)
    c.wait_journal(cursor, DAEMON_MATCH, 'Saving display state failed|not restored', 20)
    entries = c.journal(cursor, 'state full')
    own = [e.get('MESSAGE', '') for e in c.daemon_lines(entries)]
    c.check(any(re.search(r"cannot write the state file in '/run/umsrestore': No space left on device", m)
                for m in own), f'the daemon did not say the state directory is full: {own}')
    logind = [e for e in entries if e.get('_SYSTEMD_UNIT') == 'systemd-logind.service']
    timeouts = [e['MESSAGE'] for e in logind if LOGIND_TIMEOUT.search(e.get('MESSAGE', ''))]
    c.check(not timeouts, f"logind's delay ran out: the failed save kept the lock: {timeouts}")
    _, files = c.run('ls -a /run/umsrestore', expect=0)
    c.check(not any('.tmp-' in n for n in files.split()), f'an unfinished state file was left: {files.split()}')
    u = c.unit()
    c.check(u.get('ActiveState') == 'active' and int(u.get('MainPID', '0') or 0) == pid,
            f'the daemon did not run on after the failed save: {u} (was pid {pid})')
    c.check(c.wait_lock(15, pid), f'after wake the daemon holds no delay lock again: {c.inhibitors()}')


CASES = {
    'killed-save': case_killed_save,
    'state-full': case_state_full,
    'daemon': case_daemon,
    'daemon-cirrus': case_daemon_cirrus,
    'vesafb': case_vesafb,
    'cirrus-vesafb': case_cirrus_vesafb,
    'delay': case_delay,
    'pm-suspend': case_pm_suspend,
    'sleep-hook': case_sleep_hook,
    'kms': case_kms,
    'control': case_control,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('case', choices=sorted(CASES))
    ap.add_argument('--source-root', required=True)
    ap.add_argument('--build-root', required=True)
    ap.add_argument('--vgapeek', required=True)
    ap.add_argument('--workdir', required=True)
    args = ap.parse_args()

    # meson's timeout sends SIGTERM: unwind so that QEMU is killed on the way out.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(124))

    t0 = time.monotonic()
    c = Case(args.case, args)
    status, code = 'FAIL', 1
    try:
        CASES[args.case](c)
        if c.failures:
            V.log(f'FAIL: {len(c.failures)} check(s) failed:\n' + '\n'.join('  - ' + f for f in c.failures))
        else:
            status, code = 'PASS', 0
    except Skip as e:
        status, code = 'SKIP', 77
        V.log(f'SKIP: {e}')
    except (Failure, V.VmError) as e:
        more = ('\n  earlier failed checks:\n' + '\n'.join('  - ' + f for f in c.failures)) if c.failures else ''
        V.log(f'FAIL: {e}{more}')
    finally:
        c.finish(code != 1)
        c.times['total_s'] = round(time.monotonic() - t0, 1)
        if c.deadline:
            c.times['case_s'] = round(CASE_BUDGET_S - c.deadline.left(), 1)
        if c.prep and c.prep.get('payload_note'):
            V.log('NOTE: ' + c.prep['payload_note'])
        with open(os.path.join(c.dir, 'times.json'), 'w') as f:
            json.dump(c.times, f)
        V.log(f'{status}: {args.case} ' + ' '.join(f'{k}={v}' for k, v in c.times.items())
              + (f' (logs and screendumps in {c.dir})' if code == 1 else ''))
    return code


if __name__ == '__main__':
    sys.exit(main())
