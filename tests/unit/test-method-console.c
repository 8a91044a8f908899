/* SPDX-License-Identifier: MIT */
/* Unit tests for the "console" method and the VT part of the hw interface on the simulator:
 * save -> sleep -> restore moves to a spare VT and back, bounded waits, the switch back
 * after the last hardware write (engine order), payload validation, dump. */
#include <sys/stat.h>

#include "engine.h"
#include "hw-sim-file.h"
#include "sim-fixture.h"
#include "methods/console.h"
#include "methods/vga.h"

static const char *data_dir;

/* save() then commit() as the engine runs them; on failure nothing is kept in out, as the
 * engine then drops the section. */
static int save_and_commit(Fixture *f, Buffer *out)
{
        size_t start = out->size;
        int r;

        r = method_console.save(f->hw, f->hw->device, out);
        if (r >= 0)
                r = method_console.commit(f->hw, f->hw->device, out->data + start, out->size - start);
        if (r < 0)
                out->size = start;
        return r;
}

static void save(Fixture *f)
{
        buffer_done(&f->payload);
        assert_int_equal(save_and_commit(f, &f->payload), 0);
        assert_int_equal(method_console.check(f->payload.data, f->payload.size), 0);
}

static size_t count_activates(HwSim *sim, unsigned vt)
{
        const HwSimAccess *log;
        size_t n, c = 0;

        log = hw_sim_log(sim, &n);
        for (size_t i = 0; i < n; i++)
                if (log[i].type == HW_SIM_VT_ACTIVATE && log[i].value == vt)
                        c++;
        return c;
}

static void test_probe(void **state)
{
        Fixture *f = *state;
        DisplayDevice d = *f->hw->device;
        HwSimSystemState *sys = hw_sim_system_state(f->sim);

        assert_string_equal(method_console.name, "console");
        assert_int_equal(method_console.id, 3);
        assert_int_equal(method_console.version, 1);
        assert_int_equal(method_console.probe(f->hw, NULL), -EINVAL);

        /* Boot VGA with VTs: yes, and probing switches nothing. */
        assert_true(d.boot_vga);
        assert_int_equal(method_console.probe(f->hw, &d), 1);
        assert_int_equal(hw_sim_count_type(f->sim, HW_SIM_VT_ACTIVATE), 0);
        assert_int_equal(hw_sim_vt_active(f->sim), 1);

        /* The only display device, even if not flagged boot VGA: yes. */
        d.boot_vga = false;
        d.needs_vga_arbiter = false;
        assert_int_equal(method_console.probe(f->hw, &d), 1);

        /* A second GPU: no, and the VTs are not even asked. */
        d.needs_vga_arbiter = true;
        hw_sim_log_clear(f->sim);
        assert_int_equal(method_console.probe(f->hw, &d), 0);
        assert_int_equal(hw_sim_access_count(f->sim), 0);
        d.boot_vga = true;
        assert_int_equal(method_console.probe(f->hw, &d), 1);

        /* No VT subsystem (serial-only machine): no. */
        sys->vt_present = 0;
        assert_int_equal(method_console.probe(f->hw, &d), 0);
        sys->vt_present = 1;

        /* Every VT held open: nowhere to go, no. */
        sys->vt_open = ~UINT64_C(0);
        assert_int_equal(method_console.probe(f->hw, &d), 0);
        /* Only the active VT is free (nobody has it open): no other spare is known, no. */
        sys->vt_open = ~UINT64_C(0) & ~(UINT64_C(1) << 1);
        assert_int_equal(method_console.probe(f->hw, &d), 0);
        sys->vt_open = UINT64_C(1) << 1;
        assert_int_equal(method_console.probe(f->hw, &d), 1);

        /* Other errors are errors. */
        hw_sim_set_forbid(f->sim, true);
        assert_int_equal(method_console.probe(f->hw, &d), -EPERM);
        hw_sim_set_forbid(f->sim, false);
}

