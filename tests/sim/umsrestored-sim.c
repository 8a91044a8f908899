/* SPDX-License-Identifier: MIT */
/* umsrestored-sim: the umsrestored command line on a simulated std VGA, for the unit and
 * D-Bus suites. Built, never installed; refuses the real root. Test switches (environment):
 *   UMSRESTORE_TEST_HW_SIM=FILE          the simulator image (needed by passes); loaded at a
 *                                        pass's first open, stored at its end; every device
 *                                        shares it unless:
 *   UMSRESTORE_TEST_HW_SIM_PER_DEVICE=1  every device has its own image, FILE.SLOT (bench/run's
 *                                        rows with several devices)
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

#define SIM_DEVICES_MAX 16

typedef struct SimBackend SimBackend;

typedef struct SimDevice {
        SimBackend *backend;
        HwSim *sim;
        char *path;
} SimDevice;

struct SimBackend {
        const char *path;
        const char *fail_open;
        unsigned long slow_save_ms, slow_restore_ms;
        bool hang_after_vt_switch;
        bool hang_in_test;
        bool per_device;
        bool in_save, in_test;
        SimDevice devices[SIM_DEVICES_MAX];
        size_t n_devices;
};

static void sim_vt_switched(HwSim *sim, void *userdata)
{
        SimDevice *sd = userdata;

        /* The real machine keeps a VT switch whatever happens to the process after it. */
        (void)hw_sim_file_store(sim, sd->path);
        if (sd->backend->hang_after_vt_switch && sd->backend->in_save)
                for (;;)
                        pause();
}

static SimDevice *hang_device;
static const HwOps *hang_real_ops;
static HwOps hang_ops;

/* The disturbing write of a test (DAC mask 0x00, which no restore writes): the machine keeps
 * it, and the pass hangs as on a device that stopped answering. */
static int hang_io_write(Hw *hw, uint16_t port, unsigned width, uint32_t value)
{
        int r = hang_real_ops->io_write(hw, port, width, value);

        if (r >= 0 && port == 0x3C6 && width == 1 && value == 0) {
                (void)hw_sim_file_store(hang_device->sim, hang_device->path);
                for (;;)
                        pause();
        }
        return r;
}

static int open_device(SimDevice *sd, const DisplayDevice *d, Hw **ret)
{
        int r = hw_sim_open_func(d, sd->sim, ret);

        if (r >= 0 && sd->backend->hang_in_test && sd->backend->in_test) {
                hang_device = sd;
                hang_real_ops = (*ret)->ops;
                hang_ops = *hang_real_ops;
                hang_ops.io_write = hang_io_write;
                (*ret)->ops = &hang_ops;
        }
        return r;
}

static int sim_backend_open(const DisplayDevice *d, void *userdata, Hw **ret)
{
        SimBackend *b = userdata;
        SimDevice *sd;
        int r;

        if (b->fail_open && streq(b->fail_open, d->slot))
                return -ENODEV;
        for (size_t i = 0; i < b->n_devices; i++)
                if (streq(hw_sim_device(b->devices[i].sim)->slot, d->slot) || !b->per_device)
                        return open_device(&b->devices[i], d, ret);
        if (b->n_devices == SIM_DEVICES_MAX)
                return -ENOSPC;
        sd = &b->devices[b->n_devices];
        *sd = (SimDevice){ .backend = b };
        if (b->per_device ? asprintf(&sd->path, "%s.%s", b->path, d->slot) < 0 : !(sd->path = strdup(b->path)))
                return -ENOMEM;
        r = hw_sim_file_load(sd->path, d, &sd->sim);
        if (r < 0) {
                sd->path = mfree(sd->path);
                return r;
        }
        hw_sim_set_vt_hook(sd->sim, sim_vt_switched, sd);
        b->n_devices++;
        return open_device(sd, d, ret);
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

        for (size_t i = 0; i < b->n_devices; i++) {
                SimDevice *sd = &b->devices[i];
                int q = hw_sim_file_store(sd->sim, sd->path);
                if (q < 0 && r >= 0)
                        r = q;
                sd->sim = hw_sim_unref(sd->sim);
                sd->path = mfree(sd->path);
        }
        b->n_devices = 0;
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
        const char *per_device = getenv("UMSRESTORE_TEST_HW_SIM_PER_DEVICE");
        const char *hang_test = getenv("UMSRESTORE_TEST_HANG_IN_TEST");

        sb.path = getenv("UMSRESTORE_TEST_HW_SIM");
        sb.fail_open = getenv("UMSRESTORE_TEST_FAIL_OPEN");
        sb.slow_save_ms = slow ? strtoul(slow, NULL, 10) : 0;
        sb.slow_restore_ms = slow_restore ? strtoul(slow_restore, NULL, 10) : 0;
        sb.hang_after_vt_switch = hang && streq(hang, "1");
        sb.per_device = per_device && streq(per_device, "1");
        sb.hang_in_test = hang_test && streq(hang_test, "1");
        return umsrestored_main(argc, argv, &backend);
}
