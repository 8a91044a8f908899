/* SPDX-License-Identifier: MIT */
/* The engine's safety rules: a KMS-owned (or foreign) device never reaches any hardware
 * access, a refused state file means the device is never even opened, one failing device
 * does not cost the others, and a killed save can be rolled back. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "engine.h"
#include "exit-codes.h"
#include "pass.h"
#include "hw-sim.h"
#include "sim-intel.h"
#include "sim-radeon.h"

static const char *data_dir;

typedef struct Opener {
        unsigned opens;
        char opened_slots[8][SLOT_MAX];
        const char *fail_slot; /* opening this one fails with -ENODEV */
        HwSim *sim;            /* created for the first managed device opened */
        HwBackend backend;
        RunDir *rundir;
} Opener;

/* An HwOpenFunc that fails the test outright for any device that is not managed, and
 * hands managed ones a simulated VGA. */
static int guarded_open(const DisplayDevice *d, void *userdata, Hw **ret)
{
        Opener *o = userdata;

        if (!verdict_is_managed(d->verdict))
                fail_msg("hardware access requested for %s, verdict %s", d->slot, verdict_to_string(d->verdict));
        if (o->opens < 8)
                snprintf(o->opened_slots[o->opens], SLOT_MAX, "%s", d->slot);
        o->opens++;
        if (o->fail_slot && streq(o->fail_slot, d->slot))
                return -ENODEV;
        if (!o->sim) {
                assert_int_equal(hw_sim_new(d, &o->sim, NULL), 0);
                hw_sim_load_mode3(o->sim);
                hw_sim_fill_planes(o->sim, 5);
        }
        return hw_sim_open_func(d, o->sim, ret);
}

static void setup_config(EngineConfig *c, const char *machine, char **ret_root, char **ret_dir, Opener *o)
{
        char *root = NULL, *dir = NULL;

        assert_true(asprintf(&root, "%s/machines/%s", data_dir, machine) > 0);
        dir = strdup("/tmp/umsrestore-engine-XXXXXX");
        assert_non_null(mkdtemp(dir));
        assert_int_equal(chmod(dir, 0700), 0);
        engine_config_default(c);
        c->survey.root = root;
        c->survey.pci_source = pci_source_sysfs;
        c->survey.classify_env = (ClassifyEnv){ .root = root, .euid = 0, .check_modesetting = NULL, .legacy_io = 1 };
        o->backend = (HwBackend){ .name = "test", .open = guarded_open, .userdata = o };
        c->hw = &o->backend;
        assert_int_equal(rundir_open(dir, geteuid(), false, &o->rundir, NULL), 0);
        c->rundir = o->rundir;
        *ret_root = root;
        *ret_dir = dir;
}

/* The simulator, made before the first pass (so a test can set it up), for the machine's
 * first device, in text mode 3. */
static void make_sim(const EngineConfig *c, Opener *o, uint32_t seed)
{
        _cleanup_(survey_freep) Survey *sv = NULL;

        assert_int_equal(survey_run(&c->survey, &sv), 0);
        assert_int_equal(hw_sim_new(&sv->devices[0].device, &o->sim, NULL), 0);
        hw_sim_load_mode3(o->sim);
        hw_sim_fill_planes(o->sim, seed);
}

static void opener_done(Opener *o)
{
        o->sim = hw_sim_unref(o->sim);
        o->rundir = rundir_free(o->rundir);
}

static bool file_exists(const char *dir, const char *name)
{
        char path[512];
        struct stat st;

        snprintf(path, sizeof(path), "%s/%s", dir, name);
        return stat(path, &st) == 0;
}

static void cleanup_dir(const char *dir)
{
        char cmd[256];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
}