static void test_roundtrip(void **state)
{
        Fixture *f = *state;
        HwSimSystemState *sys = hw_sim_system_state(f->sim);
        _cleanup_(buffer_done) Buffer report = { 0 };

        /* tty1-tty6 have gettys, X runs on VT 7 and is active. */
        sys->vt_open = 0xFE;
        sys->vt_active = 7;
        save(f);
        assert_int_equal(f->payload.size, CONSOLE_PAYLOAD_SIZE);
        assert_int_equal(f->payload.data[CONSOLE_OFF_ORIGINAL], 7);
        assert_int_equal(f->payload.data[CONSOLE_OFF_SPARE], 15);
        assert_int_equal(hw_sim_vt_active(f->sim), 15);

        /* The kernel goes to VT 63 for the sleep and back to VT 15 on resume. */
        hw_sim_wake(f->sim);
        assert_int_equal(hw_sim_vt_active(f->sim), 15);
        assert_int_equal(
                method_console.verify(f->hw, f->hw->device, f->payload.data, f->payload.size, &report), 1);
        assert_string_equal(buffer_str(&report), "active VT = 15, expected 7 (the VT before sleep)\n");

        hw_sim_log_clear(f->sim);
        assert_int_equal(method_console.restore(f->hw, f->hw->device, f->payload.data, f->payload.size), 0);
        assert_int_equal(hw_sim_vt_active(f->sim), 7);
        assert_int_equal(count_activates(f->sim, 7), 1);
        assert_int_equal(hw_sim_count_type(f->sim, HW_SIM_VT_ACTIVATE), 1);

        buffer_done(&report);
        assert_int_equal(
                method_console.verify(f->hw, f->hw->device, f->payload.data, f->payload.size, &report), 0);
        assert_int_equal(report.size, 0);
        assert_int_equal(hw_sim_errors(f->sim), 0);
}

/* The spare is picked as the system backend picks it: the highest of VTs 2-15 neither open nor active,
 * else the lowest free VT above them. */
static void test_spare_choice(void **state)
{
        Fixture *f = *state;
        HwSimSystemState *sys = hw_sim_system_state(f->sim);

        sys->vt_open = 0xFFFE & ~(UINT64_C(1) << 9 | UINT64_C(1) << 3); /* 1-15 open but 3 and 9 */
        sys->vt_active = 15;
        save(f);
        assert_int_equal(f->payload.data[CONSOLE_OFF_ORIGINAL], 15);
        assert_int_equal(f->payload.data[CONSOLE_OFF_SPARE], 9);
        assert_int_equal(method_console.restore(f->hw, f->hw->device, f->payload.data, f->payload.size), 0);

        sys->vt_open = 0xFFFE; /* 1-15 open */
        sys->vt_active = 1;
        save(f);
        assert_int_equal(f->payload.data[CONSOLE_OFF_SPARE], 16);
        assert_int_equal(method_console.restore(f->hw, f->hw->device, f->payload.data, f->payload.size), 0);
        assert_int_equal(hw_sim_vt_active(f->sim), 1);
}

static void test_wake_on_vt63(void **state)
{
        Fixture *f = *state;

        save(f);
        assert_int_equal(f->payload.data[CONSOLE_OFF_ORIGINAL], 1);
        assert_int_equal(f->payload.data[CONSOLE_OFF_SPARE], 15);
        /* A resume that left the kernel's suspend VT active. */
        hw_sim_set_wake_vt(f->sim, 63);
        hw_sim_wake(f->sim);
        assert_int_equal(hw_sim_vt_active(f->sim), 63);
        assert_int_equal(method_console.restore(f->hw, f->hw->device, f->payload.data, f->payload.size), 0);
        assert_int_equal(hw_sim_vt_active(f->sim), 1);
}

static void test_restore_when_already_back(void **state)
{
        Fixture *f = *state;

        save(f);
        hw_sim_system_state(f->sim)->vt_active = 1; /* someone switched back already */
        hw_sim_log_clear(f->sim);
        assert_int_equal(method_console.restore(f->hw, f->hw->device, f->payload.data, f->payload.size), 0);
        assert_int_equal(hw_sim_count_type(f->sim, HW_SIM_VT_ACTIVATE), 0);
        assert_int_equal(hw_sim_vt_active(f->sim), 1);
}

static void test_slow_switch_waits(void **state)
{
        Fixture *f = *state;

        /* The switch takes effect on the 4th look: save waits for it, three polls long. */
        hw_sim_set_vt_switch_polls(f->sim, 4);
        hw_sim_log_clear(f->sim);
        save(f);
        assert_int_equal(hw_sim_vt_active(f->sim), 15);
        assert_int_equal(hw_sim_delay_total_us(f->sim), 3 * HW_VT_POLL_USEC);
}

