# SPDX-License-Identifier: MIT
"""The guest image of the system suite: a Debian 12 system (debootstrap minbase + systemd,
dbus, udev, kmod, the kernel package, pm-utils) with umsrestore installed from its .deb,
built once into a cache outside the source tree and rebuilt in layers:

  base-KEY/      debootstrap rootfs + a tiny initramfs (virtio-blk, ext4) from its own
                 kernel package; KEY = suite, mirror, package list, this file's recipe.
                 Needs the Debian archive; about 2-3 min and ~600 MB.
  deb/TREE/      umsrestore_*.deb from tools/build-deb (the committed tree; TREE = the
                 git tree id of HEAD); about 40 s.
  image-KEY.ext4 a copy of the base + `dpkg -i` of the .deb in a chroot + the test layer
                 (serial command shell, vgapeek, picture tool), made with `mke2fs -d`
                 (no loop mount); KEY = base key + sha256 of the .deb + test layer +
                 variant. About 15 s: only this layer is redone when the .deb changes.

Variants: 'real' (the package as installed) and 'noop' (the same, with umsrestored
replaced by a no-op stand-in and its unit made Type=simple: every case must fail).

Environment:
  UMSRESTORE_SYSTEM_CACHE=DIR     cache (default /var/tmp/umsrestore-system-cache)
  UMSRESTORE_SYSTEM_MIRROR=URL    Debian mirror (default http://deb.debian.org/debian)
  UMSRESTORE_SYSTEM_INSTALL=destdir  install with `meson install --destdir` from the build
                                  dir under test instead of the .deb (the default is the
                                  .deb; destdir is also used when dpkg-buildpackage is
                                  missing)
"""

import fcntl
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), 'vm'))
import vmlib as V  # noqa: E402

CACHE_ENV = 'UMSRESTORE_SYSTEM_CACHE'
DEFAULT_CACHE = '/var/tmp/umsrestore-system-cache'
SUITE = 'bookworm'
DEFAULT_MIRROR = 'http://deb.debian.org/debian'
IMAGE_SIZE = '1400M'

# What goes into the guest. Runtime libraries of umsrestored are listed so that the .deb
# installs with plain `dpkg -i` (no archive needed when only the .deb changes).
BASE_PACKAGES = [
    'systemd', 'systemd-sysv', 'dbus', 'udev', 'kmod',
    'linux-image-amd64',
    'pm-utils', 'vbetool', 'kbd', 'procps',
    'libpciaccess0', 'libdrm2', 'libinih1', 'libx86emu3',
]
# Removed from the base after debootstrap: downloaded packages, apt lists, docs.
BASE_PRUNE = ['var/cache/apt/archives/*.deb', 'var/lib/apt/lists/*', 'usr/share/doc/*',
              'usr/share/man/*', 'usr/share/info/*']
# Modules of the tiny initramfs: the root disk is virtio-blk with ext4.
INITRAMFS_MODULES = ['virtio_pci', 'virtio_blk', 'crc32c_generic', 'ext4']
INITRAMFS_INIT = '''#!/bin/sh
# /init of the system suite's initramfs: load the disk modules, mount /dev/vda, switch.
export PATH=/bin
mount -t proc proc /proc
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev
while read -r m; do
        [ -n "$m" ] && { insmod "/modules/$m" || echo "initramfs: insmod $m failed"; }
done </modules/order
i=0
while [ ! -b /dev/vda ] && [ $i -lt 200 ]; do sleep 0.1; i=$((i + 1)); done
if ! mount -t ext4 -o rw /dev/vda /newroot; then
        echo "initramfs: cannot mount /dev/vda as ext4"
        exec sh
fi
umount /proc /sys
mount --move /dev /newroot/dev || umount /dev
exec switch_root /newroot /sbin/init
'''
BASE_FORMAT = 2   # bump when the base recipe changes in a way the key does not see
LAYER_FORMAT = 3  # bump when the layer recipe changes in a way the key does not see

