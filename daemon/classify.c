/* SPDX-License-Identifier: MIT */
/* Owns the verdict rules: which display devices umsrestore manages and which it hands
 * to a kernel driver or leaves alone. Reads only ROOT-prefixed sysfs/procfs. */
#include <xf86drmMode.h>

#include "classify.h"
#include "sysfs.h"

/* Drivers that suspend and resume the device themselves: never touched. */
static const char *const foreign_drivers[] = {
        "nvidia", "vfio-pci", "pci-stub", "pciback", "xen-pciback", "fglrx",
};

/* DRM drivers that drive display hardware (with or without modesetting). */
static const char *const drm_drivers[] = {
        "i915", "radeon", "amdgpu", "nouveau", "bochs-drm", "bochs", "cirrus", "cirrus-qemu",
        "mgag200", "ast", "qxl", "virtio-pci", "vmwgfx", "gma500", "hibmc-drm", "via", "savage",
        "mga", "r128", "sis", "tdfx", "i810", "i830", "xe", "simpledrm",
};

static bool str_in(const char *s, const char *const *list, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (streq(s, list[i]))
                        return true;
        return false;
}

ClassifyEnv classify_env_default(const char *root)
{
        bool real_root = root_is_real(root);
        return (ClassifyEnv){
                .root = root,
                .euid = geteuid(),
                .check_modesetting = real_root ? drmCheckModesettingSupported : NULL,
                .legacy_io = -1,
        };
}

static bool legacy_io_available(const ClassifyEnv *env)
{
        if (env->legacy_io >= 0)
                return env->legacy_io;
#if defined(__i386__) || defined(__x86_64__)
        return true;
#else
        return sysfs_exists(env->root, "/sys/class/pci_bus/0000:00/legacy_io");
#endif
}

const char *classify_machine_blocker(const ClassifyEnv *env, char *buf, size_t size)
{
        _cleanup_free_ char *lockdown = NULL;

        if (sysfs_read_line(env->root, "/sys/kernel/security/lockdown", &lockdown) >= 0 &&
            (strstr(lockdown, "[integrity]") || strstr(lockdown, "[confidentiality]"))) {
                const char *mode = strstr(lockdown, "[integrity]") ? "integrity" : "confidentiality";
                snprintf(buf, size,
                         "kernel lockdown (%s) forbids port I/O and /dev/mem; boot with lockdown=none "
                         "or a KMS driver",
                         mode);
                return buf;
        }
        if (!legacy_io_available(env))
                return "this architecture offers no legacy VGA I/O";
        if (env->euid != 0)
                return "not running as root (save and restore need root)";
        return NULL;
}

/* Whether the kernel was booted with modesetting switched off for drv. */
static bool modeset_disabled(const char *root, const char *drv)
{
        _cleanup_free_ char *cmdline = NULL, *param = NULL;
        char path[128], key[64];

        if (sysfs_read_line(root, "/proc/cmdline", &cmdline) >= 0) {
                snprintf(key, sizeof(key), "%s.modeset=0", drv);
                for (char *tok = strtok(cmdline, " \t"); tok; tok = strtok(NULL, " \t"))
                        if (streq(tok, "nomodeset") || streq(tok, key))
                                return true;
        }
        snprintf(path, sizeof(path), "/sys/module/%s/parameters/modeset", drv);
        if (sysfs_read_line(root, path, &param) >= 0 && (streq(param, "0") || streq(param, "N")))
                return true;
        return false;
}

void classify_console(const char *root, char *buf, size_t size)
{
        _cleanup_free_ char *fb = NULL;

        buf[0] = '\0';
        /* /proc/fb: "0 VESA VGA", "0 EFI VGA", "0 simpledrmdrmfb", "0 VGA16 VGA" */
        if (sysfs_read_line(root, "/proc/fb", &fb) >= 0 && fb[0]) {
                if (strstr(fb, "VESA"))
                        snprintf(buf, size, "vesafb");
                else if (strstr(fb, "EFI"))
                        snprintf(buf, size, "efifb");
                else if (strstr(fb, "simpledrm") || strstr(fb, "simple"))
                        snprintf(buf, size, "simpledrm");
                else if (strstr(fb, "VGA16"))
                        snprintf(buf, size, "vga16fb");
                else {
                        const char *name = strchr(fb, ' ');
                        snprintf(buf, size, "framebuffer '%s'", name ? name + 1 : fb);
                }
                return;
        }
        for (unsigned i = 0; i < 4; i++) {
                _cleanup_free_ char *name = NULL;
                char p[64];
                snprintf(p, sizeof(p), "/sys/class/vtconsole/vtcon%u/name", i);
                if (sysfs_read_line(root, p, &name) >= 0 && strstr(name, "VGA+")) {
                        snprintf(buf, size, "vgacon");
                        return;
                }
        }
}

