#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The QEMU part of tools/demo: boots Debian's kernel on an emulated std VGA with a text
console, suspends to RAM and wakes it once without umsrestore and once with it (a fresh
boot each time), and writes under OUT:
  before.png, after-without.png, after-with.png, side-by-side.png (those three, left to
  right), report.txt (also printed), and the logs of both runs.

  demo.py --umsrestored BIN --vgapeek BIN --out DIR
"""

import argparse
import json
import os
import shutil
import signal
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the source tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vmlib as V  # noqa: E402

SLOT = '0000:00:02.0'


def say(msg):
    print(f'==> {msg}', flush=True)
    V.log(f'==> {msg}')


def read_vcs(m, d):
    """tty1's screen text as lines (the VT's character buffer)."""
    rc, out = m.run('stty -F /dev/tty1 size; hexdump -v -e \'1/1 "%02x"\' /dev/vcs1; echo', d)
    lines = [l.strip() for l in out.splitlines() if l.strip()]
    if rc != 0 or len(lines) < 2:
        return []
    rows, cols = (int(x) for x in lines[0].split())
    raw = bytes.fromhex(lines[1])
    text = []
    for r in range(rows):
        row = raw[r * cols:(r + 1) * cols]
        text.append(''.join(chr(b) if 32 <= b < 127 else ' ' for b in row).rstrip())
    while text and not text[-1]:
        text.pop()
    return text


def boot(out, kernel, initrd, name, deadline):
    m = V.Machine(out, kernel, initrd, vga='std', name=name)
    m.start(deadline)
    return m


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--umsrestored', required=True)
    ap.add_argument('--vgapeek', required=True)
    ap.add_argument('--out', required=True)
    args = ap.parse_args()
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(124))

    out = os.path.abspath(args.out)
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    V.set_log_file(os.path.join(out, 'demo.log'), quiet=True)
    report = []

    say('kernel: Debian linux-image-*-amd64 from the package archive (cached after the first time)')
    t0 = time.monotonic()
    kernel = V.fetch_kernel()
    t_kernel = time.monotonic() - t0
    initrd = os.path.join(out, 'initrd.cpio')
    V.build_initramfs(initrd, {'usr/sbin/umsrestored': args.umsrestored, 'usr/bin/vgapeek': args.vgapeek})

    imgs, notes = {}, {}
    verdict = save_line = restore_line = restore_rc = None
    boots = []
    for run in ('without', 'with'):
        d = V.Deadline(120)
        say(f'run {1 if run == "without" else 2} of 2: booting QEMU (std VGA, TCG, S3 enabled), '
            f'{run} umsrestore')
        with boot(out, kernel, initrd, f'run-{run}', d) as m:
            boots.append(m.boot_s)
            m.run('vmt picture demo', d, check=0)
            time.sleep(0.5)
            before = m.screendump(os.path.join(out, f'before-{run}.ppm'), d)
            if run == 'without':
                imgs['before'] = before
                say('the text console on tty1 (what the screen shows):')
                text = read_vcs(m, d)
                width = max([len(t) for t in text] + [20])
                print('    +' + '-' * width + '+')
                for t in text:
                    print(f'    |{t:<{width}}|')
                print('    +' + '-' * width + '+', flush=True)
            else:
                same = V.compare(imgs['before'], before)
                if same.pixels:
                    notes['before'] = f'the second boot drew a different picture ({same})'
                _, st = m.run('umsrestored --status', d)
                say('umsrestored --status:\n' + '\n'.join('    ' + l for l in st.rstrip().splitlines()))
                _, sj = m.run('umsrestored --status --json', d)
                try:
                    dev = [x for x in json.loads(sj[sj.index('{'):sj.rindex('}') + 1])['devices']
                           if x['slot'] == SLOT][0]
                    verdict = f"{dev['verdict']}: {dev['reason']} (methods: {', '.join(dev.get('methods') or []) or '-'})"
                except (ValueError, IndexError, KeyError):
                    verdict = ' '.join(st.split())
                rc, o = m.run('umsrestored --save-now', d)
                save_line = f'exit {rc}: ' + ' '.join(o.split())
                say(f'umsrestored --save-now: {save_line}')

            say('suspend to RAM (echo mem > /sys/power/state), then QMP system_wakeup')
            # A screendump while asleep makes QEMU draw the frame the guest left (the kernel's
            # suspend VT, blank): with the display off after wake QEMU stops repainting and
            # would otherwise hand back the picture of before suspend (vm-notes, "Trap").
            m.suspend(d, while_asleep=lambda: m.screendump(os.path.join(out, f'asleep-{run}.ppm'), d))
            woken = V.peek(m, d)
            notes[f'woken-{run}'] = woken.problems()
            say('right after wake the display is ' + ('OFF: ' + '; '.join(woken.problems()) if woken.problems()
                                                    else 'live'))
            if run == 'with':
                rc, o = m.run('umsrestored --restore-now', d)
                restore_rc = rc
                restore_line = f'exit {rc}: ' + ' '.join(o.split())
                say(f'umsrestored --restore-now: {restore_line}')
            else:
                say('(no umsrestore: nothing restores the display)')
            time.sleep(0.5)
            after = m.screendump(os.path.join(out, f'after-{run}.ppm'), d)
            p = V.peek(m, d)
            if p.problems() and after.colours() > 1:
                # The display is off, so a monitor shows nothing, whatever stale frame QEMU has.
                notes[f'stale-{run}'] = (f'QEMU returned a stale {after.colours()}-colour frame while the '
                                         'display was off; after-' + run + '.png shows it black, as a monitor would')
                after = V.Image(after.width, after.height, bytes(len(after.pixels)))
            imgs[f'after-{run}'] = after
            notes[f'live-{run}'] = p.problems()
            diff = V.compare(imgs['before'], after)
            notes[f'diff-{run}'] = diff
            state = 'live' if not p.problems() else 'OFF (' + '; '.join(p.problems()) + ')'
            say(f'after wake {run} umsrestore: display {state}; screendump vs before: {diff}')

    say('writing PNGs')
    for name in ('before', 'after-without', 'after-with'):
        V.write_png(os.path.join(out, name + '.png'), imgs[name])
    V.write_png(os.path.join(out, 'side-by-side.png'),
                V.side_by_side([imgs['before'], imgs['after-without'], imgs['after-with']],
                               ['before suspend', 'after wake, without umsrestore', 'after wake, with umsrestore']))
    for f in os.listdir(out):
        if f.endswith('.ppm') or f.endswith('.sock') or f == 'initrd.cpio':
            os.unlink(os.path.join(out, f))

    ok_without_lost = bool(notes['live-without'])
    ok_with = not notes['live-with'] and notes['diff-with'].pixels == 0
    ok_rc = restore_rc == 0
    report += [
        'umsrestore demo: a QEMU machine (std VGA, vgacon text console) suspended to RAM and woken',
        '',
        f'kernel:            {kernel.package} (fetch/cache {t_kernel:.1f} s); boots to /init in '
        + ', '.join(f'{b:.1f} s' for b in boots),
        f'verdict (--status): {verdict}',
        f'--save-now:        {save_line}',
        f'--restore-now:     {restore_line}',
        '',
        'without umsrestore: display after wake ' + ('OFF: ' + '; '.join(notes['live-without'])
                                                    if notes['live-without'] else 'live')
        + f'; picture vs before: {notes["diff-without"]}',
        'with umsrestore:    display after restore ' + ('live' if not notes['live-with']
                                                        else 'OFF: ' + '; '.join(notes['live-with']))
        + f'; picture vs before: {notes["diff-with"]}',
    ]
    for k in ('before', 'stale-without', 'stale-with'):
        if k in notes:
            report.append(f'note: {notes[k]}')
    report += [
        '',
        'result: ' + ('the screen is lost without umsrestore and comes back pixel for pixel with it'
                      if ok_without_lost and ok_with else 'NOT as expected (see above and demo.log)')
        + ('' if ok_rc else f'; but --restore-now exited {restore_rc} (see above)'),
        '',
        f'pictures in {out}/:',
        '  before.png         the text console before suspend',
        '  after-without.png  after wake, nothing restored (display off: black)',
        '  after-with.png     after wake and umsrestored --restore-now',
        '  side-by-side.png   the three, left to right',
    ]
    text = '\n'.join(report) + '\n'
    with open(os.path.join(out, 'report.txt'), 'w') as f:
        f.write(text)
    print()
    print(text, end='', flush=True)
    return 0 if ok_without_lost and ok_with and ok_rc else 1


if __name__ == '__main__':
    try:
        sys.exit(main())
    except V.VmError as e:
        print(f'error: {e}', file=sys.stderr)
        sys.exit(1)