# Units masked in the test machine: periodic jobs and slow boot-time jobs that have
# nothing to do with sleep and only make the TCG boot slower or noisier.
MASK_UNITS = ['serial-getty@ttyS0.service', 'e2scrub_reap.service', 'systemd-pstore.service',
              'apt-daily.timer', 'apt-daily-upgrade.timer', 'dpkg-db-backup.timer',
              'e2scrub_all.timer', 'fstrim.timer']

GUEST_DIR = os.path.join(HERE, 'guest')
# What the .deb is made of (for the note when the work tree differs from HEAD there).
PACKAGED_PATHS = ['daemon', 'units', 'hooks', 'conf', 'man', 'debian', 'meson.build', 'meson_options.txt']


class SetupError(Exception):
    """The image cannot be built here (no archive, no root, no debootstrap): a skip."""


def cache_dir():
    return os.environ.get(CACHE_ENV) or DEFAULT_CACHE


def mirror():
    return os.environ.get('UMSRESTORE_SYSTEM_MIRROR') or DEFAULT_MIRROR


def _sha256_file(path):
    h = hashlib.sha256()
    with open(path, 'rb') as f:
        for chunk in iter(lambda: f.read(1 << 20), b''):
            h.update(chunk)
    return h.hexdigest()


def _key(obj):
    return hashlib.sha256(json.dumps(obj, sort_keys=True).encode()).hexdigest()[:16]


def _run(cmd, timeout, what, **kw):
    try:
        p = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                           timeout=timeout, stdin=subprocess.DEVNULL, **kw)
    except subprocess.TimeoutExpired as e:
        raise V.VmError(f'{what} did not finish within {timeout} s:\n{(e.stdout or "")[-3000:]}')
    if p.returncode != 0:
        raise V.VmError(f'{what} failed (exit {p.returncode}):\n{p.stdout[-4000:]}')
    return p.stdout


def remove_tree(path):
    """rm -rf that first unmounts whatever an interrupted debootstrap left mounted below
    path (proc, sys in the target), so that nothing outside the tree is touched."""
    real = os.path.realpath(path)
    try:
        with open('/proc/self/mounts') as f:
            mounts = [l.split()[1].replace('\\040', ' ') for l in f]
    except OSError:
        mounts = []
    for m in sorted((m for m in mounts if m.startswith(real + '/')), key=len, reverse=True):
        subprocess.run(['umount', '-l', m], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=60)
    shutil.rmtree(path, ignore_errors=True)


class Cache:
    """The cache directory, locked while anything in it is built (several test
    processes start at once; the first builds, the others wait)."""

    def __init__(self, path=None):
        self.path = path or cache_dir()
        os.makedirs(self.path, exist_ok=True)
        self.lockf = None

    def __enter__(self):
        self.lockf = open(os.path.join(self.path, 'lock'), 'w')
        t0 = time.monotonic()
        fcntl.flock(self.lockf, fcntl.LOCK_EX)
        waited = time.monotonic() - t0
        if waited > 1:
            V.log(f'waited {waited:.0f} s for the image cache lock')
        return self

    def __exit__(self, *exc):
        self.lockf.close()
        return False


# ---- the base rootfs --------------------------------------------------------------

def base_key():
    recipe = {'format': BASE_FORMAT, 'suite': SUITE, 'mirror': mirror(), 'packages': BASE_PACKAGES,
              'prune': BASE_PRUNE, 'initramfs_modules': INITRAMFS_MODULES, 'init': INITRAMFS_INIT,
              'variant': 'minbase'}
    return _key(recipe)


def _check_archive():
    url = f'{mirror()}/dists/{SUITE}/Release'
    try:
        with urllib.request.urlopen(url, timeout=20) as r:
            r.read(256)
    except (urllib.error.URLError, OSError) as e:
        raise SetupError(f'the Debian archive is not reachable ({url}: {e}); the guest image cannot be '
                         'built (set UMSRESTORE_SYSTEM_MIRROR to a reachable mirror)')