static void test_switch_timeout_is_bounded(void **state)
{
        Fixture *f = *state;
        Buffer out = { 0 };
        uint8_t p[CONSOLE_PAYLOAD_SIZE] = { 1, 2 };

        /* The active VT's owner never lets go: save gives up after the bound, appends
         * nothing and leaves the machine where it was. */
        hw_sim_set_vt_switch_polls(f->sim, HW_SIM_VT_SWITCH_NEVER);
        assert_int_equal(save_and_commit(f, &out), -ETIMEDOUT);
        assert_int_equal(out.size, 0);
        assert_int_equal(hw_sim_vt_active(f->sim), 1);
        assert_true(hw_sim_delay_total_us(f->sim) >= HW_VT_SWITCH_TIMEOUT_USEC);
        assert_true(hw_sim_delay_total_us(f->sim) <= HW_VT_SWITCH_TIMEOUT_USEC + HW_VT_POLL_USEC);
        buffer_done(&out);

        /* The same on restore, from a spare VT someone opened meanwhile. */
        hw_sim_system_state(f->sim)->vt_active = 2;
        hw_sim_system_state(f->sim)->vt_open |= UINT64_C(1) << 2;
        assert_int_equal(method_console.restore(f->hw, f->hw->device, p, sizeof(p)), -ETIMEDOUT);
        assert_int_equal(hw_sim_vt_active(f->sim), 2);

        /* The wrapper itself: a 20 ms bound is 4 polls. */
        hw_sim_log_clear(f->sim);
        assert_int_equal(hw_vt_switch(f->hw, 5, 20000), -ETIMEDOUT);
        assert_int_equal(hw_sim_count_type(f->sim, HW_SIM_VT_GET_ACTIVE), 5);
        assert_int_equal(hw_sim_count_type(f->sim, HW_SIM_DELAY), 4);
        assert_int_equal(hw_vt_switch(f->hw, 0, 20000), -EINVAL);
        assert_int_equal(hw_vt_switch(f->hw, 64, 20000), -EINVAL);
}

/* A switch that completes only after save gave up: save moves back to the original VT. */
static void test_late_switch_is_undone(void **state)
{
        Fixture *f = *state;
        Buffer out = { 0 };
        unsigned polls = HW_VT_SWITCH_TIMEOUT_USEC / HW_VT_POLL_USEC + 2;

        hw_sim_set_vt_switch_polls(f->sim, polls);
        hw_sim_log_clear(f->sim);
        assert_int_equal(save_and_commit(f, &out), -ETIMEDOUT);
        assert_int_equal(out.size, 0);
        assert_int_equal(hw_sim_vt_active(f->sim), 1);
        assert_int_equal(count_activates(f->sim, 15), 1);
        assert_int_equal(count_activates(f->sim, 1), 1);
        buffer_done(&out);
}

static void test_no_vts(void **state)
{
        Fixture *f = *state;
        Buffer out = { 0 };
        uint8_t p[CONSOLE_PAYLOAD_SIZE] = { 1, 2 };
        unsigned vt;

        hw_sim_system_state(f->sim)->vt_present = 0;
        assert_int_equal(hw_vt_get_active(f->hw, &vt), -ENOENT);
        assert_int_equal(hw_vt_find_free(f->hw, &vt), -ENOENT);
        assert_int_equal(save_and_commit(f, &out), -ENOENT);
        assert_int_equal(out.size, 0);
        assert_int_equal(method_console.restore(f->hw, f->hw->device, p, sizeof(p)), -ENOENT);
        buffer_done(&out);
}

/* Runs every method of the table that applies, in table order (save) or backwards
 * (restore), as the engine does. */
static void run_table(Fixture *f, bool restore, Buffer payloads[])
{
        for (size_t k = 0; k < method_table_size; k++) {
                size_t i = restore ? method_table_size - 1 - k : k;
                const MethodOps *m = method_table[i];

                if (!restore) {
                        int p = m->probe(f->hw, f->hw->device);
                        assert_true(p >= 0);
                        if (p == 0)
                                continue;
                        assert_int_equal(m->save(f->hw, f->hw->device, &payloads[i]), 0);
                        if (m->commit)
                                assert_int_equal(m->commit(f->hw, f->hw->device, payloads[i].data, payloads[i].size),
                                                 0);
                } else if (payloads[i].size > 0)
                        assert_int_equal(
                                m->restore(f->hw, f->hw->device, payloads[i].data, payloads[i].size), 0);
        }
}

/* A write that programs something: not an index register write (which the read rituals
 * of verify do too). */
