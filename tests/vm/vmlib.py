# SPDX-License-Identifier: MIT
"""The QEMU machinery of the vm suite and tools/demo (python standard library only).

* fetch_kernel(): Debian's linux-image-*-amd64 package, downloaded once into a cache
  outside the source tree ($UMSRESTORE_VM_CACHE, default /var/tmp/umsrestore-vm-cache)
  with `apt-get download` + `dpkg-deb -x` (never installed).
* build_initramfs(): a newc cpio with busybox-static, the guest init and helper, the
  binaries under test with the shared libraries ldd lists and the dynamic loader, and
  optionally kernel modules in dependency order.
* Machine: one QEMU (TCG, S3 enabled) with the guest's serial console on QEMU's stdio
  (commands in, output + "@@RC n@@" markers out) and QMP on a unix socket (screendump,
  system_wakeup, SUSPEND/WAKEUP events). Every wait is bounded; QEMU is killed on every
  error path and dies with us (PR_SET_PDEATHSIG) if we are killed.
* read_ppm()/compare()/write_png(): P6 screendumps, pixel compare, PNG output.
"""

import ctypes
import fcntl
import json
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import threading
import time
import zlib

CACHE_ENV = 'UMSRESTORE_VM_CACHE'
DEFAULT_CACHE = '/var/tmp/umsrestore-vm-cache'
QEMU = 'qemu-system-x86_64'
HERE = os.path.dirname(os.path.abspath(__file__))

_T0 = time.monotonic()
_log_file = None


_quiet = False


def set_log_file(path, quiet=False):
    """Also append every log line to path (the case's harness.log); with quiet, only there."""
    global _log_file, _quiet
    _log_file = open(path, 'a')
    _quiet = quiet


def log(msg):
    line = f'[{time.monotonic() - _T0:6.1f}s] {msg}'
    if not _quiet:
        print(line, flush=True)
    if _log_file:
        _log_file.write(line + '\n')
        _log_file.flush()


class VmError(Exception):
    pass


class Deadline:
    """A whole-case time budget: every wait takes min(its own bound, what is left)."""

    def __init__(self, seconds):
        self.end = time.monotonic() + seconds
        self.seconds = seconds

    def left(self):
        return self.end - time.monotonic()

    def bound(self, timeout):
        left = self.left()
        if left <= 0:
            raise VmError(f'the case ran out of its {self.seconds:.0f} s budget')
        return min(timeout, left)


# ---- the kernel cache -------------------------------------------------------------

class Kernel:
    def __init__(self, root, release, package):
        self.root = root
        self.release = release
        self.package = package
        self.vmlinuz = os.path.join(root, 'boot', f'vmlinuz-{release}')
        self.moddir = os.path.join(root, 'lib', 'modules', release)


def _run(cmd, timeout, **kw):
    return subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=timeout, stdin=subprocess.DEVNULL, **kw)


def resolve_kernel_package():
    """linux-image-amd64's dependency, e.g. 'linux-image-6.1.0-57-amd64', or None."""
    for attempt in range(2):
        try:
            p = _run(['apt-cache', 'depends', 'linux-image-amd64'], 60)
        except (OSError, subprocess.TimeoutExpired):
            return None
        m = re.search(r'Depends:\s*(linux-image-[0-9][^\s]*-amd64)\b', p.stdout)
        if m:
            return m.group(1)
        if attempt == 0 and os.geteuid() == 0:
            log('apt-cache does not know linux-image-amd64: running apt-get update')
            try:
                _run(['apt-get', 'update', '-q'], 300)
            except (OSError, subprocess.TimeoutExpired):
                return None
    return None


def cache_dir():
    return os.environ.get(CACHE_ENV) or DEFAULT_CACHE