def build_initramfs(rootfs, path):
    """A tiny initramfs from the guest's own kernel package: busybox-static + the disk
    modules in dependency order + INITRAMFS_INIT."""
    releases = sorted(os.listdir(os.path.join(rootfs, 'lib', 'modules')))
    if len(releases) != 1:
        raise V.VmError(f'expected one kernel in the guest, found {releases}')
    moddir = os.path.join(rootfs, 'lib', 'modules', releases[0])
    mods = V.module_load_order(moddir, INITRAMFS_MODULES)
    if V.shared_libraries('/bin/busybox'):
        raise V.VmError('/bin/busybox is not busybox-static')
    c = V.Cpio()
    for d in ('dev', 'proc', 'sys', 'newroot', 'bin', 'modules'):
        c.dir(d)
    with open('/bin/busybox', 'rb') as f:
        c.file('bin/busybox', f.read())
    for applet in ('sh', 'mount', 'umount', 'insmod', 'switch_root', 'sleep', 'echo'):
        c.symlink('bin/' + applet, '/bin/busybox')
    names = []
    for i, m in enumerate(mods):
        name = f'{i:02d}-{os.path.basename(m)}'
        with open(m, 'rb') as f:
            c.file('modules/' + name, f.read(), 0o644)
        names.append(name)
    c.file('modules/order', ''.join(n + '\n' for n in names).encode(), 0o644)
    c.file('init', INITRAMFS_INIT.encode())
    data = c.bytes()
    with open(path, 'wb') as f:
        f.write(data)
    return releases[0], len(data)


def ensure_base(cache):
    """Returns (base dir, info). Builds it (debootstrap) when the cache lacks it."""
    key = base_key()
    dest = os.path.join(cache.path, f'base-{key}')
    ready = os.path.join(dest, 'ready.json')
    if os.path.exists(ready):
        with open(ready) as f:
            info = json.load(f)
        V.log(f"base rootfs {key} from the cache ({info['release']}, built in {info['build_s']} s)")
        return dest, info
    if os.geteuid() != 0:
        raise SetupError('building the guest image needs root (debootstrap, chroot)')
    if not shutil.which('debootstrap'):
        raise SetupError("debootstrap is not installed (it is in tools/packages.txt; tools/check installs it)")
    _check_archive()
    V.log(f'building the base rootfs {key} with debootstrap (once; about 2-3 min)')
    t0 = time.monotonic()
    tmp = dest + '.tmp'
    remove_tree(tmp)
    os.makedirs(tmp)
    rootfs = os.path.join(tmp, 'rootfs')
    log_path = os.path.join(cache.path, f'debootstrap-{key}.log')
    cmd = ['debootstrap', '--variant=minbase', '--include=' + ','.join(BASE_PACKAGES), SUITE, rootfs, mirror()]
    with open(log_path, 'w') as logf:
        try:
            p = subprocess.run(cmd, stdout=logf, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                               timeout=1200)
        except subprocess.TimeoutExpired:
            raise V.VmError(f'debootstrap did not finish within 20 min (log: {log_path})')
    if p.returncode != 0:
        with open(log_path) as f:
            tail = f.read()[-3000:]
        # Network trouble in the middle of the download is a setup problem too.
        if 'Failed getting release file' in tail or "Couldn't download" in tail or 'Could not resolve' in tail:
            raise SetupError(f'debootstrap could not download from {mirror()} (log: {log_path}):\n{tail}')
        raise V.VmError(f'debootstrap failed (exit {p.returncode}; log: {log_path}):\n{tail}')
    t_debootstrap = time.monotonic() - t0
    for pattern in BASE_PRUNE:
        _run(['sh', '-c', f'rm -rf {rootfs}/{pattern}'], 120, f'pruning {pattern}')
    release, size = build_initramfs(rootfs, os.path.join(tmp, 'initrd.cpio'))
    du = _run(['du', '-sm', rootfs], 120, 'du').split()[0]
    info = {'key': key, 'release': release, 'packages': BASE_PACKAGES, 'mirror': mirror(),
            'debootstrap_s': round(t_debootstrap, 1), 'build_s': round(time.monotonic() - t0, 1),
            'rootfs_mb': int(du), 'initramfs_bytes': size}
    with open(os.path.join(tmp, 'ready.json'), 'w') as f:
        json.dump(info, f)
    shutil.rmtree(dest, ignore_errors=True)
    os.rename(tmp, dest)
    # Older bases are of no use any more.
    for d in os.listdir(cache.path):
        if d.startswith('base-') and d != f'base-{key}':
            remove_tree(os.path.join(cache.path, d))
    V.log(f"base rootfs built: debootstrap {info['debootstrap_s']} s, total {info['build_s']} s, "
          f"{du} MB, kernel {release}")
    return dest, info