static bool programs_device(const HwSimAccess *a)
{
        switch (a->type) {
        case HW_SIM_MEM_WRITE:
        case HW_SIM_CFG_WRITE:
        case HW_SIM_MMIO_WRITE:
                return true;
        case HW_SIM_IO_WRITE:
                if (a->port == 0x3C0)
                        return a->ar_flipflop_data;
                return a->port == 0x3C2 || a->port == 0x3C5 || a->port == 0x3C6 || a->port == 0x3C9 ||
                       a->port == 0x3CF || a->port == 0x3D5 || a->port == 0x3B5 || a->port == 0x1CF;
        default:
                return false;
        }
}

/* The last VT switch of a restore comes after the last write that programs the device,
 * and the display is live when it happens: the kernel redraws onto programmed hardware. */
static void assert_switch_back_last(HwSim *sim, unsigned original)
{
        const HwSimAccess *log;
        size_t n, last_write = 0, last_switch = SIZE_MAX;

        log = hw_sim_log(sim, &n);
        for (size_t i = 0; i < n; i++) {
                HwSimAccessType t = log[i].type;
                if (programs_device(&log[i]))
                        last_write = i;
                if (t == HW_SIM_VT_ACTIVATE)
                        last_switch = i;
        }
        if (last_switch == SIZE_MAX || last_switch < last_write || !log[last_switch].display_live) {
                print_log(sim);
                fail_msg("switch back at #%zd (display %s), last write at #%zu",
                         last_switch == SIZE_MAX ? (ssize_t)-1 : (ssize_t)last_switch,
                         last_switch != SIZE_MAX && log[last_switch].display_live ? "live" : "off",
                         last_write);
        }
        assert_int_equal(log[last_switch].value, original);
}

static void test_order_with_the_table(void **state)
{
        Fixture *f = *state;
        Buffer payloads[16] = { { 0 } };
        const MethodOps *order[] = { method_by_name("backlight"), method_by_name("console"),
                                     method_by_name("dpms"), method_by_name("vga"),
                                     method_by_name("bochs"), method_by_name("radeon"),
                                     method_by_name("vbe"),
                                     method_by_name("intel"), method_by_name("pci-config") };

        /* The table is in the documented save order. */
        assert_int_equal(method_table_size, ELEMENTSOF(order));
        assert_true(method_table_size <= ELEMENTSOF(payloads));
        for (size_t i = 0; i < ELEMENTSOF(order); i++)
                assert_ptr_equal(method_table[i], order[i]);

        hw_sim_load_mode3(f->sim);
        hw_sim_fill_planes(f->sim, 11);
        assert_int_equal(hw_sim_add_backlight(f->sim, "acpi_video0", 6, 15), 0);
        hw_sim_set_backlight_wake(f->sim, HW_SIM_BACKLIGHT_WAKE_MAX, 0);

        /* Save: the VT switch comes before the first register is read, so the other methods
         * save the spare VT's console. */
        hw_sim_log_clear(f->sim);
        run_table(f, false, payloads);
        {
                const HwSimAccess *log;
                size_t n, first_io = SIZE_MAX, activate = SIZE_MAX;
                log = hw_sim_log(f->sim, &n);
                for (size_t i = 0; i < n; i++) {
                        if (log[i].type == HW_SIM_IO_READ && first_io == SIZE_MAX)
                                first_io = i;
                        if (log[i].type == HW_SIM_VT_ACTIVATE && activate == SIZE_MAX)
                                activate = i;
                }
                assert_true(activate < first_io);
        }
        assert_int_equal(hw_sim_vt_active(f->sim), 15);

        hw_sim_wake_full(f->sim);
        assert_false(hw_sim_display_live(f->sim));
        hw_sim_log_clear(f->sim);
        run_table(f, true, payloads);
        assert_switch_back_last(f->sim, 1);
        assert_int_equal(hw_sim_vt_active(f->sim), 1);
        assert_true(hw_sim_display_live(f->sim));
        assert_int_equal(hw_sim_backlight(f->sim, "acpi_video0")->brightness, 6);

        /* The check above can fail: the console restore run before vga switches while the
         * display is still off. */
        hw_sim_wake_full(f->sim);
        hw_sim_system_state(f->sim)->vt_active = 2;
        hw_sim_log_clear(f->sim);
        assert_int_equal(method_console.restore(f->hw, f->hw->device, payloads[1].data, payloads[1].size),
                         0);
        {
                size_t n;
                const HwSimAccess *log = hw_sim_log(f->sim, &n);
                bool found = false;
                for (size_t i = 0; i < n; i++)
                        if (log[i].type == HW_SIM_VT_ACTIVATE) {
                                assert_false(log[i].display_live);
                                found = true;
                        }
                assert_true(found);
        }

        for (size_t i = 0; i < ELEMENTSOF(payloads); i++)
                buffer_done(&payloads[i]);
}

