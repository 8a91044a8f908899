/* SPDX-License-Identifier: MIT */
/* umsrestored-sim: the umsrestored command line on a simulated std VGA, for the unit and
 * D-Bus suites. Built, never installed; refuses the real root. Test switches (environment):
 *   UMSRESTORE_TEST_HW_SIM=FILE          the simulator image (needed by passes); every device
 *                                        shares it; loaded at a pass's first open, stored
 *                                        at its end
 *   UMSRESTORE_TEST_SLOW_SAVE_MS=N       each save pass waits N ms before it starts
 *   UMSRESTORE_TEST_SLOW_RESTORE_MS=N    each restore pass waits N ms before it starts
 *   UMSRESTORE_TEST_FAIL_OPEN=SLOT       opening this device fails (-ENODEV)
 *   UMSRESTORE_TEST_HANG_AFTER_VT_SWITCH=1
 *                                        a save pass hangs for good right after a VT
 *                                        switch took effect (the switch is stored first)
 *   UMSRESTORE_TEST_HANG_IN_TEST=1       a test-restore pass hangs for good once it has put the
 *                                        display in its after-sleep state (the DAC mask cleared;
 *                                        that state is stored first) */
#include <time.h>

#include "hw-sim-file.h"
#include "umsrestored.h"

typedef struct SimBackend {
        const char *path;
        const char *fail_open;
        unsigned long slow_save_ms, slow_restore_ms;
        bool hang_after_vt_switch;
        bool hang_in_test;
        bool in_save, in_test;
        HwSim *sim;
} SimBackend;

static void sim_vt_switched(HwSim *sim, void *userdata)
{
        SimBackend *b = userdata;

        /* The real machine keeps a VT switch whatever happens to the process after it. */
        (void)hw_sim_file_store(sim, b->path);
        if (b->hang_after_vt_switch && b->in_save)
                for (;;)
                        pause();
}

static SimBackend *hang_backend;
static const HwOps *hang_real_ops;
static HwOps hang_ops;

/* The disturbing write of a test (DAC mask 0x00, which no restore writes): the machine keeps
 * it, and the pass hangs as on a device that stopped answering. */
static int hang_io_write(Hw *hw, uint16_t port, unsigned width, uint32_t value)
{
        int r = hang_real_ops->io_write(hw, port, width, value);

        if (r >= 0 && port == 0x3C6 && width == 1 && value == 0) {
                (void)hw_sim_file_store(hang_backend->sim, hang_backend->path);
                for (;;)
                        pause();
        }
        return r;
}

static int sim_backend_open(const DisplayDevice *d, void *userdata, Hw **ret)
{
        SimBackend *b = userdata;
        int r;

        if (b->fail_open && streq(b->fail_open, d->slot))
                return -ENODEV;
        if (!b->sim) {
                r = hw_sim_file_load(b->path, d, &b->sim);
                if (r < 0)
                        return r;
                hw_sim_set_vt_hook(b->sim, sim_vt_switched, b);
        }
        r = hw_sim_open_func(d, b->sim, ret);
        if (r >= 0 && b->hang_in_test && b->in_test) {
                hang_backend = b;
                hang_real_ops = (*ret)->ops;
                hang_ops = *hang_real_ops;
                hang_ops.io_write = hang_io_write;
                (*ret)->ops = &hang_ops;
        }
        return r;
}

static int sim_backend_begin(void *userdata, const char *what)
{
        SimBackend *b = userdata;
        unsigned long ms;

        if (!b->path || !b->path[0]) {
                fprintf(stderr, "umsrestored-sim: set UMSRESTORE_TEST_HW_SIM=FILE (a simulator image).\n");
                return -EINVAL;
        }
        b->in_save = streq(what, "save");
        b->in_test = streq(what, "test-restore");
        ms = b->in_save ? b->slow_save_ms : streq(what, "restore") ? b->slow_restore_ms : 0;
        if (ms > 0) {
                struct timespec ts = { .tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000L };
                (void)nanosleep(&ts, NULL);
        }
        return 0;
}

static int sim_backend_end(void *userdata)
{
        SimBackend *b = userdata;
        int r = 0;

        if (b->sim)
                r = hw_sim_file_store(b->sim, b->path);
        b->sim = hw_sim_unref(b->sim);
        return r;
}

int main(int argc, char *argv[])
{
        static SimBackend sb;
        static HwBackend backend = {
                .name = "sim",
                .open = sim_backend_open,
                .pass_begin = sim_backend_begin,
                .pass_end = sim_backend_end,
                .test_only = true,
                .userdata = &sb,
        };
        const char *slow = getenv("UMSRESTORE_TEST_SLOW_SAVE_MS");
        const char *slow_restore = getenv("UMSRESTORE_TEST_SLOW_RESTORE_MS");
        const char *hang = getenv("UMSRESTORE_TEST_HANG_AFTER_VT_SWITCH");
        const char *hang_test = getenv("UMSRESTORE_TEST_HANG_IN_TEST");

        sb.path = getenv("UMSRESTORE_TEST_HW_SIM");
        sb.fail_open = getenv("UMSRESTORE_TEST_FAIL_OPEN");
        sb.slow_save_ms = slow ? strtoul(slow, NULL, 10) : 0;
        sb.slow_restore_ms = slow_restore ? strtoul(slow_restore, NULL, 10) : 0;
        sb.hang_after_vt_switch = hang && streq(hang, "1");
        sb.hang_in_test = hang_test && streq(hang_test, "1");
        return umsrestored_main(argc, argv, &backend);
}
