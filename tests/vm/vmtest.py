#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""One case of the QEMU end-to-end suite (meson suite 'vm'): a real Debian kernel, a real
emulated VGA, real S3. Every case compares a screendump taken before suspend with one
taken after wake, but only after proving that the comparison can fail: a screendump
while suspended must differ from the picture, the registers read in the guest right
after wake must show the display off (QEMU resets the VGA on wake), and the registers
read after the restore must show it live again (vm-notes: "a screendump after wake can
be stale").

  vmtest.py CASE --umsrestored BIN --vgapeek BIN --workdir DIR [--sysconfdir DIR]

Cases: control, std, cirrus, ati, kms, bad-state, two-cycles, console, caps, efifb, vesafb, vesafb-vbe,
cirrus-vesafb, fallback, test-restore, test-restore-cirrus; the fault cases (vmfaults.py): fault-hang, fault-kms,
fault-removed, fault-full, fault-kill.
Exit: 0 pass, 1 fail, 77 skip (only 'console', while umsrestored has no console method).

Environment:
  UMSRESTORE_VM_CACHE=DIR  kernel package cache (default /var/tmp/umsrestore-vm-cache)
  UMSRESTORE_VM_NOOP=1     put a no-op stand-in (noop-umsrestored.sh, exits 0) into the
                           guest instead of umsrestored: every case but 'control' must fail
  UMSRESTORE_VM_KEEP=1     keep the screendumps of passing cases too
Screendumps (PPM, plus PNG copies), the harness log, serial and QEMU logs of a failing
case stay in WORKDIR/CASE/ (BUILD/tests/vm/work/CASE under meson); compare two of them by
hand with ppmcmp.py A.ppm B.ppm [--png OUT.png].
"""

import argparse
import json
import os
import re
import shutil
import signal
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmlib as V  # noqa: E402

CASE_BUDGET_S = 85  # every case must finish within 90 s (the kernel fetch is not counted)
SLOT = '0000:00:02.0'
STATE = f'/run/umsrestore/{SLOT}.state'
EXIT_NOTHING = 3
EXIT_BAD_STATE = 5


class Failure(Exception):
    pass


class Skip(Exception):
    pass


def check(cond, msg):
    if not cond:
        raise Failure(msg)


class Case:
    def __init__(self, name, args):
        self.name = name
        self.args = args
        self.dir = os.path.join(args.workdir, name)
        shutil.rmtree(self.dir, ignore_errors=True)
        os.makedirs(self.dir)
        V.set_log_file(os.path.join(self.dir, 'harness.log'))
        self.noop = os.environ.get('UMSRESTORE_VM_NOOP', '') not in ('', '0')
        self.umsrestored = os.path.join(V.HERE, 'noop-umsrestored.sh') if self.noop else args.umsrestored
        self.kernel = None
        self.deadline = None
        self.times = {}
        self.machine = None
        self.sr01 = True  # VgaPeek.problems(sr01=): False for a Cirrus extended mode

    def prepare(self, modules=(), tools=None):
        self.kernel = V.fetch_kernel()
        self.deadline = V.Deadline(CASE_BUDGET_S)
        mods = V.module_load_order(self.kernel.moddir, modules) if modules else []
        initrd = os.path.join(self.dir, 'initrd.cpio')
        binaries = {'usr/sbin/umsrestored': self.umsrestored, 'usr/bin/vgapeek': self.args.vgapeek}
        if self.args.umsrestored_faults:
            binaries['usr/sbin/umsrestored-faults'] = (os.path.join(V.HERE, 'noop-umsrestored.sh') if self.noop
                                                       else self.args.umsrestored_faults)
        binaries.update(tools or {})
        size = V.build_initramfs(initrd, binaries, modules=mods)
        V.log(f'initramfs {size / 1e6:.1f} MB' + (f' with {len(mods)} modules' if mods else '') +
              (' (NO-OP stand-in for umsrestored)' if self.noop else ''))
        return initrd

    def boot(self, vga='std', modules=(), tools=None, firmware=None, append=''):
        initrd = self.prepare(modules, tools)
        self.machine = V.Machine(self.dir, self.kernel, initrd, vga=vga, firmware=firmware, append=append)
        self.machine.start(self.deadline)
        self.times['boot_s'] = round(self.machine.boot_s, 1)
        return self.machine

    # -- guest helpers --
    def run(self, line, expect=None, timeout=30):
        rc, out = self.machine.run(line, self.deadline, timeout=timeout)
        if expect is not None:
            check(rc == expect, f'{line!r} exited {rc}, expected {expect}:\n{out}')
        return rc, out

    def ums(self, args, expect=None):
        return self.run(f'umsrestored {args}', expect)

    def status_json(self):
        rc, out = self.ums('--status --json')
        try:
            start = out.index('{')
            return json.loads(out[start:out.rindex('}') + 1])
        except ValueError:
            raise Failure(f"'umsrestored --status --json' (exit {rc}) printed no JSON:\n{out}")

    def device(self, status):
        for d in status.get('devices', []):
            if d.get('slot') == SLOT:
                return d
        raise Failure(f'--status does not list {SLOT}: {status}')

    def shot(self, name):
        return self.machine.screendump(os.path.join(self.dir, name + '.ppm'), self.deadline)

    def peek(self, mem=False):
        return V.peek(self.machine, self.deadline, mem=mem)

    def picture(self):
        self.run(f'vmt picture {self.name}', expect=0)
        time.sleep(0.5)  # let QEMU's refresh catch up before the screendump
        img = self.shot('before')
        check(img.colours() >= 8, f'the test picture has only {img.colours()} colours: tty1 not drawn?')
        return img

    # -- one suspend/resume cycle with the checks that make the comparison meaningful --
    def sleep_and_wake(self, before, tag=''):
        """Suspends and wakes. Checks that a screendump taken while suspended differs from
        the picture and returns (asleep image, woken image, peek right after wake)."""
        shots = {}
        self.machine.suspend(self.deadline, while_asleep=lambda: shots.update(asleep=self.shot('asleep' + tag)))
        d = V.compare(before, shots['asleep'])
        V.log(f'suspended vs before: {d}')
        check(d.pixels > 0, 'the screendump taken while suspended equals the picture: this run cannot '
                            'tell a lost screen from a restored one')
        woken = self.shot('woken' + tag)
        V.log(f'right after wake vs before: {V.compare(before, woken)}')
        p = self.peek(mem=True)
        return shots['asleep'], woken, p

    def expect_off(self, p, when, want_dispi=False):
        problems = p.problems(want_dispi=want_dispi, sr01=self.sr01)
        check(problems, f'{when}: the display is live although nothing restored it; QEMU did not reset '
                        f'the VGA, so this run proves nothing ({p.line})')
        V.log(f'{when}: display off as expected: ' + '; '.join(problems))

    def restore(self, args, before, p_before, tag='', expect=0, same_mem=True):
        """Runs umsrestored ARGS (a restore), looks at the screen and the registers whatever
        its exit code (for the log), then checks the exit code and expect_restored()."""
        rc, out = self.ums(args)
        self.times['restore_ms' + tag] = self.ms(out)
        self.expect_restored(before, p_before, tag, same_mem=same_mem,
                             rc_check=(rc == expect, f'{args!r} exited {rc}, expected {expect}:\n{out}'))

    def expect_restored(self, before, p_before, tag='', want_dispi=False, same_registers=True, same_mem=True,
                        rc_check=None):
        """After a restore: the registers say the display is live (and equal the ones read
        before suspend), then the screendump equals the picture, pixel for pixel; with
        same_mem the whole 0xA0000-0xBFFFF window must be as before suspend too (not so after
        a VT switch: the kernel redraws the text and keeps other VTs' text off screen)."""
        time.sleep(0.5)
        after = self.shot('after' + tag)
        d = V.compare(before, after)
        p = self.peek(mem=True)
        problems = p.problems(want_dispi=want_dispi, sr01=self.sr01)
        V.log(f'after restore vs before: {d}' + (f'; display not live: {"; ".join(problems)}' if problems else ''))
        if rc_check:
            check(*rc_check)
        check(not problems, 'after the restore the display is not live: ' + '; '.join(problems) +
              f' (screendump: {d}, which says nothing while the display is off)')
        if same_registers:
            check(p.registers() == p_before.registers(),
                  f'after the restore the registers differ from before suspend:\n  before {p_before.line}'
                  f'\n  after  {p.line}')
        check(d.pixels == 0, f'after the restore the picture differs: {d}')
        same_mem = same_mem and same_registers and p_before.mem
        if same_mem:
            check(p.mem == p_before.mem, f'the picture is identical but the VGA memory window differs from '
                                         f'before suspend (hash {p_before.mem} -> {p.mem})')
        what = ('registers' + (' and VGA memory' if same_mem else '') + ' as before suspend, ') if same_registers else ''
        V.log(f'restored: display live, {what}picture identical')
        return after

    def ms(self, out):
        """'… in 12.3 ms.' from umsrestored's output, or None."""
        m = re.search(r' in ([0-9.]+) ms', out)
        return float(m.group(1)) if m else None

    def finish(self, ok):
        if self.machine:
            self.machine.kill()
        keep = not ok or os.environ.get('UMSRESTORE_VM_KEEP', '') not in ('', '0')
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
            elif f == 'initrd.cpio' or f.endswith('.sock'):
                os.unlink(path)


# ---- the cases ----------------------------------------------------------------------

def case_control(c):
    """No umsrestore: the wake leaves the display off, and it stays off."""
    c.boot('std')
    before = c.picture()
    p0 = c.peek()
    check(not p0.problems(), f'display not live before suspend: {p0.line}')
    _, woken, p = c.sleep_and_wake(before)
    c.expect_off(p, 'after wake')
    time.sleep(2)
    later = c.shot('later')
    p2 = c.peek()
    c.expect_off(p2, '2 s after wake, with no restore')
    d = V.compare(before, later)
    V.log(f'2 s after wake vs before: {d}'
          + (' (a stale frame: the display is off, QEMU shows the last one drawn)' if d.pixels == 0 else ''))
    V.log('control: without umsrestore the screen is lost')


def restore_case(c, vga, cycles=1):
    c.boot(vga)
    before = c.picture()
    p0 = c.peek(mem=True)
    check(not p0.problems(), f'display not live before suspend: {p0.line}')
    # For the record only: what these cases prove is the picture and the registers.
    try:
        st = c.device(c.status_json())
        V.log(f"--status: {SLOT} {st.get('verdict')} (managed: {st.get('managed')}), methods {st.get('methods')}")
    except Failure as e:
        V.log(f'(ignored here) {e}')
    for i in range(1, cycles + 1):
        tag = f'-{i}' if cycles > 1 else ''
        _, out = c.ums('--no-console-switch --save-now', expect=0)
        c.times[f'save_ms{tag}'] = c.ms(out)
        p_saved = c.peek(mem=True)
        check(p_saved.line == p0.line, f'--save-now changed the hardware:\n  before {p0.line}\n  after  {p_saved.line}')
        _, _, p = c.sleep_and_wake(before, tag)
        c.expect_off(p, f'cycle {i}: after wake')
        c.restore('--no-console-switch --restore-now', before, p0, tag)


def case_std(c):
    """std VGA, vgacon text on tty1: identical after --save-now / S3 / --restore-now."""
    restore_case(c, 'std')


def case_cirrus(c):
    """Cirrus, vgacon text on tty1: identical after --save-now / S3 / --restore-now."""
    restore_case(c, 'cirrus')


RADEON_BAR2 = f'$(sed -n 3p /sys/bus/pci/devices/{SLOT}/resource | cut -d" " -f1)'


def radeon_poke(c, offset, value):
    """Writes one Radeon register through BAR2 from the guest (busybox devmem)."""
    c.run(f'devmem $(({RADEON_BAR2} + {offset:#x})) 32 {value:#010x}', expect=0)


def case_ati(c):
    """QEMU's Radeon 7000 (ati-vga, model rv100) with SeaBIOS's ATI VGA BIOS, vgacon text on
    tty1, no radeon driver: umsrestore plans the radeon method (CRTC, DAC; the chip has no
    panel interface) and the text and the Radeon registers read in the guest (vgapeek's
    radeon=CRTC_GEN_CNTL,CRTC_EXT_CNTL,DAC_CNTL) come back after --save-now / S3 /
    --restore-now. QEMU keeps its ATI registers over the S3 reset (only the VGA core is
    reset), so after wake the case plays a firmware that powered the DAC down and disabled
    the CRTC's syncs; only the radeon method brings those bits back."""
    c.boot('ati')
    # CRT output on and the DAC's pixel mask open, as a BIOS mode set leaves them on real
    # chips (SeaBIOS's ATI BIOS leaves both 0 in text mode; QEMU ignores both bits).
    radeon_poke(c, 0x54, 0x00008000)
    radeon_poke(c, 0x58, 0xff000000)
    before = c.picture()
    p0 = c.peek(mem=True)
    check(not p0.problems(), f'display not live before suspend: {p0.line}')
    check(p0.f.get('radeon') == '00000000,00008000,ff000000', f'the Radeon registers did not take: {p0.line}')
    st = c.device(c.status_json())
    check(st.get('verdict') == 'firmware' and 'radeon' in st.get('methods', []),
          f"--status for the Radeon 7000: verdict {st.get('verdict')!r}, methods {st.get('methods')}, "
          "expected 'firmware' with radeon")
    _, out = c.ums('--no-console-switch --save-now', expect=0)
    c.times['save_ms'] = c.ms(out)
    _, out = c.ums(f'--dump {STATE}', expect=0)
    check('radeon: Radeon 7000 / VE (1002:5159, RV100), registers through BAR2' in out,
          f'--dump does not show the radeon section:\n{out}')
    _, _, p = c.sleep_and_wake(before)
    c.expect_off(p, 'after wake')
    V.log(f"Radeon registers after QEMU's S3 reset: {p.f.get('radeon')} (before: {p0.f.get('radeon')})")
    radeon_poke(c, 0x54, 0x00008700)  # display, hsync and vsync disabled
    radeon_poke(c, 0x58, 0xff008000)  # DAC powered down
    check(c.peek().f.get('radeon') == '00000000,00008700,ff008000', 'the firmware stand-in did not take')
    c.restore('--no-console-switch --restore-now', before, p0)


def case_two_cycles(c):
    """std VGA: two save / S3 / restore cycles in a row, identical both times."""
    restore_case(c, 'std', cycles=2)


def case_kms(c):
    """bochs DRM loaded: umsrestore hands off (kms, exit 3, no state, nothing touched) and
    the kernel's own restore gives the identical picture."""
    c.boot('std', modules=['bochs'])
    c.run('vmt kms', expect=0)
    before = c.picture()
    p0 = c.peek()
    check(not p0.problems(want_dispi=True), f'bochs display not live before suspend: {p0.line}')
    st = c.device(c.status_json())
    check(st.get('verdict') == 'kms', f"--status verdict for {SLOT} is {st.get('verdict')!r}, expected 'kms'")
    check(st.get('managed') is False, f'--status says {SLOT} is managed')
    V.log(f"--status: {SLOT} kms ({st.get('driver')}): {st.get('reason')}")
    c.ums('--save-now', expect=EXIT_NOTHING)
    _, out = c.run('vmt states', expect=0)
    check(out.strip() == 'none', f'--save-now wrote state for a KMS device:\n{out}')
    p1 = c.peek()
    check(p1.line == p0.line, f'--save-now touched the registers:\n  before {p0.line}\n  after  {p1.line}')
    check(V.compare(before, c.shot('after-save')).pixels == 0, '--save-now changed the picture')
    _, _, p = c.sleep_and_wake(before)
    # The kernel (bochs) has restored the mode by the time user space runs: the reset
    # dispi enable (0 after QEMU's wake reset) is set again.
    check(not p.problems(want_dispi=True), 'after wake the kernel did not bring the bochs display back: '
          + '; '.join(p.problems(want_dispi=True)))
    c.ums('--restore-now', expect=EXIT_NOTHING)
    _, out = c.run('vmt states', expect=0)
    check(out.strip() == 'none', f'--restore-now left state for a KMS device:\n{out}')
    p2 = c.peek(mem=True)
    check(p2.registers() == p.registers(), f'--restore-now touched the registers:\n  before {p.line}\n  after  {p2.line}')
    c.expect_restored(before, p0, want_dispi=True, same_registers=False)


def case_bad_state(c):
    """A truncated and a corrupted state file: --restore-now refuses (exit 5) and leaves the
    woken display exactly as it was (off, registers and VGA memory untouched)."""
    c.boot('std')
    before = c.picture()
    p0 = c.peek(mem=True)
    c.ums('--no-console-switch --save-now', expect=0)
    rc, out = c.run(f'stat -c %s {STATE}')
    check(rc == 0, f'--save-now exited 0 but wrote no state file {STATE}')
    size = int(out.split()[-1])
    c.run(f'cp -p {STATE} /tmp/good.state', expect=0)
    _, woken, p_woken = c.sleep_and_wake(before)
    c.expect_off(p_woken, 'after wake')
    for what, damage in (('truncated', f'vmt truncate {STATE} {size // 3}'),
                         ('corrupted', f'vmt flip {STATE} {size // 2}')):
        c.run(f'cp -p /tmp/good.state {STATE}', expect=0)
        c.run(damage, expect=0)
        rc, out = c.ums('--no-console-switch --restore-now')
        check(rc == EXIT_BAD_STATE, f'--restore-now with a {what} state file exited {rc}, expected '
                                    f'{EXIT_BAD_STATE}:\n{out}')
        p = c.peek(mem=True)
        check(p.line == p_woken.line, f'--restore-now with a {what} state file touched the hardware:\n'
                                      f'  woken {p_woken.line}\n  now   {p.line}')
        c.expect_off(p, f'after refusing the {what} file')
        d = V.compare(woken, c.shot(f'refused-{what}'))
        check(d.pixels == 0, f'the screen changed after refusing the {what} state file: {d}')
        V.log(f'{what} state file refused (exit {rc}); registers and VGA memory untouched')
    # The intact file still restores: the refusals were about the files, nothing else.
    c.run(f'cp -p /tmp/good.state {STATE}', expect=0)
    c.restore('--no-console-switch --restore-now', before, p0)


def case_console(c):
    """The console method: umsrestored moves to a spare VT before sleep and back after the
    restore, so the kernel redraws tty1 onto programmed hardware; identical picture. Two saves
    before a restore still come back to tty1."""
    c.boot('std')
    st = c.device(c.status_json())
    methods = st.get('methods') or []
    if 'console' not in methods:
        raise Skip(f"umsrestored --status lists no console method for {SLOT} (methods: {st.get('methods')}): "
                   'this case waits for it')
    before = c.picture()
    p0 = c.peek(mem=True)
    _, out = c.run('vmt active', expect=0)
    check(out.strip() == 'tty1', f'foreground VT is {out.strip()!r}, expected tty1')
    _, out = c.ums('--save-now', expect=0)
    c.times['save_ms'] = c.ms(out)
    _, out = c.run('vmt active', expect=0)
    spare = out.strip()
    check(spare not in ('tty1', ''), f'--save-now did not move to a spare VT (foreground: {spare!r})')
    V.log(f'--save-now moved the console to {spare}')
    _, _, p = c.sleep_and_wake(before)
    c.expect_off(p, 'after wake')
    c.restore('--restore-now', before, p0, same_mem=False)
    _, out = c.run('vmt active', expect=0)
    check(out.strip() == 'tty1', f'--restore-now did not switch back to tty1 (foreground: {out.strip()!r})')
    # A second save before any restore (--save-now twice, or a hook's after a manual one): the console is
    # on the first one's spare VT, and the restore must still bring the user back to tty1.
    c.ums('--save-now', expect=0)
    c.ums('--save-now', expect=0)
    _, out = c.run('vmt active', expect=0)
    check(out.strip() not in ('tty1', ''), f'two saves left the console on {out.strip()!r}, not a spare VT')
    c.ums('--restore-now', expect=0)
    _, out = c.run('vmt active', expect=0)
    check(out.strip() == 'tty1', f'after two saves --restore-now left the console on {out.strip()!r}, not tty1')


OVMF = '/usr/share/ovmf/OVMF.fd'  # Debian's ovmf (tools/packages.txt): UEFI, no video BIOS


def write_config(c, text):
    """Writes umsrestore.conf (where this build reads it) in the guest and checks it."""
    c.run(f'mkdir -p {c.args.sysconfdir}', expect=0)
    for i, line in enumerate(text.splitlines()):
        c.run(f"echo '{line}' {'>' if i == 0 else '>>'} {c.args.sysconfdir}/umsrestore.conf", expect=0)
    c.run('umsrestored --check-config', expect=0)


def check_linear_plan(c, method, absent=None):
    """--status plans METHOD (and not ABSENT) for the device's linear console mode and says the
    mode is restorable. Not checked under the no-op stand-in, which prints nothing: there the
    restore is what must fail."""
    try:
        st = c.device(c.status_json())
    except Failure as e:
        if not c.noop:
            raise
        V.log(f'(no-op stand-in: checked by the restore) {e}')
        return
    methods = st.get('methods') or []
    V.log(f"--status: methods {methods}, mode {st.get('mode')}, restorable {st.get('mode_restorable')}")
    check(method in methods and absent not in methods and st.get('mode') == 'linear' and st.get('mode_restorable'),
          f'--status does not plan the {method} method for the linear mode: {st}')


def dispi_case(c, console, firmware=None, append='', mode=None, method='bochs', config=None):
    """A firmware frame buffer console on std VGA, in a Bochs dispi mode: the wake disables the
    mode (the registers read in the guest say so), --save-now / --restore-now bring the same
    mode back (dispi enable, geometry, offsets and the VGA registers as before suspend) with
    the frame buffer kept, so the screendump equals the picture pixel for pixel. METHOD is the
    one --status must plan for the linear mode (CONFIG: the umsrestore.conf to write first)."""
    c.boot('std', firmware=firmware, append=append)
    if config:
        write_config(c, config)
    _, out = c.run('cat /proc/fb', expect=0)
    check(console in out, f'/proc/fb says {out.strip()!r}, expected the {console!r} console')
    before = c.picture()
    p0 = c.peek(mem=True)
    check(not p0.problems(want_dispi=True), f'dispi mode not live before suspend: {p0.line}')
    _, fbmode = c.run('cat /sys/class/graphics/fb0/virtual_size /sys/class/graphics/fb0/bits_per_pixel', expect=0)
    w, h, bpp = re.split(r'[,\s]+', fbmode.strip())
    want = mode or f'{w}x{h}x{bpp}'
    check(p0.f.get('dispi_mode') == want, f"dispi mode {p0.f.get('dispi_mode')}, expected {want} (fb0: {fbmode.split()})")
    V.log(f"before suspend: {console} on dispi {p0.f['dispi_mode']}, enable {p0.f['dispi_enable']}")
    check_linear_plan(c, method)
    _, out = c.ums('--no-console-switch --save-now', expect=0)
    c.times['save_ms'] = c.ms(out)
    check('WARNING' not in out, f'--save-now warns that the mode cannot be restored:\n{out}')
    p_saved = c.peek(mem=True)
    check(p_saved.line == p0.line, f'--save-now changed the hardware:\n  before {p0.line}\n  after  {p_saved.line}')
    _, _, p = c.sleep_and_wake(before)
    c.expect_off(p, 'after wake', want_dispi=True)
    check(not p.dispi_enable & 1, f'after wake the dispi mode is still enabled: {p.line}')
    rc, out = c.ums('--no-console-switch --restore-now')
    c.times['restore_ms'] = c.ms(out)
    want = p0.with_screen_on()  # the dpms method turns the screen on, whatever the firmware left
    if want.line != p0.line:
        V.log(f'expected after the restore (screen on by the dpms method): {want.line}')
    c.expect_restored(before, want, want_dispi=True,
                      rc_check=(rc == 0, f'--restore-now exited {rc}, expected 0:\n{out}'))


def case_efifb(c):
    """OVMF (UEFI, no video BIOS), efifb console in the GOP's dispi mode: restored by the native
    bochs method, registers and picture as before suspend."""
    check(os.path.exists(OVMF), f'{OVMF} is missing (Debian package ovmf, tools/packages.txt)')
    dispi_case(c, 'EFI VGA', firmware=OVMF)


def case_vesafb(c):
    """SeaBIOS, vga=0x314: vesafb 800x600x16 console: restored pixel for pixel, dispi enabled
    at 800x600x16 again."""
    dispi_case(c, 'VESA VGA', append='vga=0x314', mode='800x600x16')


def case_vesafb_vbe(c):
    """The vesafb case with the native bochs method left out: the video BIOS (SeaBIOS's, run
    in the emulator) sets the VESA mode again and puts back its state, then vga and dpms."""
    dispi_case(c, 'VESA VGA', append='vga=0x314', mode='800x600x16', method='vbe',
               config='[General]\nMethods=pci-config vga vbe dpms')


# Bochs dispi XRES (index 1) written with bit 6 flipped, once per restore pass: the bochs
# method's restore goes wrong in a way its verification sees (umsrestored-faults).
CORRUPT_XRES = 'UMSRESTORE_TEST_CORRUPT=0x1CF,1,0x40,1'


def case_fallback(c):
    """The fallback along the plan, on the real kernel: std VGA, vesafb at vga=0x314, with both
    the native bochs method and the video BIOS method (vbe) saved. A restore in which bochs
    writes the mode wrong (one register corrupted on purpose) is first shown to fail without a
    fallback (vbe left out: exit 9, the register named); with vbe saved the same restore goes
    on by itself to the BIOS, which sets the mode again: exit 0, "restored by vbe after bochs
    failed verification", the picture and the registers as before suspend."""
    check(c.args.umsrestored_faults, 'this case needs --umsrestored-faults')
    c.boot('std', append='vga=0x314')
    before = c.picture()
    p0 = c.peek(mem=True)
    check(not p0.problems(want_dispi=True), f'dispi mode not live before suspend: {p0.line}')
    want = p0.with_screen_on()
    for label, methods, expect in (('no-fallback', 'pci-config vga bochs dpms', 9),
                                   ('fallback', 'pci-config vga bochs vbe dpms', 0)):
        write_config(c, f'[General]\nMethods={methods}')
        _, out = c.run('umsrestored-faults --no-console-switch --save-now', expect=0)
        _, _, p = c.sleep_and_wake(before, '-' + label)
        c.expect_off(p, f'{label}: after wake', want_dispi=True)
        rc, out = c.run(f'{CORRUPT_XRES} umsrestored-faults --no-console-switch --restore-now')
        if expect:
            check(rc == expect and 'bochs' in out and 'dispi' in out.lower(),
                  f'{label}: the corrupted restore exited {rc}, expected {expect} with the bochs register named '
                  f'(without that, the fallback below proves nothing):\n{out}')
            V.log(f'{label}: the corrupted bochs restore is caught by its verification (exit {rc})')
            c.ums('--no-console-switch --restore-now', expect=0)  # a clean restore for the next cycle
            c.expect_restored(before, want, '-' + label + '-clean', want_dispi=True)
        else:
            check(re.search(r'restored by vbe after bochs failed verification', out),
                  f'{label}: --restore-now does not say the BIOS took over:\n{out}')
            c.expect_restored(before, want, '-' + label, want_dispi=True,
                              rc_check=(rc == 0, f'{label}: --restore-now exited {rc}, expected 0:\n{out}'))


CORRUPT_CURSOR = 'UMSRESTORE_TEST_CORRUPT=0x3D5,0x0A,0x20,1'  # CR0A cursor start: the cursor off


def test_restore_case(c, vga, corrupt=False):
    """--test-restore on the real kernel, without sleeping: it saves, blanks the display as a
    wake does (screen off, palette off, DAC mask 0), restores and verifies; it must say every
    method is restorable and leave registers, VGA memory and picture exactly as they were.
    With corrupt, the same through umsrestored-faults with one CRTC register written wrong on
    purpose: exit 9, "NOT RESTORABLE", the vga method and the register named; then a restore
    of a state saved before brings the display back."""
    c.boot(vga)
    before = c.picture()
    p0 = c.peek(mem=True)
    check(not p0.problems(sr01=c.sr01), f'display not live before the test: {p0.line}')
    rc, out = c.ums('--test-restore')
    check(rc == 0 and re.search(rf'^{SLOT}: RESTORABLE$', out, re.M) and
          re.search(r'^  vga +[0-9.]+ +[0-9.]+  restorable$', out, re.M),
          f'--test-restore exited {rc}, expected 0 with {SLOT} and vga restorable:\n{out}')
    m = re.search(r'^  vga +([0-9.]+) +([0-9.]+)', out, re.M)
    c.times['test_vga_save_ms'], c.times['test_vga_restore_ms'] = float(m.group(1)), float(m.group(2))
    c.expect_restored(before, p0, '-test')
    rc, out = c.ums('--report')
    check(rc == 0 and re.search(r'^Kernel: \S+', out, re.M) and 'last test-restore: ok' in out and
          re.search(r'^ +vga +save [0-9.]+ ms, restore [0-9.]+ ms: ok$', out, re.M),
          f'--report exited {rc} or lacks the kernel or the test-restore per method:\n{out}')
    if not corrupt:
        return
    check(c.args.umsrestored_faults, 'this case needs --umsrestored-faults')
    c.ums('--no-console-switch --save-now', expect=0)
    rc, out = c.run(f'{CORRUPT_CURSOR} umsrestored-faults --test-restore')
    check(rc == 9 and re.search(rf'^{SLOT}: NOT RESTORABLE$', out, re.M) and
          re.search(r'^  vga .*NOT restorable, 1 differ: .*0x0a', out, re.M | re.I),
          f'the corrupted --test-restore exited {rc}, expected 9 with vga and CRTC 0x0a named:\n{out}')
    p1 = c.peek()
    check(p1.cr[0x0A] != p0.cr[0x0A], f'the corruption did not reach the hardware (CR0A {p1.cr[0x0A]}), so the '
                                      f'failure above proves nothing')
    V.log(f'the corrupted test is reported (exit {rc}); CR0A {p0.cr[0x0A]} -> {p1.cr[0x0A]} on the hardware')
    c.restore('--no-console-switch --restore-now', before, p0, '-after-corrupt-test')


def case_test_restore(c):
    """--test-restore and --report on std VGA text; a broken method is reported as such."""
    test_restore_case(c, 'std', corrupt=True)


def case_test_restore_cirrus(c):
    """--test-restore on Cirrus text."""
    test_restore_case(c, 'cirrus')


def case_cirrus_vesafb(c):
    """Cirrus, SeaBIOS, vga=0x314: a vesafb 800x600x16 console, which no native method brings
    back on this chip: the default plan takes the vbe method, and after S3 the picture, the
    VGA registers and the BIOS's mode are as before suspend."""
    c.sr01 = False
    c.boot('cirrus', append='vga=0x314')
    _, out = c.run('cat /proc/fb', expect=0)
    check('VESA VGA' in out, f'/proc/fb says {out.strip()!r}, expected the vesafb console')
    before = c.picture()
    p0 = c.peek(mem=True)
    check(not p0.problems(sr01=False), f'display not live before suspend: {p0.line}')
    check_linear_plan(c, 'vbe', absent='bochs')
    _, out = c.ums('--no-console-switch --save-now', expect=0)
    c.times['save_ms'] = c.ms(out)
    check('WARNING' not in out, f'--save-now warns that the mode cannot be restored:\n{out}')
    p_saved = c.peek(mem=True)
    check(p_saved.line == p0.line, f'--save-now changed the hardware:\n  before {p0.line}\n  after  {p_saved.line}')
    if c.noop:  # it writes no state: let the restore be what fails
        V.log('(no-op stand-in: no state file to dump)')
    else:
        _, out = c.ums(f'--dump {STATE}', expect=0)
        check(re.search(r'vbe: VESA BIOS [0-9.]+, mode 0x114 \(800x600, 16 bpp', out),
              f'--dump does not show the saved VESA mode 0x114:\n{out}')
    _, _, p = c.sleep_and_wake(before)
    c.expect_off(p, 'after wake')
    rc, out = c.ums('--no-console-switch --restore-now')
    c.times['restore_ms'] = c.ms(out)
    want = p0.with_screen_on()  # the dpms method turns the screen on (SR01 bit 5)
    c.expect_restored(before, want, rc_check=(rc == 0, f'--restore-now exited {rc}, expected 0:\n{out}'))


# Capabilities by number (linux/capability.h), for checking the effective set in the guest.
CAP_BITS = {'sys_rawio': 17, 'sys_admin': 21, 'sys_tty_config': 26}
UNIT_CAPS = ('sys_rawio', 'sys_admin', 'sys_tty_config')  # units/umsrestored.service.in
SETPRIV = '/usr/bin/setpriv'  # util-linux's (busybox's applet is /bin/setpriv)
# label, capabilities kept, --save-now succeeds, --restore-now succeeds (and the picture is back)
CAPS_RUNS = (
    ('unit', UNIT_CAPS, True, True),
    ('no-sys_rawio', ('sys_admin', 'sys_tty_config'), False, False),
    # std VGA: pci-config gets along with the first 64 bytes of config space.
    ('no-sys_admin', ('sys_rawio', 'sys_tty_config'), True, True),
    # the console method's VT_ACTIVATE on /dev/tty0 (not the caller's tty) is refused
    ('no-sys_tty_config', ('sys_rawio', 'sys_admin'), False, False),
    ('none', (), False, False),
)


def with_caps(caps, command):
    """COMMAND run by root with exactly CAPS: the bounding set reduced to them and the
    inheritable (hence ambient) set emptied, so that exec gives root permitted = effective
    = CAPS."""
    bset = ','.join(['-all'] + [f'+{cap}' for cap in caps])
    return f'{SETPRIV} --inh-caps -all --bounding-set {bset} -- {command}'


def caps_run(c, label, caps, before, p0):
    """One save / S3 / restore cycle with only CAPS. Measures --save-now and --restore-now
    separately: a failed save is followed by a save with the unit's capabilities, so that
    the restore still has a state to work from; a restore that does not bring the picture
    back is followed by one with the unit's capabilities, so that the next run starts from
    a live display. Returns the measurement."""
    want = sum(1 << CAP_BITS[cap] for cap in caps)
    _, out = c.run(with_caps(caps, 'grep CapEff /proc/self/status'), expect=0)
    m = re.search(r'CapEff:\s*([0-9a-f]+)', out)
    check(m and int(m.group(1), 16) == want, f'{label}: effective set under setpriv is not '
                                             f'{want:#x} ({"+".join(caps) or "empty"}):\n{out}')
    r = {'label': label, 'caps': '+'.join(caps) or '(none)', 'cap_eff': f'{want:#x}'}
    r['save_rc'], r['save_out'] = c.run(with_caps(caps, 'umsrestored --save-now'))
    _, vt = c.run('vmt active', expect=0)
    _, states = c.run('vmt states', expect=0)
    r['save_vt'], r['save_state'] = vt.strip(), states.strip() != 'none'
    if r['save_state']:
        _, size = c.run(f'stat -c %s {STATE}', expect=0)
        r['state_bytes'] = int(size.split()[-1])
    V.log(f"[{label}] --save-now with {r['caps']}: exit {r['save_rc']}, foreground {r['save_vt']}, "
          f"state file {'of %d bytes' % r['state_bytes'] if r['save_state'] else 'none'}:\n{r['save_out'].rstrip()}")
    if r['save_rc'] != 0:
        check(r['save_vt'] == 'tty1', f'{label}: the failed --save-now left the console on {r["save_vt"]!r}')
        c.run(with_caps(UNIT_CAPS, 'umsrestored --save-now'), expect=0)
        V.log(f'[{label}] saved again with the unit capabilities for the restore')
    _, spare = c.run('vmt active', expect=0)
    spare = spare.strip()
    check(spare not in ('tty1', ''), f'{label}: after the save the console is on {spare!r}, not a spare VT')
    _, _, p = c.sleep_and_wake(before, '-' + label)
    c.expect_off(p, f'{label}: after wake')
    r['restore_rc'], r['restore_out'] = c.run(with_caps(caps, 'umsrestored --restore-now'))
    time.sleep(0.5)
    d = V.compare(before, c.shot('restored-' + label))
    p = c.peek(mem=True)
    _, vt = c.run('vmt active', expect=0)
    r['restore_vt'], r['live'], r['pixels'] = vt.strip(), not p.problems(), d.pixels
    r['picture_back'] = r['live'] and d.pixels == 0 and p.registers() == p0.registers()
    V.log(f"[{label}] --restore-now with {r['caps']}: exit {r['restore_rc']}, foreground {r['restore_vt']}, "
          f"display {'live' if r['live'] else 'off: ' + '; '.join(p.problems())}, screendump vs before: {d}"
          f":\n{r['restore_out'].rstrip()}")
    if r['restore_rc'] == 0 and r['picture_back'] and r['restore_vt'] == 'tty1':
        c.expect_restored(before, p0, '-' + label, same_mem=False)
    else:
        # A failed restore may already have switched back to tty1, over a display that is
        # still off; go back to the spare VT the save chose, so that the restore's switch
        # to tty1 makes the kernel redraw it onto the restored hardware.
        if r['restore_vt'] != spare:
            c.run(f'chvt {spare[3:]}', expect=0)
        c.run(with_caps(UNIT_CAPS, 'umsrestored --restore-now'), expect=0)
        # tty1's text does not come back by itself: the failed restore switched to tty1
        # while VGA memory was unprogrammed, and vgacon keeps the foreground VT's text in
        # VGA memory, so the kernel's copy of tty1 is what it read back from there.
        time.sleep(0.5)
        d = V.compare(before, c.shot(f'recovered-{label}'))
        V.log(f'[{label}] after the recovery restore vs before: {d}; drawing the picture again')
        c.run(f'vmt picture {c.name}', expect=0)
        c.expect_restored(before, p0, f'-{label}-recovered', same_mem=False)
        _, vt = c.run('vmt active', expect=0)
        check(vt.strip() == 'tty1', f'{label}: the recovery restore left the console on {vt.strip()!r}')
        V.log(f'[{label}] recovered with the unit capabilities')
    return r


def case_caps(c):
    """Which capabilities the default plan (console, dpms, vga, bochs, pci-config) needs on std VGA:
    root with only the unit's bounding set saves and restores the identical picture; without
    CAP_SYS_RAWIO, without CAP_SYS_TTY_CONFIG or without any, --save-now and --restore-now
    fail and the picture does not come back; without CAP_SYS_ADMIN both still work here."""
    check(os.access(SETPRIV, os.X_OK), f'{SETPRIV} (util-linux, tools/packages.txt) is missing on the host')
    c.boot('std', tools={SETPRIV.lstrip('/'): SETPRIV})
    st = c.device(c.status_json())
    methods = st.get('methods') or []
    check('console' in methods, f"default plan for {SLOT} lacks the console method: {st.get('methods')}")
    V.log(f"--status: {SLOT} {st.get('verdict')}, methods {st.get('methods')}")
    before = c.picture()
    p0 = c.peek(mem=True)
    check(not p0.problems(), f'display not live before suspend: {p0.line}')
    results = []
    for label, caps, save_ok, restore_ok in CAPS_RUNS:
        r = caps_run(c, label, caps, before, p0)
        results.append(r)
        c.times[f'caps_{label}'] = f"save={r['save_rc']} restore={r['restore_rc']} back={int(r['picture_back'])}"
        restored = r['restore_rc'] == 0 and r['picture_back'] and r['restore_vt'] == 'tty1'
        if save_ok is not None:
            check((r['save_rc'] == 0) == save_ok,
                  f"{label}: --save-now exited {r['save_rc']}, expected {'0' if save_ok else 'a failure'}:\n"
                  f"{r['save_out']}")
        if restore_ok is not None:
            check(restored == restore_ok,
                  f"{label}: --restore-now exited {r['restore_rc']} (picture {'back' if r['picture_back'] else 'not back'}"
                  f", console on {r['restore_vt']}), expected {'a restore' if restore_ok else 'a failure'}:\n"
                  f"{r['restore_out']}")
    with open(os.path.join(c.dir, 'caps.json'), 'w') as f:
        json.dump(results, f, indent=1)
    for r in results:
        V.log(f"caps {r['label']:<18} save exit {r['save_rc']}, restore exit {r['restore_rc']}, "
              f"picture {'back' if r['picture_back'] else 'NOT back'} (console {r['restore_vt']})")


CASES = {
    'control': case_control,
    'std': case_std,
    'cirrus': case_cirrus,
    'ati': case_ati,
    'kms': case_kms,
    'bad-state': case_bad_state,
    'two-cycles': case_two_cycles,
    'console': case_console,
    'caps': case_caps,
    'efifb': case_efifb,
    'vesafb': case_vesafb,
    'vesafb-vbe': case_vesafb_vbe,
    'cirrus-vesafb': case_cirrus_vesafb,
    'fallback': case_fallback,
    'test-restore': case_test_restore,
    'test-restore-cirrus': case_test_restore_cirrus,
}


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('case', choices=sorted(CASES))
    ap.add_argument('--umsrestored', required=True)
    ap.add_argument('--vgapeek', required=True)
    ap.add_argument('--umsrestored-faults', help='umsrestored with a register write corrupted on purpose')
    ap.add_argument('--workdir', required=True)
    ap.add_argument('--sysconfdir', default='/etc', help='where the umsrestored under test reads umsrestore.conf')
    args = ap.parse_args()

    # meson's timeout sends SIGTERM: unwind so that QEMU is killed on the way out.
    def terminated(*_):
        raise Failure('terminated by SIGTERM (the meson timeout?)')
    signal.signal(signal.SIGTERM, terminated)

    t0 = time.monotonic()
    c = Case(args.case, args)
    status, code = 'FAIL', 1
    try:
        CASES[args.case](c)
        status, code = 'PASS', 0
    except Skip as e:
        status, code = 'SKIP', 77
        V.log(f'SKIP: {e}')
    except (Failure, V.VmError) as e:
        V.log(f'FAIL: {e}')
    finally:
        c.finish(code != 1)
        total = time.monotonic() - t0
        c.times['total_s'] = round(total, 1)
        if c.deadline:
            c.times['case_s'] = round(CASE_BUDGET_S - c.deadline.left(), 1)
        with open(os.path.join(c.dir, 'times.json'), 'w') as f:
            json.dump(c.times, f)
        V.log(f'{status}: {args.case} ' + ' '.join(f'{k}={v}' for k, v in c.times.items())
              + ('' if code == 0 else f' (logs and screendumps in {c.dir})'))
    return code


if __name__ == '__main__':
    sys.exit(main())