static void test_malformed_payloads(void **state)
{
        Fixture *f = *state;
        uint8_t p[4] = { 1, 2, 0, 0 };

        hw_sim_system_state(f->sim)->vt_active = 2;
        assert_int_equal(method_console.check(p, 2), 0);
        assert_method_refuses_without_access(f, &method_console, p, 0);
        assert_method_refuses_without_access(f, &method_console, p, 1);
        assert_method_refuses_without_access(f, &method_console, p, 3);
        assert_method_refuses_without_access(f, &method_console, NULL, 0);
        assert_method_refuses_without_access(f, &method_console, NULL, 2);

        const uint8_t bad[][2] = { { 0, 2 }, { 1, 0 }, { 64, 2 }, { 1, 64 }, { 255, 1 }, { 3, 3 } };
        for (size_t i = 0; i < ELEMENTSOF(bad); i++)
                assert_method_refuses_without_access(f, &method_console, bad[i], 2);

        const uint8_t edge[2] = { 63, 1 };
        assert_int_equal(method_console.check(edge, 2), 0);
        assert_int_equal(hw_sim_vt_active(f->sim), 2);
}

static void test_dump(void **state)
{
        Fixture *f = *state;
        _cleanup_(buffer_done) Buffer text = { 0 }, json = { 0 };

        save(f);
        assert_int_equal(method_console.dump(f->payload.data, f->payload.size, false, &text), 0);
        assert_string_equal(
                buffer_str(&text),
                "console: VT 1 was active before sleep; moved to spare VT 15, back to VT 1 after the "
                "restore\n");
        assert_int_equal(method_console.dump(f->payload.data, f->payload.size, true, &json), 0);
        assert_string_equal(buffer_str(&json), "{\"original_vt\":1,\"spare_vt\":15}");
        assert_int_equal(method_console.dump(f->payload.data, f->payload.size, true, NULL), -EINVAL);
}

/* A backend without VT and backlight ops falls back to the real system's: the answer is
 * the machine's (whatever it is here), never "not supported". Only read-only queries. */
static void test_null_ops_fall_back_to_the_system(void **state)
{
        static const HwOps bare = { .name = "bare" };
        Hw hw = { .ops = &bare };
        unsigned vt = 0;
        int r;

        (void)state;
        r = hw_vt_get_active(&hw, &vt);
        assert_int_not_equal(r, -EOPNOTSUPP);
        if (r >= 0)
                assert_true(vt >= 1 && vt <= HW_VT_MAX);
        r = hw_backlight_list(&hw, NULL, 0);
        assert_int_not_equal(r, -EOPNOTSUPP);
        assert_int_equal(hw_vt_get_active(NULL, &vt), -EINVAL);
}

/* The simulator image keeps the VTs and backlights across processes (--save-now and
 * --restore-now with the test switch), and an image from before the trailer still loads. */
static void test_sim_file_keeps_the_machine(void **state)
{
        Fixture *f = *state;
        char dir[] = "/tmp/umsrestore-simfile-XXXXXX", path[64], cmd[96];
        HwSim *loaded = NULL;
        struct stat st;

        assert_non_null(mkdtemp(dir));
        snprintf(path, sizeof(path), "%s/sim", dir);
        hw_sim_system_state(f->sim)->vt_active = 5;
        hw_sim_system_state(f->sim)->vt_open = 0x3E;
        assert_int_equal(hw_sim_add_backlight(f->sim, "intel_backlight", 321, 999), 0);
        assert_int_equal(hw_sim_file_store(f->sim, path), 0);

        assert_int_equal(hw_sim_file_load(path, NULL, &loaded), 0);
        assert_int_equal(hw_sim_vt_active(loaded), 5);
        assert_int_equal(hw_sim_system_state(loaded)->vt_open, 0x3E);
        assert_non_null(hw_sim_backlight(loaded, "intel_backlight"));
        assert_int_equal(hw_sim_backlight(loaded, "intel_backlight")->brightness, 321);
        loaded = hw_sim_unref(loaded);

        /* Without the trailer (an older image; the trailer is 16 bytes of header and the
         * state): the defaults. */
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(truncate(path, st.st_size - (off_t)(sizeof(HwSimSystemState) + 16)), 0);
        assert_int_equal(hw_sim_file_load(path, NULL, &loaded), 0);
        assert_int_equal(hw_sim_vt_active(loaded), 1);
        assert_null(hw_sim_backlight(loaded, "intel_backlight"));
        loaded = hw_sim_unref(loaded);

        /* A cut trailer is not an image. */
        assert_int_equal(truncate(path, st.st_size - 1), 0);
        assert_int_equal(hw_sim_file_load(path, NULL, &loaded), -EBADMSG);
        assert_null(loaded);

        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
        assert_int_equal(system(cmd), 0);
}