static void test_kms_only_machine_never_opens(void **s)
{
        _cleanup_(engine_result_freep) EngineResult *res = NULL;
        _cleanup_free_ char *root = NULL, *dir = NULL;
        Opener o = { 0 };
        EngineConfig c;
        (void)s;

        setup_config(&c, "stdvga-bochs-kms", &root, &dir, &o);
        assert_int_equal(engine_run(&c, ENGINE_SAVE, &res), 0);
        assert_int_equal(res->n, 1);
        assert_int_equal(res->n_managed, 0);
        assert_false(res->devices[0].attempted);
        assert_int_equal(pass_exit_code(ENGINE_SAVE, res), UMS_EXIT_NOTHING);
        engine_result_free(TAKE_PTR(res));
        assert_int_equal(engine_run(&c, ENGINE_RESTORE, &res), 0);
        assert_int_equal(res->n_managed, 0);
        assert_int_equal(o.opens, 0);
        /* and no state file for it */
        assert_false(file_exists(dir, "0000:00:02.0.state"));
        opener_done(&o);
        cleanup_dir(dir);
}

static void test_mixed_machine_touches_only_the_managed_device(void **s)
{
        _cleanup_(engine_result_freep) EngineResult *res = NULL;
        _cleanup_free_ char *root = NULL, *dir = NULL;
        Opener o = { 0 };
        EngineConfig c;
        (void)s;

        setup_config(&c, "two-gpus", &root, &dir, &o);
        assert_int_equal(engine_run(&c, ENGINE_SAVE, &res), 0);
        assert_int_equal(res->n_managed, 1);
        assert_int_equal(o.opens, 1);
        assert_string_equal(o.opened_slots[0], "0000:01:00.0");
        engine_result_free(TAKE_PTR(res));

        hw_sim_wake(o.sim);
        assert_int_equal(engine_run(&c, ENGINE_RESTORE, &res), 0);
        assert_int_equal(res->n_failed, 0);
        assert_int_equal(o.opens, 2);
        assert_string_equal(o.opened_slots[1], "0000:01:00.0");
        assert_true(hw_sim_display_live(o.sim));
        assert_int_equal(res->devices[1].mismatches, 0);
        opener_done(&o);
        cleanup_dir(dir);
}

static void test_only_device_kms_is_not_touched(void **s)
{
        _cleanup_(engine_result_freep) EngineResult *res = NULL;
        _cleanup_free_ char *root = NULL, *dir = NULL;
        Opener o = { 0 };
        EngineConfig c;
        (void)s;

        setup_config(&c, "two-gpus", &root, &dir, &o);
        c.survey.only_device = "0000:00:02.0";
        assert_int_equal(engine_run(&c, ENGINE_SAVE, &res), 0);
        assert_int_equal(res->n_managed, 0);
        assert_int_equal(o.opens, 0);
        engine_result_free(TAKE_PTR(res));
        c.survey.only_device = "0000:05:00.0";
        assert_int_equal(engine_run(&c, ENGINE_SAVE, &res), -ENODEV);
        assert_null(res);
        assert_int_equal(o.opens, 0);
        opener_done(&o);
        cleanup_dir(dir);
}

static void test_refused_state_never_opens(void **s)
{
        _cleanup_(engine_result_freep) EngineResult *res = NULL;
        _cleanup_free_ char *root = NULL, *dir = NULL;
        char path[512];
        Opener o = { 0 };
        EngineConfig c;
        FILE *f;
        (void)s;

        setup_config(&c, "stdvga-vgacon", &root, &dir, &o);
        assert_int_equal(engine_run(&c, ENGINE_SAVE, &res), 0);
        assert_int_equal(o.opens, 1);
        engine_result_free(TAKE_PTR(res));

        /* flip one byte in the middle of the file */
        snprintf(path, sizeof(path), "%s/0000:00:02.0.state", dir);
        f = fopen(path, "r+e");
        assert_non_null(f);
        assert_int_equal(fseek(f, 3000, SEEK_SET), 0);
        int ch = fgetc(f);
        assert_int_equal(fseek(f, 3000, SEEK_SET), 0);
        fputc(ch ^ 0x40, f);
        fclose(f);

        hw_sim_wake(o.sim);
        hw_sim_log_clear(o.sim);
        assert_int_equal(engine_run(&c, ENGINE_RESTORE, &res), 0);
        assert_true(res->devices[0].refused);
        assert_int_equal(pass_exit_code(ENGINE_RESTORE, res), UMS_EXIT_BAD_STATE);
        assert_int_equal(o.opens, 1); /* not opened again */
        assert_int_equal(hw_sim_access_count(o.sim), 0);
        assert_false(hw_sim_display_live(o.sim));
        opener_done(&o);
        cleanup_dir(dir);
}

