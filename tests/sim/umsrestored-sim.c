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
 *                                        switch took effect (the switch is stored first) */
#include <time.h>

#include "hw-sim-file.h"
#include "umsrestored.h"

typedef struct SimBackend {
        const char *path;
        const char *fail_open;
        unsigned long slow_save_ms, slow_restore_ms;
        bool hang_after_vt_switch;
        bool in_save;
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
        return hw_sim_open_func(d, b->sim, ret);
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

        sb.path = getenv("UMSRESTORE_TEST_HW_SIM");
        sb.fail_open = getenv("UMSRESTORE_TEST_FAIL_OPEN");
        sb.slow_save_ms = slow ? strtoul(slow, NULL, 10) : 0;
        sb.slow_restore_ms = slow_restore ? strtoul(slow_restore, NULL, 10) : 0;
        sb.hang_after_vt_switch = hang && streq(hang, "1");
        return umsrestored_main(argc, argv, &backend);
}