/* ---- through the engine ---------------------------------------------------------- */

static int sim_open(const DisplayDevice *d, void *userdata, Hw **ret)
{
        return hw_sim_open_func(d, userdata, ret);
}

typedef struct EngineSetup {
        HwBackend backend;
        RunDir *rundir;
        char *root, *dir;
} EngineSetup;

/* An engine on the simulated std VGA in text mode 3, its planes filled from seed. */
static void engine_setup(EngineConfig *c, HwSim *sim, EngineSetup *e, uint32_t seed)
{
        hw_sim_load_mode3(sim);
        hw_sim_fill_planes(sim, seed);
        assert_true(asprintf(&e->root, "%s/machines/stdvga-vgacon", data_dir) > 0);
        e->dir = strdup("/tmp/umsrestore-console-XXXXXX");
        assert_non_null(e->dir);
        assert_non_null(mkdtemp(e->dir));
        engine_config_default(c);
        c->survey.root = e->root;
        c->survey.pci_source = pci_source_sysfs;
        c->survey.classify_env =
                (ClassifyEnv){ .root = e->root, .euid = 0, .check_modesetting = NULL, .legacy_io = 1 };
        e->backend = (HwBackend){ .name = "sim", .open = sim_open, .userdata = sim };
        c->hw = &e->backend;
        assert_int_equal(rundir_open(e->dir, geteuid(), false, &e->rundir, NULL), 0);
        c->rundir = e->rundir;
}

static void engine_cleanup(EngineSetup *e)
{
        char cmd[256];
        snprintf(cmd, sizeof(cmd), "rm -rf '%s'", e->dir);
        assert_int_equal(system(cmd), 0);
        e->rundir = rundir_free(e->rundir);
        e->root = mfree(e->root);
        e->dir = mfree(e->dir);
}

static void test_engine_roundtrip(void **state)
{
        Fixture *f = *state;
        _cleanup_(engine_result_freep) EngineResult *res = NULL;
        EngineSetup e = { 0 };
        EngineConfig c;

        engine_setup(&c, f->sim, &e, 21);
        assert_int_equal(hw_sim_add_backlight(f->sim, "intel_backlight", 3000, 7500), 0);
        hw_sim_set_backlight_wake(f->sim, HW_SIM_BACKLIGHT_WAKE_MAX, 0);

        assert_int_equal(engine_run(&c, ENGINE_SAVE, &res), 0);
        assert_string_equal(res->devices[0].methods, "backlight, console, dpms, vga, bochs, pci-config");
        assert_int_equal(hw_sim_vt_active(f->sim), 15);
        engine_result_free(TAKE_PTR(res));

        hw_sim_wake_full(f->sim);
        hw_sim_log_clear(f->sim);
        assert_int_equal(engine_run(&c, ENGINE_RESTORE, &res), 0);
        if (res->devices[0].r != 0)
                fprintf(stderr, "%s\n", res->devices[0].message);
        assert_string_equal(res->devices[0].methods, "pci-config, bochs, vga, dpms, console, backlight");
        assert_int_equal(res->devices[0].mismatches, 0);
        assert_int_equal(hw_sim_vt_active(f->sim), 1);
        assert_int_equal(hw_sim_backlight(f->sim, "intel_backlight")->brightness, 3000);
        assert_true(hw_sim_display_live(f->sim));
        assert_switch_back_last(f->sim, 1);
        engine_result_free(TAKE_PTR(res));

        /* The config switch leaves the console out: no VT switch at all. */
        c.survey.console_switch = false;
        hw_sim_log_clear(f->sim);
        assert_int_equal(engine_run(&c, ENGINE_SAVE, &res), 0);
        assert_string_equal(res->devices[0].methods, "backlight, dpms, vga, bochs, pci-config");
        assert_int_equal(hw_sim_count_type(f->sim, HW_SIM_VT_ACTIVATE), 0);
        assert_int_equal(hw_sim_vt_active(f->sim), 1);
        engine_cleanup(&e);
}