static void test_foreign_and_unusable_never_open(void **s)
{
        const char *machines[] = { "vfio", "nvidia", "lockdown", "unknown-driver", "radeon-m6-kms",
                                   "nvidia-nouveau-kms" };
        (void)s;

        for (size_t i = 0; i < ELEMENTSOF(machines); i++) {
                _cleanup_(engine_result_freep) EngineResult *res = NULL;
                _cleanup_free_ char *root = NULL, *dir = NULL;
                Opener o = { 0 };
                EngineConfig c;

                setup_config(&c, machines[i], &root, &dir, &o);
                assert_int_equal(engine_run(&c, ENGINE_SAVE, &res), 0);
                assert_int_equal(res->n_managed, 0);
                assert_int_equal(o.opens, 0);
                opener_done(&o);
                cleanup_dir(dir);
        }
}

/* A save that fails after the console method moved to a spare VT puts the VT back. */
static void test_failed_save_rolls_back(void **s)
{
        _cleanup_(engine_result_freep) EngineResult *res = NULL;
        _cleanup_free_ char *root = NULL, *dir = NULL;
        Opener o = { 0 };
        EngineConfig c;
        (void)s;

        setup_config(&c, "stdvga-vgacon", &root, &dir, &o);
        make_sim(&c, &o, 4);
        /* the planes cannot be read: the vga save fails after the console switch */
        hw_sim_fail_type(o.sim, HW_SIM_MEM_READ, true);

        assert_int_equal(engine_run(&c, ENGINE_SAVE, &res), 0);
        assert_true(res->devices[0].attempted);
        assert_true(res->devices[0].r < 0);
        assert_non_null(strstr(res->devices[0].methods, "console"));
        assert_non_null(strstr(res->devices[0].message, "vga"));
        assert_int_equal(hw_sim_count_type(o.sim, HW_SIM_VT_ACTIVATE), 2); /* there and back */
        assert_int_equal(hw_sim_vt_active(o.sim), 1);
        assert_true(hw_sim_display_live(o.sim));
        assert_false(file_exists(dir, "0000:00:02.0.undo"));
        assert_false(file_exists(dir, "0000:00:02.0.state"));
        opener_done(&o);
        cleanup_dir(dir);
}

/* Two managed devices, the second cannot be opened: the first is saved and, after wake,
 * restored; the second is named with its reason; the pass says "partly failed". */
static void test_one_failing_device_does_not_cost_the_other(void **s)
{
        _cleanup_(engine_result_freep) EngineResult *res = NULL;
        _cleanup_free_ char *root = NULL, *dir = NULL;
        Opener o = { .fail_slot = "0000:01:00.0" };
        EngineConfig c;
        (void)s;

        setup_config(&c, "two-gpus-none-kms", &root, &dir, &o);
        assert_int_equal(engine_run(&c, ENGINE_SAVE, &res), 0);
        assert_int_equal(res->n_managed, 2);
        assert_int_equal(res->n_done, 1);
        assert_int_equal(res->n_failed, 1);
        assert_int_equal(res->devices[0].r, 0);
        assert_int_equal(res->devices[1].r, -ENODEV);
        assert_non_null(strstr(res->devices[1].message, "cannot open the device"));
        assert_int_equal(pass_exit_code(ENGINE_SAVE, res), UMS_EXIT_PARTIAL);
        assert_true(file_exists(dir, "0000:00:02.0.state"));
        assert_false(file_exists(dir, "0000:01:00.0.state"));
        assert_int_not_equal(hw_sim_vt_active(o.sim), 1); /* on the spare VT for the sleep */
        engine_result_free(TAKE_PTR(res));

        hw_sim_wake(o.sim);
        assert_false(hw_sim_display_live(o.sim));
        assert_int_equal(engine_run(&c, ENGINE_RESTORE, &res), 0);
        assert_int_equal(res->n_done, 1);
        assert_int_equal(res->devices[0].r, 0);
        assert_true(res->devices[1].no_state);
        assert_int_equal(pass_exit_code(ENGINE_RESTORE, res), UMS_EXIT_PARTIAL);
        assert_true(hw_sim_display_live(o.sim));
        assert_int_equal(hw_sim_vt_active(o.sim), 1);
        opener_done(&o);
        cleanup_dir(dir);
}

