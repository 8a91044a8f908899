/* SPDX-License-Identifier: MIT */
/* Owns the real machine's VT and backlight access: VT ioctls on /dev/tty0 and the files
 * under /sys/class/backlight. Reached only through hw.c when a backend has no such op. */
#include <dirent.h>
#include <fcntl.h>
#include <inttypes.h>
#include <linux/kd.h>
#include <linux/vt.h>
#include <sys/ioctl.h>
#include <sys/stat.h>

#include "fileio.h"
#include "hw/hw-system.h"
#include "sysfs.h"

#define VT_DEVICE "/dev/tty0"
#define BACKLIGHT_DIR "/sys/class/backlight"

static int vt_open(void)
{
        int fd = open(VT_DEVICE, O_RDWR | O_NOCTTY | O_CLOEXEC | O_NONBLOCK);
        struct stat st;

        if (fd >= 0) {
                if (fstat(fd, &st) < 0 || !S_ISCHR(st.st_mode)) {
                        safe_close(fd);
                        return -ENOTTY;
                }
                return fd;
        }
        /* tty0 exists as a node but the kernel has no VT behind it (CONFIG_VT off, or a
         * console-less boot): the same as no VT subsystem at all. */
        if (errno == ENXIO || errno == ENODEV)
                return -ENOENT;
        return negative_errno();
}

int hw_system_vt_get_active(Hw *hw, unsigned *ret)
{
        _cleanup_close_ int fd = vt_open();
        struct vt_stat st = { 0 };

        (void)hw;
        if (fd < 0)
                return fd;
        if (ioctl(fd, VT_GETSTATE, &st) < 0)
                return negative_errno();
        if (st.v_active < 1 || st.v_active > HW_VT_MAX)
                return -EIO;
        *ret = st.v_active;
        return 0;
}

/* logind starts a getty (autovt@ttyN) on a VT that becomes active when N <= NAutoVTs (6 by
 * default) or N is its ReserveVT: switching to such a VT for the sleep made it fork and exec
 * agetty, which draws on that VT, in the middle of the save (measured in a TCG guest: the vga
 * save that followed took 53-69 ms instead of 19), and left one more getty behind per sleep.
 * So the spare is the highest free VT that VT_GETSTATE reports on (15 down to 2); VT_OPENQRY's
 * lowest free VT only when VT_GETSTATE fails or every one of those is in use. */
#define VT_STATE_LAST 15u

int hw_system_vt_find_free(Hw *hw, unsigned *ret)
{
        _cleanup_close_ int fd = vt_open();
        struct vt_stat st = { 0 };
        int vt = -1;

        (void)hw;
        if (fd < 0)
                return fd;
        if (ioctl(fd, VT_GETSTATE, &st) >= 0)
                for (unsigned n = VT_STATE_LAST; n >= 2; n--)
                        if (n != st.v_active && !(st.v_state & (1u << n))) {
                                *ret = n;
                                return 0;
                        }
        if (ioctl(fd, VT_OPENQRY, &vt) < 0)
                return negative_errno();
        /* The kernel answers -1 when every VT is in use. */
        if (vt < 1 || vt > (int)HW_VT_MAX)
                return -EBUSY;
        *ret = (unsigned)vt;
        return 0;
}

int hw_system_vt_activate(Hw *hw, unsigned vt)
{
        _cleanup_close_ int fd = vt_open();

        (void)hw;
        if (fd < 0)
                return fd;
        if (ioctl(fd, VT_ACTIVATE, (unsigned long)vt) < 0)
                return negative_errno();
        return 0;
}

int hw_system_vt_in_graphics(Hw *hw, bool *ret)
{
        _cleanup_close_ int fd = vt_open();
        int mode = KD_TEXT;

        (void)hw;
        if (fd < 0)
                return fd;
        if (ioctl(fd, KDGETMODE, &mode) < 0)
                return negative_errno();
        *ret = mode == KD_GRAPHICS;
        return 0;
}

int hw_system_backlight_list(Hw *hw, HwBacklightName *names, size_t max)
{
        DIR *dir;
        struct dirent *de;
        size_t n = 0;
        int r = 0;

        (void)hw;
        dir = opendir(BACKLIGHT_DIR);
        if (!dir)
                return errno == ENOENT ? 0 : negative_errno();

        for (;;) {
                errno = 0;
                de = readdir(dir);
                if (!de) {
                        if (errno != 0)
                                r = negative_errno();
                        break;
                }
                if (!hw_backlight_name_is_valid(de->d_name))
                        continue; /* ".", "..", and names we would not build a path from */
                if (n < max)
                        memcpy(names[n].name, de->d_name, strlen(de->d_name) + 1); /* valid: fits */
                if (n >= INT32_MAX)
                        break;
                n++;
        }
        closedir(dir);
        return r < 0 ? r : (int)n;
}

static int backlight_file(const char *name, const char *file, char *buf, size_t size)
{
        int n;

        if (!hw_backlight_name_is_valid(name))
                return -EINVAL;
        n = snprintf(buf, size, BACKLIGHT_DIR "/%s/%s", name, file);
        return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int hw_system_backlight_read(Hw *hw, const char *name, uint32_t *ret_brightness, uint32_t *ret_max)
{
        char path[256];
        uint32_t brightness, max;
        int r;

        (void)hw;
        r = backlight_file(name, "brightness", path, sizeof(path));
        if (r >= 0)
                r = sysfs_read_u32(NULL, path, &brightness);
        if (r >= 0)
                r = backlight_file(name, "max_brightness", path, sizeof(path));
        if (r >= 0)
                r = sysfs_read_u32(NULL, path, &max);
        if (r < 0)
                return r;
        *ret_brightness = brightness;
        *ret_max = max;
        return 0;
}

/* Writes value as one decimal line to the attribute or sysctl file at path (O_TRUNC for a
 * fake root's regular file; sysfs and procfs ignore it). */
static int write_decimal(const char *path, uint32_t value)
{
        _cleanup_close_ int fd = -EBADF;
        char line[16];
        ssize_t n;
        int len;

        fd = open_regular_at(AT_FDCWD, path, O_WRONLY | O_TRUNC, 0);
        if (fd < 0)
                return fd;
        len = snprintf(line, sizeof(line), "%" PRIu32 "\n", value);
        n = write(fd, line, (size_t)len);
        if (n < 0)
                return negative_errno();
        return n == len ? 0 : -EIO;
}

int hw_system_backlight_write(Hw *hw, const char *name, uint32_t brightness)
{
        char path[256];
        int r;

        (void)hw;
        r = backlight_file(name, "brightness", path, sizeof(path));
        if (r < 0)
                return r;
        return write_decimal(path, brightness);
}

#define ACPI_VIDEO_FLAGS "/proc/sys/kernel/acpi_video_flags"

int hw_system_acpi_video_flags_read(const char *root, unsigned *ret)
{
        uint32_t v;
        int r;

        if (!ret)
                return -EINVAL;
        r = sysfs_read_u32(root, ACPI_VIDEO_FLAGS, &v);
        if (r < 0)
                return r;
        *ret = v;
        return 0;
}

int hw_system_acpi_video_flags_write(const char *root, unsigned flags)
{
        _cleanup_free_ char *path = NULL;
        int r;

        r = sysfs_path(root, ACPI_VIDEO_FLAGS, &path);
        if (r < 0)
                return r;
        return write_decimal(path, flags);
}