/* A second save before any restore (--save-now twice, or a sleep hook's save after a manual
 * one) finds the console on the first save's spare VT: the restore after it still goes back to
 * the VT the user was on before the first save. */
static void test_engine_second_save_keeps_the_original_vt(void **state)
{
        Fixture *f = *state;
        _cleanup_(engine_result_freep) EngineResult *res = NULL;
        EngineSetup e = { 0 };
        EngineConfig c;

        engine_setup(&c, f->sim, &e, 22);

        assert_int_equal(engine_run(&c, ENGINE_SAVE, &res), 0);
        assert_int_equal(res->devices[0].r, 0);
        assert_int_not_equal(hw_sim_vt_active(f->sim), 1);
        engine_result_free(TAKE_PTR(res));

        assert_int_equal(engine_run(&c, ENGINE_SAVE, &res), 0);
        if (res->devices[0].r != 0)
                fprintf(stderr, "%s\n", res->devices[0].message);
        assert_int_equal(res->devices[0].r, 0);
        engine_result_free(TAKE_PTR(res));

        hw_sim_wake_full(f->sim);
        assert_int_equal(engine_run(&c, ENGINE_RESTORE, &res), 0);
        if (res->devices[0].r != 0)
                fprintf(stderr, "%s\n", res->devices[0].message);
        assert_int_equal(res->devices[0].r, 0);
        assert_int_equal(hw_sim_vt_active(f->sim), 1);
        assert_true(hw_sim_display_live(f->sim));
        engine_result_free(TAKE_PTR(res));

        /* After a restore nothing is handed on: a user who went to that VT by hand since
         * comes back to it. */
        hw_sim_system_state(f->sim)->vt_active = 2;
        assert_int_equal(engine_run(&c, ENGINE_SAVE, &res), 0);
        assert_int_equal(res->devices[0].r, 0);
        engine_result_free(TAKE_PTR(res));
        hw_sim_wake_full(f->sim);
        assert_int_equal(engine_run(&c, ENGINE_RESTORE, &res), 0);
        assert_int_equal(res->devices[0].r, 0);
        assert_int_equal(hw_sim_vt_active(f->sim), 2);
        engine_cleanup(&e);
}

int main(int argc, char *argv[])
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test_setup_teardown(test_probe, setup, teardown),
                cmocka_unit_test_setup_teardown(test_roundtrip, setup, teardown),
                cmocka_unit_test_setup_teardown(test_spare_choice, setup, teardown),
                cmocka_unit_test_setup_teardown(test_wake_on_vt63, setup, teardown),
                cmocka_unit_test_setup_teardown(test_restore_when_already_back, setup, teardown),
                cmocka_unit_test_setup_teardown(test_slow_switch_waits, setup, teardown),
                cmocka_unit_test_setup_teardown(test_switch_timeout_is_bounded, setup, teardown),
                cmocka_unit_test_setup_teardown(test_late_switch_is_undone, setup, teardown),
                cmocka_unit_test_setup_teardown(test_no_vts, setup, teardown),
                cmocka_unit_test_setup_teardown(test_order_with_the_table, setup, teardown),
                cmocka_unit_test_setup_teardown(test_malformed_payloads, setup, teardown),
                cmocka_unit_test_setup_teardown(test_dump, setup, teardown),
                cmocka_unit_test(test_null_ops_fall_back_to_the_system),
                cmocka_unit_test_setup_teardown(test_sim_file_keeps_the_machine, setup, teardown),
                cmocka_unit_test_setup_teardown(test_engine_roundtrip, setup, teardown),
                cmocka_unit_test_setup_teardown(test_engine_second_save_keeps_the_original_vt, setup, teardown),
        };

        if (argc != 2) {
                fprintf(stderr, "usage: %s TESTDATA-DIR\n", argv[0]);
                return 2;
        }
        data_dir = argv[1];
        return cmocka_run_group_tests(tests, NULL, NULL);
}