/* A save that fails leaves no older state that a restore could write back as this
 * sleep's: the previous file becomes .prev, and the restore writes nothing. */
static void test_failed_save_retires_the_old_state(void **s)
{
        _cleanup_(engine_result_freep) EngineResult *res = NULL;
        _cleanup_free_ char *root = NULL, *dir = NULL;
        Opener o = { 0 };
        EngineConfig c;
        (void)s;

        setup_config(&c, "stdvga-vgacon", &root, &dir, &o);
        assert_int_equal(engine_run(&c, ENGINE_SAVE, &res), 0);
        assert_int_equal(res->n_done, 1);
        assert_true(file_exists(dir, "0000:00:02.0.state"));
        engine_result_free(TAKE_PTR(res));

        o.fail_slot = "0000:00:02.0";
        assert_int_equal(engine_run(&c, ENGINE_SAVE, &res), 0);
        assert_int_equal(res->n_failed, 1);
        assert_false(file_exists(dir, "0000:00:02.0.state"));
        assert_true(file_exists(dir, "0000:00:02.0.state.prev"));
        engine_result_free(TAKE_PTR(res));

        o.fail_slot = NULL;
        hw_sim_wake(o.sim);
        hw_sim_log_clear(o.sim);
        assert_int_equal(engine_run(&c, ENGINE_RESTORE, &res), 0);
        assert_true(res->devices[0].no_state);
        assert_int_equal(pass_exit_code(ENGINE_RESTORE, res), UMS_EXIT_NO_STATE);
        assert_int_equal(hw_sim_access_count(o.sim), 0);
        opener_done(&o);
        cleanup_dir(dir);
}

/* A save killed after the console switch (here: its process dies in the switch) leaves an
 * undo file; the rollback pass puts the VT back and removes it. */
static void die_after_switch(HwSim *sim, void *userdata)
{
        (void)sim;
        (void)userdata;
        _exit(42);
}

static void test_rollback_after_killed_save(void **s)
{
        _cleanup_(engine_result_freep) EngineResult *res = NULL;
        _cleanup_free_ char *root = NULL, *dir = NULL;
        Opener o = { 0 };
        EngineConfig c;
        int status;
        pid_t pid;
        (void)s;

        setup_config(&c, "stdvga-vgacon", &root, &dir, &o);
        /* the simulator first, so the child and the parent start from the same device */
        make_sim(&c, &o, 3);
        pid = fork();
        assert_true(pid >= 0);
        if (pid == 0) {
                hw_sim_set_vt_hook(o.sim, die_after_switch, NULL);
                (void)engine_run(&c, ENGINE_SAVE, &res);
                _exit(0);
        }
        assert_int_equal(waitpid(pid, &status, 0), pid);
        assert_int_equal(WEXITSTATUS(status), 42);
        assert_true(file_exists(dir, "0000:00:02.0.undo"));
        assert_false(file_exists(dir, "0000:00:02.0.state"));

        /* the child's switch happened on the real machine: play it on the parent's copy */
        hw_sim_system_state(o.sim)->vt_active = 2;
        assert_int_equal(engine_run(&c, ENGINE_ROLLBACK, &res), 0);
        assert_int_equal(res->n_done, 1);
        assert_non_null(strstr(res->devices[0].methods, "console"));
        assert_int_equal(hw_sim_vt_active(o.sim), 1);
        assert_false(file_exists(dir, "0000:00:02.0.undo"));
        engine_result_free(TAKE_PTR(res));

        /* nothing left to roll back: a second pass touches nothing */
        hw_sim_log_clear(o.sim);
        assert_int_equal(engine_run(&c, ENGINE_ROLLBACK, &res), 0);
        assert_int_equal(res->n_done + res->n_failed, 0);
        assert_int_equal(hw_sim_access_count(o.sim), 0);
        opener_done(&o);
        cleanup_dir(dir);
}