def fetch_kernel(cache=None):
    """Returns a Kernel, fetching the package into the cache the first time. Several
    tests call this at once: the cache is locked while it is filled."""
    cache = cache or cache_dir()
    os.makedirs(cache, exist_ok=True)
    t0 = time.monotonic()
    with open(os.path.join(cache, 'lock'), 'w') as lockf:
        fcntl.flock(lockf, fcntl.LOCK_EX)
        pkg = resolve_kernel_package()
        if pkg is None:
            ready = sorted(d for d in os.listdir(cache)
                           if os.path.exists(os.path.join(cache, d, 'ready')))
            if not ready:
                raise VmError('cannot resolve linux-image-amd64 (apt-cache) and the kernel cache '
                              f"'{cache}' is empty: run 'apt-get update' or check the network")
            pkg = ready[-1]
            log(f'apt cannot resolve linux-image-amd64: using the cached {pkg}')
        release = pkg[len('linux-image-'):]
        dest = os.path.join(cache, pkg)
        if os.path.exists(os.path.join(dest, 'ready')):
            k = Kernel(dest, release, pkg)
            log(f'kernel {release} from the cache {cache} ({time.monotonic() - t0:.2f} s)')
            return k

        log(f'fetching {pkg} into {cache} (once)')
        tmp = dest + '.tmp'
        shutil.rmtree(tmp, ignore_errors=True)
        os.makedirs(tmp)
        os.chmod(tmp, 0o755)  # apt-get download drops privileges to _apt when it can
        t_dl = time.monotonic()
        p = _run(['apt-get', 'download', pkg], 600, cwd=tmp)
        debs = [f for f in os.listdir(tmp) if f.endswith('.deb')]
        if p.returncode != 0 or len(debs) != 1:
            raise VmError(f'apt-get download {pkg} failed (exit {p.returncode}):\n{p.stdout}')
        t_dl = time.monotonic() - t_dl
        t_x = time.monotonic()
        deb = os.path.join(tmp, debs[0])
        p = _run(['dpkg-deb', '-x', deb, tmp], 600)
        if p.returncode != 0:
            raise VmError(f'dpkg-deb -x {deb} failed:\n{p.stdout}')
        t_x = time.monotonic() - t_x
        os.unlink(deb)
        shutil.rmtree(dest, ignore_errors=True)
        os.rename(tmp, dest)
        k = Kernel(dest, release, pkg)
        if not os.path.exists(k.vmlinuz):
            raise VmError(f'{pkg} has no {k.vmlinuz}')
        with open(os.path.join(dest, 'ready'), 'w') as f:
            json.dump({'package': pkg, 'download_s': round(t_dl, 2), 'extract_s': round(t_x, 2)}, f)
        log(f'fetched {pkg}: download {t_dl:.1f} s, extract {t_x:.1f} s, '
            f'total {time.monotonic() - t0:.1f} s')
        return k


# ---- kernel modules ---------------------------------------------------------------

