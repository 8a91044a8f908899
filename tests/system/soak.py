#!/usr/bin/python3
# SPDX-License-Identifier: MIT
"""The soak (meson suite 'soak'; tools/check --soak): consecutive S3 cycles (100 by default)
in the system suite's Debian guest with umsrestored.service as installed and the real
logind, each cycle checked like the system suite's 'daemon' case: the screendump while
suspended differs from the picture, the daemon logs its restore, the registers read in the
guest are live and equal the ones from before the first sleep, the screendump equals the
picture pixel for pixel, and the daemon holds its delay lock again. The daemon's open files
and memory (RSS, private dirty from smaps_rollup) are sampled every 10 cycles: at the end it
is the same process with the same open files as at every sample, and its memory did not
grow over the second half of the run by more than one page (a leak of 100 bytes a cycle
shows; the page or two the heap takes once in the first cycles does not).

Why the system guest and not the vm suite's initramfs: the daemon needs a system bus and
logind (its sleep is PrepareForSleep, its lock an Inhibit() fd); the initramfs guest has
neither, and a soak of --save-now / --restore-now would say nothing of the long-running
process's file descriptors and memory, which is what a soak is for.

  soak.py --source-root DIR --build-root DIR --vgapeek BIN --workdir DIR [--cycles N]

Exit: 0 pass, 1 fail, 77 skip (no guest image here). UMSRESTORE_SOAK_CYCLES=N overrides
--cycles; UMSRESTORE_SYSTEM_NOOP=1 boots the no-op image, which must fail.
"""

import argparse
import json
import os
import re
import signal
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import systest as T  # noqa: E402

V = T.V
SAMPLE_EVERY = 10
PAGE_KB = 4
S_PER_CYCLE = 12       # the budget per cycle (measured: 4-6 s under TCG)


def footprint(c, pid):
    """The daemon's open files and memory, read in the guest."""
    _, out = c.run(f'ls /proc/{pid}/fd | wc -l; grep -E "^VmRSS:" /proc/{pid}/status; '
                   f'grep -E "^(Private_Dirty|Private_Clean):" /proc/{pid}/smaps_rollup', expect=0)
    # The first line holding only a number: the serial console may hand back a blank line first.
    m = re.search(r'^\s*(\d+)\s*$', out, re.M)
    c.require(m, f'no fd count for the daemon (pid {pid}):\n{out}')
    f = {'fds': int(m.group(1))}
    for key in ('VmRSS', 'Private_Dirty', 'Private_Clean'):
        m = re.search(rf'^{key}:\s+(\d+) kB', out, re.M)
        c.require(m, f'no {key} for the daemon (pid {pid}):\n{out}')
        f[key + '_kb'] = int(m.group(1))
    return f


def soak(c, cycles):
    c.prepare()
    c.deadline = V.Deadline(240 + cycles * S_PER_CYCLE)
    c.boot('std')
    pid = int(c.unit().get('MainPID', '0') or 0)
    c.require(pid > 0, f'umsrestored.service has no main process: {c.unit()}')
    c.require(c.wait_lock(30, pid), f'umsrestored (pid {pid}) holds no sleep delay lock: {c.inhibitors()}')
    before, p0 = c.picture()
    samples = {0: footprint(c, pid)}
    # Where the private memory is, for a person reading the log (mappings over 64 KiB dirty).
    c.run(f"awk '/^[0-9a-f]+-[0-9a-f]+ /{{m=$0}} /^Private_Dirty:/{{if ($2 > 64) print $2 \" kB: \" m}}' "
          f'/proc/{pid}/smaps')
    t0 = time.monotonic()
    for i in range(1, cycles + 1):
        cursor = c.sleep('systemctl suspend', before)
        c.after_logind_sleep(cursor)
        restored = c.wait_journal(cursor, T.DAEMON_MATCH, '^Restored display state|^Restoring display state failed', 20)
        c.require(restored and restored.startswith('Restored'), f'cycle {i}: the daemon logged no restore: {restored!r}')
        c.expect_restored(before, p0)
        c.require(not c.failures, f'cycle {i} of {cycles} failed')
        c.require(c.wait_lock(20, pid), f'cycle {i}: umsrestored (pid {pid}) holds no delay lock again: '
                                        f'{c.inhibitors()}')
        if i % SAMPLE_EVERY == 0 or i == cycles:
            samples[i] = footprint(c, pid)
            rate = i / (time.monotonic() - t0) * 3600
            V.log(f'SOAK: {i} of {cycles} cycles passed, {rate:.0f} cycles/hour; daemon {samples[i]}')
    elapsed = time.monotonic() - t0
    u = c.unit()
    end = samples[cycles]
    half = samples[max(k for k in samples if k <= cycles // 2)]
    c.times.update({'cycles': cycles, 'soak_s': round(elapsed, 1), 'cycles_per_hour': round(cycles / elapsed * 3600),
                    'footprint': {str(k): v for k, v in samples.items()}})
    c.check(int(u.get('MainPID', '0') or 0) == pid and u.get('ActiveState') == 'active',
            f'the daemon is not the same running process after {cycles} cycles: {u} (was pid {pid})')
    fds = sorted({f['fds'] for f in samples.values()})
    c.check(len(fds) == 1, f"the daemon's open files changed over the run: {[(k, f['fds']) for k, f in samples.items()]}")
    for key in ('VmRSS_kb', 'Private_Dirty_kb'):
        V.log(f'{key[:-3]}: ' + ', '.join(f'{k}: {f[key]} kB' for k, f in samples.items()))
        c.check(end[key] <= half[key] + PAGE_KB, f"the daemon's {key[:-3]} grew from {half[key]} kB to {end[key]} kB "
                                                 f'over the second half of the run')


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument('--source-root', required=True)
    ap.add_argument('--build-root', required=True)
    ap.add_argument('--vgapeek', required=True)
    ap.add_argument('--workdir', required=True)
    ap.add_argument('--cycles', type=int, default=100)
    args = ap.parse_args()
    cycles = int(os.environ.get('UMSRESTORE_SOAK_CYCLES') or args.cycles)
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(124))

    c = T.Case('soak', args)
    status, code = 'FAIL', 1
    try:
        soak(c, cycles)
        if c.failures:
            V.log(f'FAIL: {len(c.failures)} check(s) failed:\n' + '\n'.join('  - ' + f for f in c.failures))
        else:
            status, code = 'PASS', 0
    except T.Skip as e:
        status, code = 'SKIP', 77
        V.log(f'SKIP: {e}')
    except (T.Failure, V.VmError) as e:
        more = ('\n  earlier failed checks:\n' + '\n'.join('  - ' + f for f in c.failures)) if c.failures else ''
        V.log(f'FAIL: {e}{more}')
    finally:
        c.finish(code != 1)
        with open(os.path.join(c.dir, 'times.json'), 'w') as f:
            json.dump(c.times, f)
        V.log(f'{status}: soak ' + ' '.join(f'{k}={v}' for k, v in c.times.items() if not isinstance(v, dict))
              + (f' (logs and screendumps in {c.dir})' if code == 1 else ''))
    return code


if __name__ == '__main__':
    sys.exit(main())