/* A backlight that cannot be set does not keep the console from coming back: it is
 * restored after the VT switch. */
static void test_backlight_failure_after_console(void **s)
{
        _cleanup_(engine_result_freep) EngineResult *res = NULL;
        _cleanup_free_ char *root = NULL, *dir = NULL;
        Opener o = { 0 };
        EngineConfig c;
        (void)s;

        setup_config(&c, "stdvga-vgacon", &root, &dir, &o);
        /* create the simulator before the first pass, with a backlight */
        make_sim(&c, &o, 9);
        assert_int_equal(hw_sim_add_backlight(o.sim, "acpi_video0", 3, 10), 0);
        hw_sim_set_backlight_wake(o.sim, HW_SIM_BACKLIGHT_WAKE_MAX, 0);
        assert_int_equal(engine_run(&c, ENGINE_SAVE, &res), 0);
        assert_non_null(strstr(res->devices[0].methods, "backlight"));
        assert_non_null(strstr(res->devices[0].methods, "console"));
        engine_result_free(TAKE_PTR(res));

        hw_sim_wake(o.sim);
        assert_int_not_equal(hw_sim_vt_active(o.sim), 1);
        hw_sim_fail_type(o.sim, HW_SIM_BACKLIGHT_WRITE, true);
        assert_int_equal(engine_run(&c, ENGINE_RESTORE, &res), 0);
        assert_int_equal(res->devices[0].r, -EIO);
        assert_non_null(strstr(res->devices[0].message, "backlight"));
        /* console ran after the failed backlight: back on VT 1, display live */
        assert_int_equal(hw_sim_vt_active(o.sim), 1);
        assert_true(hw_sim_display_live(o.sim));
        opener_done(&o);
        cleanup_dir(dir);
}

/* When the VGA restore fails, the console is not switched back over the dead hardware
 * (vgacon would copy the text through it): the restore stops at the first failure. */
static void test_no_console_switch_over_failed_hardware(void **s)
{
        _cleanup_(engine_result_freep) EngineResult *res = NULL;
        _cleanup_free_ char *root = NULL, *dir = NULL;
        Opener o = { 0 };
        EngineConfig c;
        unsigned spare;
        (void)s;

        setup_config(&c, "stdvga-vgacon", &root, &dir, &o);
        assert_int_equal(engine_run(&c, ENGINE_SAVE, &res), 0);
        assert_non_null(strstr(res->devices[0].methods, "console"));
        engine_result_free(TAKE_PTR(res));

        hw_sim_wake(o.sim);
        spare = hw_sim_vt_active(o.sim);
        assert_int_not_equal(spare, 1);
        hw_sim_log_clear(o.sim);
        hw_sim_fail_type(o.sim, HW_SIM_MEM_WRITE, true); /* the planes cannot be written */
        assert_int_equal(engine_run(&c, ENGINE_RESTORE, &res), 0);
        assert_int_equal(res->devices[0].r, -EIO);
        assert_non_null(strstr(res->devices[0].message, "vga"));
        assert_int_equal(hw_sim_vt_active(o.sim), spare);
        assert_int_equal(hw_sim_count_type(o.sim, HW_SIM_VT_ACTIVATE), 0);

        /* once the hardware takes writes again, a second --restore-now finishes the job */
        hw_sim_fail_type(o.sim, HW_SIM_MEM_WRITE, false);
        engine_result_free(TAKE_PTR(res));
        assert_int_equal(engine_run(&c, ENGINE_RESTORE, &res), 0);
        assert_int_equal(res->devices[0].r, 0);
        assert_int_equal(hw_sim_vt_active(o.sim), 1);
        assert_true(hw_sim_display_live(o.sim));
        opener_done(&o);
        cleanup_dir(dir);
}

/* The MSI Wind U100 through the engine: intel restores before vga (the VGA state goes back
 * onto a running pipe); a PLL that never locks stops the restore with a message that names
 * the register, and nothing after it runs (no vga, no switch back to the console). */