def _modinfo(path):
    """The .modinfo strings of an ELF64 little-endian kernel module."""
    with open(path, 'rb') as f:
        data = f.read()
    if data[:4] != b'\x7fELF' or data[4] != 2 or data[5] != 1:
        raise VmError(f'{path}: not an ELF64 little-endian module (compressed?)')
    shoff, = struct.unpack_from('<Q', data, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', data, 0x3A)

    def section(i):
        name, _type, _flags, _addr, off, size = struct.unpack_from('<IIQQQQ', data, shoff + i * shentsize)
        return name, off, size

    _, stroff, _ = section(shstrndx)
    for i in range(shnum):
        name, off, size = section(i)
        end = data.index(b'\0', stroff + name)
        if data[stroff + name:end] == b'.modinfo':
            return [s.decode('utf-8', 'replace') for s in data[off:off + size].split(b'\0') if s]
    return []


def module_load_order(moddir, names):
    """Paths of the named modules and everything they depend on, dependencies first
    (the order modules.dep implies), read from each module's own 'depends=' field."""
    index = {}
    for dirpath, _dirs, files in os.walk(os.path.join(moddir, 'kernel')):
        for f in files:
            if f.endswith('.ko'):
                index[f[:-3].replace('-', '_')] = os.path.join(dirpath, f)
    order, seen = [], set()

    def visit(name, chain):
        name = name.replace('-', '_')
        if name in seen:
            return
        if name in chain:
            raise VmError(f'module dependency loop through {name}')
        if name not in index:
            raise VmError(f'module {name} not found under {moddir}')
        deps = []
        for s in _modinfo(index[name]):
            if s.startswith('depends='):
                deps = [d for d in s[len('depends='):].split(',') if d]
        for d in deps:
            visit(d, chain | {name})
        seen.add(name)
        order.append(index[name])

    for n in names:
        visit(n, frozenset())
    return order


# ---- initramfs --------------------------------------------------------------------

class Cpio:
    """A newc ("070701") archive built in memory."""

    def __init__(self):
        self.out = bytearray()
        self.ino = 1
        self.paths = set()

    def _entry(self, path, mode, data=b''):
        path = path.lstrip('/')
        if path in self.paths:
            return
        self.paths.add(path)
        name = path.encode() + b'\0'
        fields = [self.ino, mode, 0, 0, 1 if not mode & 0o040000 else 2, 0, len(data), 0, 0, 0, 0, len(name), 0]
        self.ino += 1
        self.out += b'070701' + b''.join(b'%08X' % v for v in fields) + name
        self.out += b'\0' * (-len(self.out) % 4)
        self.out += data
        self.out += b'\0' * (-len(self.out) % 4)

    def dir(self, path):
        parts = path.strip('/').split('/')
        for i in range(1, len(parts) + 1):
            self._entry('/'.join(parts[:i]), 0o040755)

    def file(self, path, data, mode=0o755):
        parent = os.path.dirname(path.strip('/'))
        if parent:
            self.dir(parent)
        self._entry(path, 0o100000 | mode, data)

    def symlink(self, path, target):
        if os.path.dirname(path.strip('/')):
            self.dir(os.path.dirname(path.strip('/')))
        self._entry(path, 0o120777, target.encode())

    def bytes(self):
        trailer = Cpio()
        trailer.ino = 0
        trailer._entry('TRAILER!!!', 0)
        return bytes(self.out) + trailer.out


def _is_elf(path):
    with open(path, 'rb') as f:
        return f.read(4) == b'\x7fELF'


def shared_libraries(binary):
    """The files ldd lists for binary (libraries and the dynamic loader), as paths."""
    p = _run(['ldd', binary], 60)
    if p.returncode != 0:
        if 'not a dynamic executable' in p.stdout:
            return []
        raise VmError(f'ldd {binary} failed:\n{p.stdout}')
    libs = []
    for line in p.stdout.splitlines():
        line = line.strip()
        m = re.match(r'\S+ => (/\S+) \(0x[0-9a-f]+\)$', line) or re.match(r'(/\S+) \(0x[0-9a-f]+\)$', line)
        if m:
            libs.append(m.group(1))
        elif '=> not found' in line:
            raise VmError(f'ldd {binary}: {line}')
    return libs


def build_initramfs(path, binaries, modules=(), extra_files=None):
    """Writes an initramfs to path. binaries: {guest path: host path}; modules: host .ko
    paths in load order (stored as /modules/NN-name.ko); extra_files: {guest path: bytes}."""
    c = Cpio()
    for d in ('dev', 'proc', 'sys', 'run', 'tmp', 'root', 'etc', 'bin', 'sbin', 'usr/bin', 'usr/sbin', 'modules'):
        c.dir(d)
    with open('/bin/busybox', 'rb') as f:
        c.file('bin/busybox', f.read())
    if shared_libraries('/bin/busybox'):
        raise VmError('/bin/busybox is not busybox-static')
    p = _run(['/bin/busybox', '--list-full'], 30)
    for applet in p.stdout.split():
        if applet != 'bin/busybox':
            c.symlink(applet, '/bin/busybox')
    c.file('init', open(os.path.join(HERE, 'init.sh'), 'rb').read())
    c.file('bin/vmt', open(os.path.join(HERE, 'guest-tools.sh'), 'rb').read())
    libs = set()
    for guest, host in binaries.items():
        with open(host, 'rb') as f:
            c.file(guest, f.read())
        if _is_elf(host):
            libs.update(shared_libraries(host))
    for lib in sorted(libs):
        with open(lib, 'rb') as f:
            c.file(lib, f.read())
    names = []
    for i, m in enumerate(modules):
        name = f'{i:02d}-{os.path.basename(m)}'
        with open(m, 'rb') as f:
            c.file(f'modules/{name}', f.read(), 0o644)
        names.append(name)
    c.file('modules/order', ''.join(n + '\n' for n in names).encode(), 0o644)
    for guest, data in (extra_files or {}).items():
        c.file(guest, data)
    data = c.bytes()
    with open(path, 'wb') as f:
        f.write(data)
    return len(data)


# ---- QEMU -------------------------------------------------------------------------

def _die_with_parent():
    # Runs in the child between fork and exec: QEMU gets SIGKILL if we die.
    try:
        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    except Exception:
        pass
    os.setpgrp()


class Machine:
    """One QEMU guest. Use as a context manager: QEMU is killed on the way out."""

    RC_RE = re.compile(r'@@RC (\d+)@@')

    def __init__(self, workdir, kernel, initrd, vga='std', append='', memory=256, name='vm', firmware=None):
        self.workdir = workdir
        self.kernel = kernel
        self.initrd = initrd
        self.vga = vga
        self.append = append
        self.firmware = firmware  # None: SeaBIOS; a path: '-bios PATH' (OVMF)
        self.memory = memory
        self.name = name
        self.proc = None
        self.qmp_sock = None
        self.serial = ''
        self.serial_lock = threading.Condition()
        self.events = []
        self.responses = {}
        self.qmp_lock = threading.Condition()
        self.qmp_id = 0
        self.boot_s = None
        self.serial_log = os.path.join(workdir, f'{name}-serial.log')
        self.qemu_log = os.path.join(workdir, f'{name}-qemu.log')

    # -- lifetime --
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.kill()
        return False

    # Display devices that are not a '-vga' type of their own: the QEMU arguments for them.
    # 'ati': QEMU's Radeon 7000 (1002:5159) with SeaBIOS's ATI VGA BIOS (Debian's seabios).
    DEVICES = {
        'ati': ['-vga', 'none', '-device', 'ati-vga,model=rv100,romfile=/usr/share/seabios/vgabios-ati.bin'],
    }

    def command_line(self, qmp_path):
        cmdline = ('console=ttyS0,115200 panic=-1 consoleblank=0 vt.global_cursor_default=0 '
                   'loglevel=4 mitigations=off ' + self.append).strip()
        return [QEMU, '-machine', 'pc,accel=tcg', '-cpu', 'qemu64', '-smp', '1', '-m', str(self.memory),
                *self.DEVICES.get(self.vga, ['-vga', self.vga]), '-display', 'none', '-net', 'none', '-no-reboot',
                '-global', 'PIIX4_PM.disable_s3=0',
                *(['-bios', self.firmware] if self.firmware else []),
                '-kernel', self.kernel.vmlinuz, '-initrd', self.initrd, '-append', cmdline,
                '-chardev', 'stdio,id=ser0,signal=off', '-serial', 'chardev:ser0',
                '-monitor', 'none', '-qmp', f'unix:{qmp_path},server=on,wait=off']

    def start(self, deadline, boot_timeout=45):
        """Boots the guest up to its ready line; retries once when QMP gives no greeting."""
        for attempt in (1, 2):
            try:
                self._launch(deadline)
                break
            except VmError as e:
                self.kill()
                if attempt == 2 or 'QMP' not in str(e):
                    raise
                log(f'QEMU start failed ({e}); retrying once')
        t0 = time.monotonic()
        self.wait_serial(re.compile(r'@@READY@@[^\n]*\n'), deadline.bound(boot_timeout), 0, what='the guest init')
        self.boot_s = time.monotonic() - self.t_launch
        log(f'guest ready {self.boot_s:.1f} s after QEMU start')
        return self

    def _launch(self, deadline):
        qmp_path = os.path.join(self.workdir, f'{self.name}-qmp.sock')
        if os.path.exists(qmp_path):
            os.unlink(qmp_path)
        self.serial = ''
        self.events = []
        self.responses = {}
        cmd = self.command_line(qmp_path)
        self.qemu_err = open(self.qemu_log, 'ab')
        self.qemu_err.write(('$ ' + ' '.join(cmd) + '\n').encode())
        self.qemu_err.flush()
        self.serial_f = open(self.serial_log, 'a', errors='replace')
        self.t_launch = time.monotonic()
        self.proc = subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.qemu_err, preexec_fn=_die_with_parent)
        threading.Thread(target=self._serial_reader, args=(self.proc,), daemon=True).start()

        # QMP: the socket appears when QEMU is up; then the greeting must come.
        end = time.monotonic() + deadline.bound(15)
        s = None
        while time.monotonic() < end:
            if self.proc.poll() is not None:
                raise VmError(f'QEMU exited with {self.proc.returncode} at start (see {self.qemu_log})')
            try:
                s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
                s.connect(qmp_path)
                break
            except OSError:
                s.close()
                s = None
                time.sleep(0.05)
        if s is None:
            raise VmError('no QMP socket within 15 s')
        s.settimeout(max(0.1, min(10, end - time.monotonic() + 5)))
        buf = b''
        try:
            while b'\n' not in buf:
                chunk = s.recv(4096)
                if not chunk:
                    break
                buf += chunk
        except socket.timeout:
            pass
        if b'"QMP"' not in buf:
            s.close()
            raise VmError('no QMP greeting')
        s.settimeout(None)
        self.qmp_sock = s
        self.qmp_rest = buf.split(b'\n', 1)[1]
        threading.Thread(target=self._qmp_reader, args=(s,), daemon=True).start()
        self.qmp('qmp_capabilities', timeout=deadline.bound(10))

    def kill(self):
        p, self.proc = self.proc, None
        if p is None:
            return
        if p.poll() is None:
            try:
                if self.qmp_sock:
                    self.qmp_sock.sendall(b'{"execute":"quit"}\n')
                p.wait(timeout=3)
            except (OSError, subprocess.TimeoutExpired):
                pass
        if p.poll() is None:
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except OSError:
                p.kill()
            p.wait(timeout=10)
        if self.qmp_sock:
            self.qmp_sock.close()
            self.qmp_sock = None
        for f in (getattr(self, 'qemu_err', None), getattr(self, 'serial_f', None)):
            if f:
                f.close()

    # -- serial --
    def _serial_reader(self, proc):
        while True:
            try:
                chunk = os.read(proc.stdout.fileno(), 65536)
            except OSError:
                chunk = b''
            text = chunk.decode('utf-8', 'replace').replace('\r', '')
            with self.serial_lock:
                if chunk:
                    self.serial += text
                    try:
                        self.serial_f.write(text)
                        self.serial_f.flush()
                    except (ValueError, OSError):
                        pass
                else:
                    self.serial_eof = True
                self.serial_lock.notify_all()
            if not chunk:
                return

    def wait_serial(self, regex, timeout, start, what='output'):
        end = time.monotonic() + timeout
        with self.serial_lock:
            while True:
                m = regex.search(self.serial, start)
                if m:
                    return m
                if self.proc is None or self.proc.poll() is not None:
                    raise VmError(f'QEMU exited while waiting for {what} (exit '
                                  f'{self.proc.returncode if self.proc else "?"}; see {self.serial_log})')
                left = end - time.monotonic()
                if left <= 0:
                    raise VmError(f'no {what} within {timeout:.0f} s (see {self.serial_log})')
                self.serial_lock.wait(min(left, 0.5))

    def send(self, line):
        """Sends one command line to the guest; returns the serial position before it."""
        with self.serial_lock:
            pos = len(self.serial)
        self.proc.stdin.write(line.encode() + b'\n')
        self.proc.stdin.flush()
        return pos

    def wait_rc(self, pos, timeout, what):
        m = self.wait_serial(self.RC_RE, timeout, pos, what=f'end marker of {what!r}')
        with self.serial_lock:
            out = self.serial[pos:m.start()]
        return int(m.group(1)), out

    def run(self, line, deadline, timeout=30, check=None):
        """Runs a shell command line in the guest; returns (exit code, output)."""
        pos = self.send(line)
        rc, out = self.wait_rc(pos, deadline.bound(timeout), line)
        shown = out.rstrip('\n')
        log(f'guest$ {line}  -> exit {rc}' + (('\n' + '\n'.join('    ' + l for l in shown.split('\n'))) if shown else ''))
        if check is not None and rc != check:
            raise VmError(f'{line!r} exited {rc}, expected {check}')
        return rc, out

    # -- QMP --
    def _qmp_reader(self, s):
        buf = self.qmp_rest
        while True:
            while b'\n' in buf:
                line, buf = buf.split(b'\n', 1)
                if not line.strip():
                    continue
                try:
                    msg = json.loads(line)
                except ValueError:
                    continue
                with self.qmp_lock:
                    if 'event' in msg:
                        msg['_t'] = time.monotonic()
                        self.events.append(msg)
                    elif 'id' in msg:
                        self.responses[msg['id']] = msg
                    self.qmp_lock.notify_all()
            try:
                chunk = s.recv(65536)
            except OSError:
                chunk = b''
            if not chunk:
                with self.qmp_lock:
                    self.qmp_lock.notify_all()
                return
            buf += chunk

    def qmp(self, command, arguments=None, timeout=10):
        with self.qmp_lock:
            self.qmp_id += 1
            qid = self.qmp_id
        msg = {'execute': command, 'id': qid}
        if arguments:
            msg['arguments'] = arguments
        self.qmp_sock.sendall(json.dumps(msg).encode() + b'\n')
        end = time.monotonic() + timeout
        with self.qmp_lock:
            while qid not in self.responses:
                left = end - time.monotonic()
                if left <= 0:
                    raise VmError(f'no QMP answer to {command} within {timeout:.0f} s')
                if self.proc is None or self.proc.poll() is not None:
                    raise VmError(f'QEMU exited during QMP {command}')
                self.qmp_lock.wait(min(left, 0.5))
            r = self.responses.pop(qid)
        if 'error' in r:
            raise VmError(f'QMP {command}: {r["error"]}')
        return r.get('return')

    def event_count(self):
        with self.qmp_lock:
            return len(self.events)

    def wait_event(self, name, since, timeout):
        end = time.monotonic() + timeout
        with self.qmp_lock:
            while True:
                for e in self.events[since:]:
                    if e['event'] == name:
                        return e
                left = end - time.monotonic()
                if left <= 0:
                    raise VmError(f'no QMP {name} event within {timeout:.0f} s '
                                  f'(events so far: {[e["event"] for e in self.events]})')
                if self.proc is None or self.proc.poll() is not None:
                    raise VmError(f'QEMU exited while waiting for {name}')
                self.qmp_lock.wait(min(left, 0.5))

    def screendump(self, path, deadline):
        if os.path.exists(path):
            os.unlink(path)
        self.qmp('screendump', {'filename': path}, timeout=deadline.bound(15))
        img = read_ppm(path)
        log(f'screendump {os.path.basename(path)}: {img.width}x{img.height}, {img.colours()} colours')
        return img

    # -- S3 --
    def suspend(self, deadline, while_asleep=None):
        """Suspends the guest (echo mem > /sys/power/state), waits for SUSPEND, calls
        while_asleep(), wakes it with system_wakeup, waits for WAKEUP and the command's end
        marker, then ~1 s before anything else is sent (vm-notes). Returns timings."""
        n = self.event_count()
        t0 = time.monotonic()
        pos = self.send('vmt suspend')
        self.wait_event('SUSPEND', n, deadline.bound(30))
        t_susp = time.monotonic() - t0
        log(f'SUSPEND event {t_susp:.2f} s after the command')
        if while_asleep:
            while_asleep()
        n = self.event_count()
        t1 = time.monotonic()
        self.qmp('system_wakeup', timeout=deadline.bound(10))
        self.wait_event('WAKEUP', n, deadline.bound(15))
        rc, out = self.wait_rc(pos, deadline.bound(30), 'vmt suspend')
        t_wake = time.monotonic() - t1
        log(f'WAKEUP; the suspend command returned {rc} {t_wake:.2f} s after system_wakeup')
        if rc != 0:
            raise VmError(f'suspend failed in the guest (exit {rc}):\n{out}')
        time.sleep(1.0)
        return t_susp, t_wake


