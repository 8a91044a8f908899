/* SPDX-License-Identifier: MIT */
/* umsrestored-faults: the umsrestored command line on the real hardware backend, with one
 * register write corrupted on purpose, for the vm suite's cases that show a failing method
 * being noticed (verification, the fallback along the plan, --test-restore). Built, never
 * installed. Test switch (environment):
 *   UMSRESTORE_TEST_CORRUPT=DATA-PORT,INDEX,XOR[,COUNT]
 *       in restore and test-restore passes, the first COUNT (default 1) writes of register INDEX behind the
 *       indexed data port (0x3C5 sequencer, 0x3CF graphics, 0x3D5/0x3B5 CRTC, 0x1CF Bochs
 *       dispi) have XOR applied to the value written; everything else is the real machine.
 *   UMSRESTORE_TEST_HANG=save|restore
 *       the first register write of a pass of that kind never returns: the pass writes its
 *       pid to /run/umsrestored-faults.hung and sleeps for good (a device that hangs the
 *       bus; the fault cases kill it or let the deadline stop it). */
#include <fcntl.h>

#include "umsrestored.h"

#define HANG_MARKER "/run/umsrestored-faults.hung"

typedef struct Corruption {
        uint16_t data_port, index_port;
        uint16_t index, xor;
        unsigned count;
        bool active; /* in a restore pass */
        uint16_t last_index;
} Corruption;

static Corruption corrupt;
static HwOps corrupt_ops;
static const HwOps *real_ops;
static const char *hang_in; /* "save", "restore" or NULL */
static bool hang_now;       /* in a pass of that kind */

static void hang_forever(void)
{
        char buf[32];
        int fd, n;

        n = snprintf(buf, sizeof(buf), "%d\n", (int)getpid());
        fd = open(HANG_MARKER, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        if (fd >= 0) {
                (void)!write(fd, buf, (size_t)n);
                close(fd);
        }
        for (;;)
                pause();
}

static int corrupt_io_write(Hw *hw, uint16_t port, unsigned width, uint32_t value)
{
        if (hang_now)
                hang_forever();
        if (port == corrupt.index_port) {
                corrupt.last_index = (uint16_t)(width == 2 && port != 0x1CE ? value & 0xFF : value);
                /* An index and data pair in one word write (outw 0x3D4, data << 8 | index). */
                if (width == 2 && port != 0x1CE && corrupt.active && corrupt.count > 0 &&
                    corrupt.last_index == corrupt.index) {
                        value ^= (uint32_t)corrupt.xor << 8;
                        corrupt.count--;
                }
        } else if (port == corrupt.data_port && corrupt.active && corrupt.count > 0 &&
                   corrupt.last_index == corrupt.index) {
                value ^= corrupt.xor;
                corrupt.count--;
        }
        return real_ops->io_write(hw, port, width, value);
}

static int faults_open(const DisplayDevice *d, void *userdata, Hw **ret)
{
        Hw *hw = NULL;
        int r;

        (void)userdata;
        r = hw_backend_pciaccess.open(d, hw_backend_pciaccess.userdata, &hw);
        if (r < 0)
                return r;
        if (corrupt.data_port || hang_in) {
                real_ops = hw->ops;
                corrupt_ops = *hw->ops;
                corrupt_ops.io_write = corrupt_io_write;
                hw->ops = &corrupt_ops;
        }
        *ret = hw;
        return 0;
}

static int faults_pass_begin(void *userdata, const char *what)
{
        (void)userdata;
        corrupt.active = streq(what, "restore") || streq(what, "test-restore");
        hang_now = hang_in && streq(what, hang_in);
        return hw_backend_pciaccess.pass_begin ? hw_backend_pciaccess.pass_begin(hw_backend_pciaccess.userdata, what)
                                               : 0;
}

static int faults_pass_end(void *userdata)
{
        (void)userdata;
        corrupt.active = false;
        hang_now = false;
        return hw_backend_pciaccess.pass_end ? hw_backend_pciaccess.pass_end(hw_backend_pciaccess.userdata) : 0;
}

static int parse_corruption(const char *s)
{
        unsigned long v[4] = { 0, 0, 0, 1 };
        char *end;
        size_t n = 0;

        while (n < 4) {
                errno = 0;
                v[n++] = strtoul(s, &end, 0);
                if (errno || end == s || v[n - 1] > 0xFFFF)
                        return -EINVAL;
                if (*end == '\0')
                        break;
                if (*end != ',')
                        return -EINVAL;
                s = end + 1;
        }
        if (n < 3 || *end != '\0')
                return -EINVAL;
        corrupt = (Corruption){ .data_port = (uint16_t)v[0], .index = (uint16_t)v[1], .xor = (uint16_t)v[2],
                                .count = (unsigned)v[3] };
        corrupt.index_port = corrupt.data_port == 0x1CF ? 0x1CE : (uint16_t)(corrupt.data_port - 1);
        return 0;
}

int main(int argc, char *argv[])
{
        static HwBackend backend;
        const char *spec = getenv("UMSRESTORE_TEST_CORRUPT");

        if (spec && spec[0] && parse_corruption(spec) < 0) {
                fprintf(stderr, "umsrestored-faults: UMSRESTORE_TEST_CORRUPT=%s: expected DATA-PORT,INDEX,XOR[,COUNT]\n",
                        spec);
                return 2;
        }
        hang_in = getenv("UMSRESTORE_TEST_HANG");
        if (hang_in && !streq(hang_in, "save") && !streq(hang_in, "restore")) {
                fprintf(stderr, "umsrestored-faults: UMSRESTORE_TEST_HANG=%s: expected save or restore\n", hang_in);
                return 2;
        }
        backend = hw_backend_pciaccess;
        backend.name = "pciaccess-faults";
        backend.open = faults_open;
        backend.pass_begin = faults_pass_begin;
        backend.pass_end = faults_pass_end;
        return umsrestored_main(argc, argv, &backend);
}