static void test_msi_wind_intel_before_vga(void **s)
{
        static const uint32_t running[][2] = {
                { 0x06048, 0x00021207 }, { 0x0604c, 0x00021207 }, { 0x06018, 0x98046000 },
                { 0x61000, 0x053f03ff }, { 0x6100c, 0x02740257 }, { 0x6101c, 0x03ff0257 },
                { 0x71008, 0x80000000 }, { 0x70180, 0x99000000 }, { 0x70188, 0x00001000 },
                { 0x71400, 0x80000000 }, { 0x61180, 0xc0300300 }, { 0x61208, 0x01f407d0 },
                { 0x61204, 0xabcd0001 }, { 0x61254, 0x60166016 },
        };
        _cleanup_(engine_result_freep) EngineResult *res = NULL;
        _cleanup_free_ char *root = NULL, *dir = NULL;
        _cleanup_(sim_intel_freep) SimIntel *si = NULL;
        size_t n, first_mmio = SIZE_MAX, first_port = SIZE_MAX;
        const HwSimAccess *log;
        Opener o = { 0 };
        EngineConfig c;
        unsigned spare;
        (void)s;

        setup_config(&c, "msi-wind-u100", &root, &dir, &o);
        c.survey.only_device = "0000:00:02.0";
        make_sim(&c, &o, 4);
        assert_int_equal(sim_intel_new(o.sim, 3, &si), 0);
        for (size_t i = 0; i < ELEMENTSOF(running); i++)
                sim_intel_set(si, running[i][0], running[i][1]);
        assert_int_equal(engine_run(&c, ENGINE_SAVE, &res), 0);
        assert_int_equal(res->devices[0].r, 0);
        assert_string_equal(res->devices[0].methods, "console, dpms, vga, intel, pci-config");
        engine_result_free(TAKE_PTR(res));

        hw_sim_wake(o.sim);
        sim_intel_wake(si);
        hw_sim_log_clear(o.sim);
        assert_int_equal(engine_run(&c, ENGINE_RESTORE, &res), 0);
        if (res->devices[0].r != 0)
                fail_msg("restore: %s", res->devices[0].message);
        assert_int_equal(res->devices[0].mismatches, 0);
        assert_true(sim_intel_pipe_running(si, 1));
        assert_true(sim_intel_panel_on(si));
        log = hw_sim_log(o.sim, &n);
        for (size_t i = 0; i < n; i++) {
                if (log[i].type == HW_SIM_MMIO_WRITE && first_mmio == SIZE_MAX)
                        first_mmio = i;
                if (log[i].type == HW_SIM_IO_WRITE && first_port == SIZE_MAX)
                        first_port = i;
        }
        assert_true(first_mmio < first_port);
        engine_result_free(TAKE_PTR(res));

        /* Again, with a PLL that never locks. */
        hw_sim_wake(o.sim);
        sim_intel_wake(si);
        spare = hw_sim_vt_active(o.sim);
        sim_intel_set_pll_never_locks(si, 1, true);
        hw_sim_log_clear(o.sim);
        assert_int_equal(engine_run(&c, ENGINE_RESTORE, &res), 0);
        assert_int_equal(res->devices[0].r, -ETIMEDOUT);
        if (!strstr(res->devices[0].message, "method intel: restore failed: PIPEB_DSL = ") ||
            !strstr(res->devices[0].message, "expected it to move"))
                fail_msg("message: %s", res->devices[0].message);
        assert_int_equal(hw_sim_count_type(o.sim, HW_SIM_IO_WRITE), 0);
        assert_int_equal(hw_sim_count_type(o.sim, HW_SIM_VT_ACTIVATE), 0);
        assert_int_equal(hw_sim_vt_active(o.sim), spare);
        opener_done(&o);
        cleanup_dir(dir);
}

/* The Radeon Mobility M6 laptop through the engine: radeon restores after pci-config and
 * before vga (the panel is lit, its backlight last, before the first VGA port write); a
 * panel register that does not take its value stops the restore with a message naming it,
 * and nothing after it runs (no vga, no switch back to the console). */