# ---- pictures ---------------------------------------------------------------------

class Image:
    def __init__(self, width, height, pixels):
        self.width = width
        self.height = height
        self.pixels = pixels  # bytes, RGB

    def colours(self):
        return len({self.pixels[i:i + 3] for i in range(0, len(self.pixels), 3)})


def read_ppm(path):
    with open(path, 'rb') as f:
        data = f.read()
    fields, pos = [], 0
    while len(fields) < 4:
        while pos < len(data) and data[pos:pos + 1].isspace():
            pos += 1
        if data[pos:pos + 1] == b'#':
            pos = data.index(b'\n', pos)
            continue
        start = pos
        while pos < len(data) and not data[pos:pos + 1].isspace():
            pos += 1
        fields.append(data[start:pos])
    if fields[0] != b'P6' or int(fields[3]) != 255:
        raise VmError(f'{path}: not an 8-bit P6 PPM')
    w, h = int(fields[1]), int(fields[2])
    pixels = data[pos + 1:pos + 1 + w * h * 3]
    if len(pixels) != w * h * 3:
        raise VmError(f'{path}: truncated PPM')
    return Image(w, h, pixels)


class Diff:
    def __init__(self, a, b):
        self.same_size = (a.width, a.height) == (b.width, b.height)
        self.total = a.width * a.height
        self.pixels = 0
        self.box = None
        if not self.same_size:
            self.pixels = max(self.total, b.width * b.height)
            return
        if a.pixels == b.pixels:
            return
        w = a.width
        x0 = y0 = 1 << 30
        x1 = y1 = -1
        pa, pb = a.pixels, b.pixels
        row = w * 3
        for y in range(a.height):
            ra, rb = pa[y * row:(y + 1) * row], pb[y * row:(y + 1) * row]
            if ra == rb:
                continue
            for x in range(w):
                if ra[x * 3:x * 3 + 3] != rb[x * 3:x * 3 + 3]:
                    self.pixels += 1
                    x0, x1, y0, y1 = min(x0, x), max(x1, x), min(y0, y), max(y1, y)
        self.box = (x0, y0, x1, y1)

    def __str__(self):
        if not self.same_size:
            return 'different sizes'
        if self.pixels == 0:
            return 'identical (0 pixels differ)'
        return (f'{self.pixels} of {self.total} pixels differ ({100.0 * self.pixels / self.total:.2f} %), '
                f'in x {self.box[0]}..{self.box[2]}, y {self.box[1]}..{self.box[3]}')