static void classify_one(const ClassifyEnv *env, DisplayDevice *d, const char *blocker, const char *console)
{
        char busid[32];

        snprintf(busid, sizeof(busid), "pci:%s", d->slot);

#define SET(v, ...)                                                                                          \
        do {                                                                                                 \
                d->verdict = (v);                                                                            \
                snprintf(d->reason, sizeof(d->reason), __VA_ARGS__);                                         \
        } while (0)

        if (d->driver[0] && str_in(d->driver, foreign_drivers, ELEMENTSOF(foreign_drivers))) {
                SET(VERDICT_FOREIGN, "bound to %s, which suspends the device itself; left alone", d->driver);
                return;
        }

        if (d->driver[0]) {
                if (d->n_connectors > 0 || d->has_control_node) {
                        SET(VERDICT_KMS, "%s drives it with kernel mode setting (%s, %u connector%s); the "
                            "kernel restores it",
                            d->driver, d->n_drm_cards ? d->drm_cards[0] : "control node", d->n_connectors,
                            d->n_connectors == 1 ? "" : "s");
                        return;
                }
                if (d->n_drm_cards > 0 && env->check_modesetting && env->check_modesetting(busid) == 0 &&
                    !modeset_disabled(env->root, d->driver)) {
                        SET(VERDICT_KMS, "%s drives it with kernel mode setting (libdrm reports modesetting "
                            "for %s); the kernel restores it",
                            d->driver, busid);
                        return;
                }
                if (!str_in(d->driver, drm_drivers, ELEMENTSOF(drm_drivers))) {
                        SET(VERDICT_FOREIGN, "bound to %s, a driver umsrestore does not know; left alone "
                            "(unbind it or report it to have it supported)",
                            d->driver);
                        return;
                }
                if (blocker) {
                        SET(VERDICT_UNUSABLE, "%s without modesetting, but %s", d->driver, blocker);
                        return;
                }
                SET(VERDICT_UMS, "%s is bound without modesetting%s; nothing in the kernel restores the display",
                    d->driver, modeset_disabled(env->root, d->driver) ? " (modeset=0 / nomodeset)" : "");
                return;
        }

        if (blocker) {
                SET(VERDICT_UNUSABLE, "no kernel driver, but %s", blocker);
                return;
        }
        if (d->needs_vga_arbiter && !d->boot_vga) {
                SET(VERDICT_FIRMWARE, "no kernel driver, not the boot VGA device (legacy VGA through the VGA "
                    "arbiter); nothing in the kernel restores the display");
                return;
        }
        SET(VERDICT_FIRMWARE, "no kernel driver%s%s; nothing in the kernel restores the display",
            console[0] ? ", console on " : "", console);
#undef SET
}

/* The function 0 whose display engine d is part of: d is a function other than 0 of the
 * same device, not VGA-compatible (class 0x0380, "other display controller"), and function 0
 * is a VGA-compatible display (0x0300) of the same vendor. Such a function (the Intel IGD's
 * 00:02.1, 8086:27a6 on the 945) has no display of its own. */
static const DisplayDevice *engine_function0(const DeviceList *l, const DisplayDevice *d)
{
        if (d->func == 0 || (d->class_code >> 8) != 0x0380)
                return NULL;
        for (size_t i = 0; i < l->n; i++) {
                const DisplayDevice *f0 = &l->devices[i];

                if (f0->domain == d->domain && f0->bus == d->bus && f0->dev == d->dev && f0->func == 0 &&
                    f0->vendor_id == d->vendor_id && (f0->class_code >> 8) == 0x0300)
                        return f0;
        }
        return NULL;
}

/* A function of another's display engine follows its function 0: hands off when that one is
 * (a KMS driver owns the whole engine), else managed for its PCI config only. */
static void classify_engine_function(DisplayDevice *d, const DisplayDevice *f0)
{
        snprintf(d->engine_slot, sizeof(d->engine_slot), "%s", f0->slot);
        d->verdict = f0->verdict;
        if (verdict_is_managed(f0->verdict))
                snprintf(d->reason, sizeof(d->reason),
                         "part of the display engine of %s (function 0), not a display of its own; only its "
                         "PCI config is saved",
                         f0->slot);
        else
                snprintf(d->reason, sizeof(d->reason), "part of the display engine of %s, which is %s; left alone",
                         f0->slot, verdict_to_string(f0->verdict));
}

void classify_devices(const ClassifyEnv *env, DeviceList *l)
{
        char blocker_buf[256], console[128];
        const char *blocker = classify_machine_blocker(env, blocker_buf, sizeof(blocker_buf));
        size_t n_displays = 0;

        for (size_t i = 0; i < l->n; i++)
                if (!engine_function0(l, &l->devices[i]))
                        n_displays++;

        classify_console(env->root, console, sizeof(console));
        for (size_t i = 0; i < l->n; i++) {
                DisplayDevice *d = &l->devices[i];
                d->engine_slot[0] = '\0';
                d->needs_vga_arbiter = n_displays > 1;
                classify_one(env, d, blocker, console);
        }
        /* Only now: function 0's verdict decides the other function's. */
        for (size_t i = 0; i < l->n; i++) {
                DisplayDevice *d = &l->devices[i];
                const DisplayDevice *f0 = engine_function0(l, d);

                if (f0)
                        classify_engine_function(d, f0);
        }
}