static void test_radeon_m6_panel_before_vga(void **s)
{
        _cleanup_(engine_result_freep) EngineResult *res = NULL;
        _cleanup_free_ char *root = NULL, *dir = NULL;
        _cleanup_(sim_radeon_freep) SimRadeon *sr = NULL;
        size_t n, backlight = SIZE_MAX, first_port = SIZE_MAX;
        const HwSimAccess *log;
        Opener o = { 0 };
        EngineConfig c;
        unsigned spare;
        (void)s;

        setup_config(&c, "radeon-m6-vgacon", &root, &dir, &o);
        make_sim(&c, &o, 6);
        assert_int_equal(sim_radeon_new(o.sim, true, &sr), 0);
        sim_radeon_wake_posted(sr);
        assert_int_equal(engine_run(&c, ENGINE_SAVE, &res), 0);
        if (res->devices[0].r != 0)
                fail_msg("save: %s", res->devices[0].message);
        assert_string_equal(res->devices[0].methods, "console, dpms, vga, radeon, pci-config");
        engine_result_free(TAKE_PTR(res));

        hw_sim_wake(o.sim);
        sim_radeon_wake(sr);
        assert_false(sim_radeon_panel_lit(sr));
        hw_sim_log_clear(o.sim);
        assert_int_equal(engine_run(&c, ENGINE_RESTORE, &res), 0);
        if (res->devices[0].r != 0)
                fail_msg("restore: %s", res->devices[0].message);
        assert_int_equal(res->devices[0].mismatches, 0);
        assert_true(sim_radeon_panel_lit(sr));
        assert_true(hw_sim_display_live(o.sim));
        assert_int_equal(hw_sim_vt_active(o.sim), 1);
        log = hw_sim_log(o.sim, &n);
        for (size_t i = 0; i < n; i++) {
                if (log[i].type == HW_SIM_MMIO_WRITE && log[i].offset == 0x2d0 && (log[i].value & (1u << 19)))
                        backlight = i;
                if (log[i].type == HW_SIM_IO_WRITE && first_port == SIZE_MAX)
                        first_port = i;
        }
        assert_true(backlight < first_port);
        engine_result_free(TAKE_PTR(res));

        /* Again, on a chip whose LVDS PLL register does not take its value. */
        hw_sim_wake(o.sim);
        sim_radeon_free(TAKE_PTR(sr));
        assert_int_equal(sim_radeon_new(o.sim, false, &sr), 0);
        spare = hw_sim_vt_active(o.sim);
        hw_sim_log_clear(o.sim);
        assert_int_equal(engine_run(&c, ENGINE_RESTORE, &res), 0);
        assert_int_equal(res->devices[0].r, -EIO);
        if (!strstr(res->devices[0].message, "method radeon: restore failed: LVDS_PLL_CNTL = 0x00000000"))
                fail_msg("message: %s", res->devices[0].message);
        assert_int_equal(hw_sim_count_type(o.sim, HW_SIM_IO_WRITE), 0);
        assert_int_equal(hw_sim_count_type(o.sim, HW_SIM_VT_ACTIVATE), 0);
        assert_int_equal(hw_sim_vt_active(o.sim), spare);
        opener_done(&o);
        cleanup_dir(dir);
}

int main(int argc, char *argv[])
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_kms_only_machine_never_opens),
                cmocka_unit_test(test_mixed_machine_touches_only_the_managed_device),
                cmocka_unit_test(test_only_device_kms_is_not_touched),
                cmocka_unit_test(test_refused_state_never_opens),
                cmocka_unit_test(test_foreign_and_unusable_never_open),
                cmocka_unit_test(test_failed_save_rolls_back),
                cmocka_unit_test(test_one_failing_device_does_not_cost_the_other),
                cmocka_unit_test(test_failed_save_retires_the_old_state),
                cmocka_unit_test(test_rollback_after_killed_save),
                cmocka_unit_test(test_backlight_failure_after_console),
                cmocka_unit_test(test_no_console_switch_over_failed_hardware),
                cmocka_unit_test(test_msi_wind_intel_before_vga),
                cmocka_unit_test(test_radeon_m6_panel_before_vga),
        };
        if (argc != 2) {
                fprintf(stderr, "usage: %s TESTDATA-DIR\n", argv[0]);
                return 2;
        }
        data_dir = argv[1];
        return cmocka_run_group_tests(tests, NULL, NULL);
}