def compare(a, b):
    return Diff(a, b)


def write_png(path, img):
    raw = b''.join(b'\0' + img.pixels[y * img.width * 3:(y + 1) * img.width * 3] for y in range(img.height))

    def chunk(tag, body):
        return struct.pack('>I', len(body)) + tag + body + struct.pack('>I', zlib.crc32(tag + body) & 0xffffffff)

    with open(path, 'wb') as f:
        f.write(b'\x89PNG\r\n\x1a\n')
        f.write(chunk(b'IHDR', struct.pack('>IIBBBBB', img.width, img.height, 8, 2, 0, 0, 0)))
        f.write(chunk(b'IDAT', zlib.compress(raw, 9)))
        f.write(chunk(b'IEND', b''))


# A 5x7 pixel font for the side-by-side labels (capitals, digits and a few signs).
_FONT = {
    'A': '01110 10001 10001 11111 10001 10001 10001', 'B': '11110 10001 10001 11110 10001 10001 11110',
    'C': '01110 10001 10000 10000 10000 10001 01110', 'D': '11110 10001 10001 10001 10001 10001 11110',
    'E': '11111 10000 10000 11110 10000 10000 11111', 'F': '11111 10000 10000 11110 10000 10000 10000',
    'G': '01110 10001 10000 10111 10001 10001 01111', 'H': '10001 10001 10001 11111 10001 10001 10001',
    'I': '01110 00100 00100 00100 00100 00100 01110', 'J': '00111 00010 00010 00010 00010 10010 01100',
    'K': '10001 10010 10100 11000 10100 10010 10001', 'L': '10000 10000 10000 10000 10000 10000 11111',
    'M': '10001 11011 10101 10101 10001 10001 10001', 'N': '10001 11001 10101 10011 10001 10001 10001',
    'O': '01110 10001 10001 10001 10001 10001 01110', 'P': '11110 10001 10001 11110 10000 10000 10000',
    'Q': '01110 10001 10001 10001 10101 10010 01101', 'R': '11110 10001 10001 11110 10100 10010 10001',
    'S': '01111 10000 10000 01110 00001 00001 11110', 'T': '11111 00100 00100 00100 00100 00100 00100',
    'U': '10001 10001 10001 10001 10001 10001 01110', 'V': '10001 10001 10001 10001 10001 01010 00100',
    'W': '10001 10001 10001 10101 10101 10101 01010', 'X': '10001 10001 01010 00100 01010 10001 10001',
    'Y': '10001 10001 01010 00100 00100 00100 00100', 'Z': '11111 00001 00010 00100 01000 10000 11111',
    '0': '01110 10001 10011 10101 11001 10001 01110', '1': '00100 01100 00100 00100 00100 00100 01110',
    '2': '01110 10001 00001 00010 00100 01000 11111', '3': '11110 00001 00001 01110 00001 00001 11110',
    '4': '00010 00110 01010 10010 11111 00010 00010', '5': '11111 10000 11110 00001 00001 10001 01110',
    '6': '00110 01000 10000 11110 10001 10001 01110', '7': '11111 00001 00010 00100 01000 01000 01000',
    '8': '01110 10001 10001 01110 10001 10001 01110', '9': '01110 10001 10001 01111 00001 00010 01100',
    ',': '00000 00000 00000 00000 00110 00100 01000', '.': '00000 00000 00000 00000 00000 01100 01100',
    '-': '00000 00000 00000 11111 00000 00000 00000', ':': '00000 01100 01100 00000 01100 01100 00000',
    '%': '11001 11010 00010 00100 01000 01011 10011', '(': '00010 00100 01000 01000 01000 00100 00010',
    ')': '01000 00100 00010 00010 00010 00100 01000', '/': '00001 00010 00010 00100 01000 01000 10000',
    ' ': '00000 00000 00000 00000 00000 00000 00000',
}