# ---- the umsrestore package ---------------------------------------------------------

class Payload:
    """What gets installed: a .deb, or a `meson install --destdir` tree."""

    def __init__(self, kind, path, digest, note=''):
        self.kind = kind      # 'deb' | 'destdir'
        self.path = path
        self.digest = digest
        self.note = note


def _git(source_root, *args):
    return subprocess.run(['git', '-C', source_root] + list(args), stdout=subprocess.PIPE,
                          stderr=subprocess.DEVNULL, text=True, timeout=60)


def ensure_deb(cache, source_root):
    """The .deb of the committed tree (tools/build-deb), cached by the tree id."""
    p = _git(source_root, 'rev-parse', 'HEAD^{tree}')
    if p.returncode != 0:
        return None, 'not a git checkout'
    tree = p.stdout.strip()
    dest = os.path.join(cache.path, 'deb', tree)
    debs = sorted(f for f in os.listdir(dest) if f.startswith('umsrestore_') and f.endswith('.deb')) \
        if os.path.isdir(dest) else []
    note = ''
    dirty = _git(source_root, 'status', '--porcelain', '--', *PACKAGED_PATHS).stdout.split('\n')
    dirty = [l[3:] for l in dirty if l.strip()]
    if dirty:
        note = (f'the .deb is built from the committed tree (HEAD); uncommitted changes to '
                f'{", ".join(dirty[:6])}{" …" if len(dirty) > 6 else ""} are NOT in it '
                '(UMSRESTORE_SYSTEM_INSTALL=destdir tests the work tree)')
    if debs:
        deb = os.path.join(dest, debs[-1])
        V.log(f'umsrestore package for tree {tree[:12]} from the cache: {os.path.basename(deb)}')
        return Payload('deb', deb, _sha256_file(deb), note), None
    V.log(f'building the umsrestore package of tree {tree[:12]} with tools/build-deb (about 40 s)')
    t0 = time.monotonic()
    tmp = dest + '.tmp'
    shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(tmp)
    env = dict(os.environ, DEB_BUILD_OPTIONS='nocheck')  # the unit suite runs on its own
    try:
        p = subprocess.run([os.path.join(source_root, 'tools', 'build-deb'), tmp], stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=900, env=env, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise V.VmError('tools/build-deb did not finish within 15 min')
    debs = sorted(f for f in os.listdir(tmp) if f.startswith('umsrestore_') and f.endswith('.deb'))
    if not debs:
        raise V.VmError(f'tools/build-deb built no package (exit {p.returncode}):\n{p.stdout[-4000:]}')
    if p.returncode != 0:
        # The package exists; lintian's verdict is the package suite's business.
        V.log(f'tools/build-deb exited {p.returncode} after building the package (lintian?); using it:\n'
              + p.stdout[-1500:])
    for f in os.listdir(tmp):
        if f != debs[-1]:
            os.unlink(os.path.join(tmp, f))
    shutil.rmtree(dest, ignore_errors=True)
    os.makedirs(os.path.dirname(dest), exist_ok=True)
    os.rename(tmp, dest)
    deb = os.path.join(dest, debs[-1])
    V.log(f'built {os.path.basename(deb)} in {time.monotonic() - t0:.1f} s')
    # Keep the newest few packages only.
    debdir = os.path.join(cache.path, 'deb')
    olds = sorted((os.path.getmtime(os.path.join(debdir, d)), d) for d in os.listdir(debdir))
    for _, d in olds[:-4]:
        shutil.rmtree(os.path.join(debdir, d), ignore_errors=True)
    return Payload('deb', deb, _sha256_file(deb), note), None


def make_destdir(build_root, workdir):
    """`meson install --destdir` of the build under test into workdir/destdir."""
    dest = os.path.join(workdir, 'destdir')
    shutil.rmtree(dest, ignore_errors=True)
    _run(['meson', 'install', '-C', build_root, '--destdir', dest, '--no-rebuild', '--quiet'], 300,
         'meson install --destdir')
    h = hashlib.sha256()
    for dirpath, dirs, files in sorted(os.walk(dest)):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(dirpath, f)
            h.update(os.path.relpath(p, dest).encode() + b'\0')
            if os.path.islink(p):
                h.update(os.readlink(p).encode())
            else:
                h.update(_sha256_file(p).encode() + oct(os.stat(p).st_mode).encode())
    return Payload('destdir', dest, h.hexdigest(), 'installed with meson install --destdir from the work tree')


def ensure_payload(cache, source_root, build_root, workdir):
    want = os.environ.get('UMSRESTORE_SYSTEM_INSTALL', 'deb')
    if want not in ('deb', 'destdir'):
        raise V.VmError(f"UMSRESTORE_SYSTEM_INSTALL={want!r}: expected 'deb' or 'destdir'")
    if want == 'deb':
        if not shutil.which('dpkg-buildpackage'):
            V.log('dpkg-buildpackage is missing: installing with meson install --destdir instead of the .deb')
        else:
            payload, why = ensure_deb(cache, source_root)
            if payload:
                return payload
            V.log(f'cannot build the .deb ({why}): installing with meson install --destdir instead')
    return make_destdir(build_root, workdir)


# ---- the final image ----------------------------------------------------------------

def _layer_files(vgapeek):
    """Host files copied into the test layer, {guest path: (host path, mode)}."""
    files = {
        'usr/local/lib/umsrestore-test/shell': (os.path.join(GUEST_DIR, 'test-shell.sh'), 0o755),
        'usr/local/bin/systest': (os.path.join(GUEST_DIR, 'systest-guest.sh'), 0o755),
        'usr/local/bin/vmt': (os.path.join(os.path.dirname(HERE), 'vm', 'guest-tools.sh'), 0o755),
        'usr/local/bin/vgapeek': (vgapeek, 0o755),
        'etc/systemd/system/umsrestore-test-shell.service':
            (os.path.join(GUEST_DIR, 'umsrestore-test-shell.service'), 0o644),
        'etc/systemd/system/umsrestore-test-logind-delay.service':
            (os.path.join(GUEST_DIR, 'umsrestore-test-logind-delay.service'), 0o644),
    }
    return files


def image_key(base_info, payload, variant, vgapeek):
    layer = {g: _sha256_file(h) for g, (h, _m) in _layer_files(vgapeek).items()}
    return _key({'format': LAYER_FORMAT, 'base': base_info['key'], 'payload': [payload.kind, payload.digest],
                 'variant': variant, 'layer': layer, 'mask': MASK_UNITS, 'size': IMAGE_SIZE,
                 'noop': _sha256_file(os.path.join(HERE, 'noop-umsrestored.sh'))})


def _chroot(rootfs, cmd, timeout, what):
    env = {'PATH': '/usr/sbin:/usr/bin:/sbin:/bin', 'LANG': 'C.UTF-8', 'DEBIAN_FRONTEND': 'noninteractive',
           'HOME': '/root'}
    return _run(['chroot', rootfs] + cmd, timeout, what, env=env)


def _install(rootfs, payload):
    """Installs umsrestore into rootfs; returns {guest path: sha256} of what it installed."""
    if payload.kind == 'deb':
        shutil.copy(payload.path, os.path.join(rootfs, 'tmp', 'umsrestore.deb'))
        out = _chroot(rootfs, ['dpkg', '-i', '/tmp/umsrestore.deb'], 300, 'dpkg -i umsrestore.deb (chroot)')
        os.unlink(os.path.join(rootfs, 'tmp', 'umsrestore.deb'))
        files = _chroot(rootfs, ['dpkg', '-L', 'umsrestore'], 60, 'dpkg -L umsrestore').split('\n')
        installed = [f for f in files if f.startswith('/') and os.path.isfile(os.path.join(rootfs, f[1:]))]
        V.log('dpkg -i in the chroot: ' + ' / '.join(l for l in out.splitlines() if l.strip())[-300:])
    else:
        installed = []
        for dirpath, _dirs, files in os.walk(payload.path):
            for f in files:
                rel = os.path.relpath(os.path.join(dirpath, f), payload.path)
                installed.append('/' + rel)
        # tar, not cp: /lib, /bin, /sbin are symlinks into /usr in the guest (merged /usr).
        _run(['sh', '-c', 'tar -C "$1" -cf - . | tar -C "$2" -xf - --keep-directory-symlink --no-same-owner',
              'sh', payload.path, rootfs], 120, 'copying the destdir tree')
        _chroot(rootfs, ['systemctl', 'enable', 'umsrestored.service'], 60,
                'systemctl enable umsrestored.service (chroot)')
    return {f: _sha256_file(os.path.join(rootfs, f[1:])) for f in installed}


def _find_installed(manifest, suffix):
    for f in manifest:
        if f.endswith(suffix):
            return f
    return None


def _test_layer(rootfs, variant, vgapeek, manifest):
    for guest, (host, mode) in _layer_files(vgapeek).items():
        dst = os.path.join(rootfs, guest)
        os.makedirs(os.path.dirname(dst), exist_ok=True)
        shutil.copyfile(host, dst)
        os.chmod(dst, mode)
    wants = os.path.join(rootfs, 'etc/systemd/system/multi-user.target.wants')
    os.makedirs(wants, exist_ok=True)
    os.symlink('/etc/systemd/system/umsrestore-test-shell.service',
               os.path.join(wants, 'umsrestore-test-shell.service'))
    sysinit = os.path.join(rootfs, 'etc/systemd/system/sysinit.target.wants')
    os.makedirs(sysinit, exist_ok=True)
    os.symlink('/etc/systemd/system/umsrestore-test-logind-delay.service',
               os.path.join(sysinit, 'umsrestore-test-logind-delay.service'))
    for unit in MASK_UNITS:
        link = os.path.join(rootfs, 'etc/systemd/system', unit)
        for d in ('timers.target.wants', 'multi-user.target.wants', 'sysinit.target.wants'):
            try:
                os.unlink(os.path.join(rootfs, 'etc/systemd/system', d, unit))
            except FileNotFoundError:
                pass
        if os.path.lexists(link):
            os.unlink(link)
        os.symlink('/dev/null', link)
    with open(os.path.join(rootfs, 'etc/hostname'), 'w') as f:
        f.write('umsrestore-system-test\n')
    if variant == 'noop':
        binary = _find_installed(manifest, '/sbin/umsrestored')
        if not binary:
            raise V.VmError('the package installed no sbin/umsrestored')
        shutil.copyfile(os.path.join(HERE, 'noop-umsrestored.sh'), os.path.join(rootfs, binary[1:]))
        os.chmod(os.path.join(rootfs, binary[1:]), 0o755)
        dropin = os.path.join(rootfs, 'etc/systemd/system/umsrestored.service.d')
        os.makedirs(dropin, exist_ok=True)
        with open(os.path.join(dropin, 'noop.conf'), 'w') as f:
            f.write('# SPDX-License-Identifier: MIT\n# system suite, no-op variant: the stand-in does not '
                    'speak sd_notify.\n[Service]\nType=simple\n')


def ensure_image(cache, base_dir, base_info, payload, variant, vgapeek):
    """Returns (image path, metadata); builds the layer when the cache lacks it."""
    key = image_key(base_info, payload, variant, vgapeek)
    img = os.path.join(cache.path, f'image-{key}-{variant}.ext4')
    meta_path = img + '.json'
    if os.path.exists(img) and os.path.exists(meta_path):
        with open(meta_path) as f:
            meta = json.load(f)
        V.log(f'guest image {os.path.basename(img)} from the cache (layer built in {meta["layer_s"]} s)')
        os.utime(img)
        return img, meta
    if os.geteuid() != 0:
        raise SetupError('building the guest image needs root (chroot, dpkg)')
    V.log(f'building the guest image layer {key} ({variant}, umsrestore from the {payload.kind})')
    t0 = time.monotonic()
    work = tempfile.mkdtemp(prefix='layer-', dir=cache.path)
    try:
        rootfs = os.path.join(work, 'rootfs')
        _run(['cp', '-a', os.path.join(base_dir, 'rootfs'), rootfs], 300, 'copying the base rootfs')
        t_copy = time.monotonic() - t0
        manifest = _install(rootfs, payload)
        _test_layer(rootfs, variant, vgapeek, manifest)
        tmp_img = img + '.tmp'
        t1 = time.monotonic()
        _run(['mke2fs', '-q', '-t', 'ext4', '-L', 'umsrestore-sys', '-d', rootfs, tmp_img, IMAGE_SIZE], 600,
             'mke2fs -d')
        t_mkfs = time.monotonic() - t1
        meta = {'key': key, 'variant': variant, 'base': base_info, 'payload': payload.kind,
                'payload_path': payload.path, 'payload_sha256': payload.digest, 'manifest': manifest,
                'layer_s': round(time.monotonic() - t0, 1), 'copy_s': round(t_copy, 1),
                'mke2fs_s': round(t_mkfs, 1)}
        os.rename(tmp_img, img)
        with open(meta_path, 'w') as f:
            json.dump(meta, f, indent=1)
    finally:
        remove_tree(work)
    V.log(f"guest image built in {meta['layer_s']} s (copy {meta['copy_s']} s, mke2fs {meta['mke2fs_s']} s)")
    # Keep the four newest images (one per variant and the previous ones).
    imgs = sorted((os.path.getmtime(os.path.join(cache.path, f)), f) for f in os.listdir(cache.path)
                  if f.startswith('image-') and f.endswith('.ext4'))
    for _, f in imgs[:-4]:
        for p in (f, f + '.json'):
            try:
                os.unlink(os.path.join(cache.path, p))
            except FileNotFoundError:
                pass
    return img, meta


def prepare(source_root, build_root, workdir, variant, vgapeek):
    """Everything a case needs before it boots: returns a dict with the kernel, the
    initramfs, the image and its metadata, and the times spent on each layer."""
    t0 = time.monotonic()
    with Cache() as cache:
        t_lock = time.monotonic() - t0
        base_dir, base_info = ensure_base(cache)
        t_base = time.monotonic() - t0 - t_lock
        payload = ensure_payload(cache, source_root, build_root, workdir)
        if payload.note:
            V.log('NOTE: ' + payload.note)
        img, meta = ensure_image(cache, base_dir, base_info, payload, variant, vgapeek)
    release = base_info['release']
    return {
        'vmlinuz': os.path.join(base_dir, 'rootfs', 'boot', f'vmlinuz-{release}'),
        'initrd': os.path.join(base_dir, 'initrd.cpio'),
        'image': img,
        'meta': meta,
        'payload_note': payload.note,
        'times': {'cache_lock_wait_s': round(t_lock, 1), 'base_s': round(t_base, 1),
                  'prepare_s': round(time.monotonic() - t0 - t_lock, 1)},
    }