def label(text, width, height=32, scale=2, fg=(255, 255, 255), bg=(40, 40, 40)):
    """An Image of width x height with text (upper-cased) centred in the 5x7 font."""
    text = text.upper()
    px = [[bg] * width for _ in range(height)]
    tw = len(text) * 6 * scale
    x0 = max(0, (width - tw) // 2)
    y0 = max(0, (height - 7 * scale) // 2)
    for n, ch in enumerate(text):
        rows = _FONT.get(ch, _FONT[' ']).split()
        for r, bits in enumerate(rows):
            for c, b in enumerate(bits):
                if b != '1':
                    continue
                for dy in range(scale):
                    for dx in range(scale):
                        x, y = x0 + (n * 6 + c) * scale + dx, y0 + r * scale + dy
                        if 0 <= x < width and 0 <= y < height:
                            px[y][x] = fg
    return Image(width, height, b''.join(bytes(p) for row in px for p in row))


def stack(top, bottom, bg=(40, 40, 40)):
    w = max(top.width, bottom.width)

    def rows(img):
        pad = bytes(bg) * (w - img.width)
        return [img.pixels[y * img.width * 3:(y + 1) * img.width * 3] + pad for y in range(img.height)]

    return Image(w, top.height + bottom.height, b''.join(rows(top) + rows(bottom)))


def side_by_side(images, labels=None, gap=12, background=(40, 40, 40)):
    """The images left to right on a grey background, each with its label above it."""
    if labels:
        images = [stack(label(t, i.width, bg=background), i, background) for i, t in zip(images, labels)]
    h = max(i.height for i in images) + 2 * gap
    w = sum(i.width for i in images) + gap * (len(images) + 1)
    bg = bytes(background)
    rows = [bg * w] * gap
    for y in range(h - 2 * gap):
        parts = [bg * gap]
        for img in images:
            if y < img.height:
                parts.append(img.pixels[y * img.width * 3:(y + 1) * img.width * 3])
            else:
                parts.append(bg * img.width)
            parts.append(bg * gap)
        rows.append(b''.join(parts))
    rows += [bg * w] * gap
    return Image(w, h, b''.join(rows))


# ---- the guest's VGA registers ----------------------------------------------------

class VgaPeek:
    """One vgapeek line, parsed."""

    def __init__(self, line):
        self.line = line.strip()
        self.f = dict(kv.split('=', 1) for kv in self.line.split()[1:] if '=' in kv)
        self.sr = [int(v, 16) for v in self.f['sr'].split(',')]
        self.cr = [int(v, 16) for v in self.f['cr'].split(',')]
        self.gr = [int(v, 16) for v in self.f['gr'].split(',')]
        self.ar_index = int(self.f['ar_index'], 16)
        self.msr = int(self.f['msr'], 16)
        self.dispi_enable = int(self.f['dispi_enable'], 16)
        self.mem = self.f.get('mem')

    def problems(self, want_dispi=False, sr01=True):
        """Why the display is not live (empty when it is): the attribute controller's
        palette address source (index bit 5) must be set, the sequencer must not blank the
        screen (SR01 bit 5; not with sr01=False: SeaBIOS's Cirrus BIOS sets it in the chip's
        extended modes, which QEMU's Cirrus shows all the same), the CRTC must have a
        horizontal display end."""
        p = []
        if not self.ar_index & 0x20:
            p.append(f'attribute index {self.ar_index:#04x}: PAS (bit 5) clear, display off')
        if sr01 and self.sr[1] & 0x20:
            p.append(f'SR01 {self.sr[1]:#04x}: screen off (bit 5)')
        if self.cr[1] == 0:
            p.append('CR01 (horizontal display end) is 0')
        if want_dispi and not self.dispi_enable & 1:
            p.append(f'Bochs dispi enable {self.dispi_enable:#06x}: no linear mode')
        return p

    def with_screen_on(self):
        """These registers as the dpms method leaves them: the sequencer running (SR00 bits
        0-1), the screen not blanked (SR01 bit 5) and the CRTC syncs enabled (CR17 bit 7).
        OVMF's GOP driver leaves SR00 and CR17 clear in its dispi mode, SeaBIOS's Cirrus BIOS
        sets SR01 bit 5 in the chip's extended modes, where none of them matters."""
        f = dict(self.f)
        sr, cr = list(self.sr), list(self.cr)
        sr[0] |= 0x03
        sr[1] &= ~0x20
        cr[0x17] |= 0x80
        f['sr'] = ','.join(f'{v:02x}' for v in sr)
        f['cr'] = ','.join(f'{v:02x}' for v in cr)
        return VgaPeek('vgapeek ' + ' '.join(f'{k}={v}' for k, v in f.items()))

    def registers(self):
        """The register part (no memory hash), for before/after comparisons."""
        return ' '.join(f'{k}={v}' for k, v in self.f.items() if k != 'mem')


def peek(machine, deadline, mem=False):
    rc, out = machine.run('vgapeek --mem' if mem else 'vgapeek', deadline, timeout=15)
    lines = [l for l in out.splitlines() if l.startswith('vgapeek ')]
    if rc != 0 or not lines:
        raise VmError(f'vgapeek failed (exit {rc}):\n{out}')
    return VgaPeek(lines[-1])
