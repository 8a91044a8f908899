/* SPDX-License-Identifier: MIT */
/* The command-line actions: --status, --save-now, --restore-now, --dump. Each turns the
 * engine's results into messages for a person (or JSON) and an exit code. */
#include <fcntl.h>
#include <sys/stat.h>
#include <time.h>

#include "actions.h"
#include "engine.h"
#include "conf.h"
#include "exit-codes.h"
#include "hw/hw-sim.h"
#include "hw/hw-sim-file.h"
#include "manager.h"
#include "version.h"
#include "lock.h"
#include "log.h"
#include "state.h"

#define LOCK_TIMEOUT_USEC (10u * 1000u * 1000u)

static bool root_is_real(const char *root)
{
        return !root || !root[0] || streq(root, "/");
}

/* What every action sets up: the engine configuration for the real machine or a fake
 * tree under --root, and umsrestore.conf. */
typedef struct CliSetup {
        EngineConfig engine;
        char *state_dir;
        Config *config;
} CliSetup;

static void cli_setup_done(CliSetup *s)
{
        s->state_dir = mfree(s->state_dir);
        s->config = config_free(s->config);
}

/* Returns 0, or the exit code to leave with (after logging why). */
static int cli_setup(const ActionArgs *a, CliSetup *s)
{
        _cleanup_free_ char *error = NULL;
        EngineConfig *c = &s->engine;
        int r;

        engine_config_default(c);
        c->only_device = a->device;
        c->console_switch = !a->no_console_switch;
        if (!root_is_real(a->root)) {
                if (asprintf(&s->state_dir, "%s/run/umsrestore", a->root) < 0)
                        return log_error_errno(-ENOMEM, "Out of memory."), UMS_EXIT_FAILURE;
                c->root = a->root;
                c->pci_source = pci_source_sysfs;
                c->classify_env = classify_env_default(a->root);
                c->state_dir = s->state_dir;
                c->state_uid = geteuid();
        }

        r = config_load(a->root, a->config_file, &s->config, &error);
        if (r < 0) {
                if (error)
                        log_error("%s", error);
                else
                        log_error_errno(r, "Failed to read the configuration: %s", STRERROR(r));
                log_error("Fix the configuration (see umsrestore.conf(5)); 'umsrestored --check-config' checks it.");
                return UMS_EXIT_CONFIG;
        }
        c->config = s->config;
        if (!a->log_level_set)
                log_set_max_level(s->config->log_level);
        return 0;
}

static const char *dash_if_empty(const char *s)
{
        return s && s[0] ? s : "-";
}

int action_status(const ActionArgs *a)
{
        _cleanup_(device_list_freep) DeviceList *l = NULL;
        char blocker_buf[256], console[128];
        _cleanup_(cli_setup_done) CliSetup s = { 0 };
        const char *blocker;
        Buffer out = { 0 };
        EngineConfig c;
        int r;

        r = cli_setup(a, &s);
        if (r != 0)
                return r;
        c = s.engine;

        r = devices_discover(c.root, c.pci_source, &l);
        if (r < 0) {
                log_error_errno(r, "Failed to list PCI display devices: %s. Is /sys mounted?", STRERROR(r));
                return UMS_EXIT_FAILURE;
        }
        classify_devices(&c.classify_env, l);
        blocker = classify_machine_blocker(&c.classify_env, blocker_buf, sizeof(blocker_buf));
        classify_console(c.root, console, sizeof(console));

        if (a->device && !device_list_find(l, a->device)) {
                log_error("No display device at '%s'. Run 'umsrestored --status' to list them.", a->device);
                return UMS_EXIT_FAILURE;
        }

        if (a->json) {
                buffer_printf(&out, "{\"version\":1,\"console\":");
                buffer_append_json_string(&out, console);
                buffer_printf(&out, ",\"blocker\":");
                if (blocker)
                        buffer_append_json_string(&out, blocker);
                else
                        buffer_printf(&out, "null");
                buffer_printf(&out, ",\"daemon_lock_held\":%s,\"devices\":[",
                              run_lock_is_held(c.state_dir) > 0 ? "true" : "false");
        } else if (l->n == 0)
                buffer_printf(&out, "No display device found (no PCI device of class 0x03): nothing to "
                                    "manage.\n");
        else
                buffer_printf(&out, "%-13s %-9s %-4s %-10s %-9s %s\n", "DEVICE", "ID", "BOOT", "DRIVER",
                              "VERDICT", "REASON");

        bool first = true;
        for (size_t i = 0; i < l->n; i++) {
                const DisplayDevice *d = &l->devices[i];
                char methods[256], last_save[700], last_restore[700];

                if (a->device && d != device_list_find(l, a->device))
                        continue;
                engine_plan_names(&c, d, methods, sizeof(methods));
                if (engine_read_last(&c, d->slot, ENGINE_SAVE, last_save, sizeof(last_save)) < 0)
                        snprintf(last_save, sizeof(last_save), "never");
                if (engine_read_last(&c, d->slot, ENGINE_RESTORE, last_restore, sizeof(last_restore)) < 0)
                        snprintf(last_restore, sizeof(last_restore), "never");

                if (a->json) {
                        buffer_printf(&out, "%s{\"slot\":\"%s\",\"vendor\":\"%04x\",\"device\":\"%04x\","
                                            "\"subvendor\":\"%04x\",\"subdevice\":\"%04x\",\"revision\":%u,"
                                            "\"class\":\"%06x\",\"boot_vga\":%s,\"driver\":",
                                      first ? "" : ",", d->slot, d->vendor_id, d->device_id, d->subvendor_id,
                                      d->subdevice_id, d->revision, d->class_code, d->boot_vga ? "true" : "false");
                        if (d->driver[0])
                                buffer_append_json_string(&out, d->driver);
                        else
                                buffer_printf(&out, "null");
                        buffer_printf(&out, ",\"drm_cards\":%u,\"connectors\":%u,\"verdict\":\"%s\",\"managed\":%s,"
                                            "\"excluded\":%s,\"vga_arbiter\":%s,\"reason\":",
                                      d->n_drm_cards, d->n_connectors, verdict_to_string(d->verdict),
                                      verdict_is_managed(d->verdict) && engine_device_allowed(&c, d) ? "true" : "false",
                                      verdict_is_managed(d->verdict) && !engine_device_allowed(&c, d) ? "true" : "false",
                                      d->needs_vga_arbiter ? "true" : "false");
                        buffer_append_json_string(&out, d->reason);
                        buffer_printf(&out, ",\"methods\":");
                        buffer_append_json_string(&out, methods);
                        buffer_printf(&out, ",\"last_save\":");
                        buffer_append_json_string(&out, last_save);
                        buffer_printf(&out, ",\"last_restore\":");
                        buffer_append_json_string(&out, last_restore);
                        buffer_printf(&out, "}");
                } else {
                        char id[16];
                        snprintf(id, sizeof(id), "%04x:%04x", d->vendor_id, d->device_id);
                        buffer_printf(&out, "%-13s %-9s %-4s %-10s %-9s %s\n", d->slot, id, d->boot_vga ? "yes" : "no",
                                      dash_if_empty(d->driver), verdict_to_string(d->verdict), d->reason);
                        buffer_printf(&out, "%-13s subsystem %04x:%04x, revision %02x, class %06x%s\n", "",
                                      d->subvendor_id, d->subdevice_id, d->revision, d->class_code,
                                      d->needs_vga_arbiter ? ", legacy VGA through the VGA arbiter" : "");
                        if (verdict_is_managed(d->verdict) && !engine_device_allowed(&c, d))
                                buffer_printf(&out, "%-13s excluded by the configuration (Include=, Exclude= or "
                                                    "Manage=): not touched\n", "");
                        else if (verdict_is_managed(d->verdict)) {
                                buffer_printf(&out, "%-13s methods: %s\n", "", methods[0] ? methods : "(none built in)");
                                buffer_printf(&out, "%-13s last save: %s\n", "", last_save);
                                buffer_printf(&out, "%-13s last restore: %s\n", "", last_restore);
                        } else
                                buffer_printf(&out, "%-13s hands off: umsrestore does not touch this device\n", "");
                }
                first = false;
        }

        if (a->json)
                buffer_printf(&out, "]}\n");
        else {
                if (console[0])
                        buffer_printf(&out, "Console: %s\n", console);
                if (blocker)
                        buffer_printf(&out, "Cannot save or restore on this machine: %s.\n", blocker);
        }
        fputs(buffer_str(&out), stdout);
        buffer_done(&out);
        return UMS_EXIT_OK;
}

static int exit_code_for(EngineOp op, int r, const EngineResult *res)
{
        if (r >= 0)
                return UMS_EXIT_OK;
        if (r == -ENODEV || !res)
                return UMS_EXIT_FAILURE;
        if (res->n_managed == 0) {
                /* nothing managed: not permitted if something would be managed but can't be */
                for (size_t i = 0; i < res->n; i++)
                        if (res->devices[i].verdict == VERDICT_UNUSABLE)
                                return UMS_EXIT_NOT_PERMITTED;
                return UMS_EXIT_NOTHING;
        }
        for (size_t i = 0; op == ENGINE_RESTORE && i < res->n; i++) {
                const DeviceResult *d = &res->devices[i];
                if (d->refused)
                        return d->r == -ENOENT ? UMS_EXIT_NO_STATE : UMS_EXIT_BAD_STATE;
                if (d->r < 0 && d->mismatches > 0)
                        return UMS_EXIT_VERIFY;
        }
        return UMS_EXIT_FAILURE;
}

int engine_run_and_log(const EngineConfig *c, EngineOp op)
{
        _cleanup_(engine_result_freep) EngineResult *res = NULL;
        const char *opname = engine_op_to_string(op);
        int r;

        r = engine_run(c, op, &res);
        if (!res)
                return log_error_errno(r, "Failed to %s: %s", opname, STRERROR(r)), UMS_EXIT_FAILURE;

        if (r == -ENODEV) {
                log_error("No display device at '%s'. Run 'umsrestored --status' to list them.", c->only_device);
                return exit_code_for(op, r, res);
        }

        for (size_t i = 0; i < res->n; i++) {
                const DeviceResult *d = &res->devices[i];
                if (!d->attempted) {
                        if (!c->only_device || streq(d->slot, c->only_device))
                                log_info("%s: %s, not touched: %s.", d->slot, verdict_to_string(d->verdict),
                                         d->reason);
                        continue;
                }
                if (d->r < 0)
                        log_error("%s: %s failed: %s. See 'umsrestored --status'.", d->slot, opname, d->message);
                else
                        log_info("%s: %s in %.1f ms.", d->slot, d->message, (double)d->duration_usec / 1000.0);
        }
        if (res->n_managed == 0) {
                if (res->n == 0)
                        log_notice("No display device found: nothing to %s.", opname);
                else
                        log_notice("No device needs umsrestore (see above): nothing to %s.", opname);
        }
        return exit_code_for(op, r, res);
}

/* The documented test-only switch: with --root (a fake sysfs tree) and
 * $UMSRESTORE_TEST_HW_SIM=FILE, devices are reached through the simulated VGA whose
 * state persists in FILE. Never honoured on the real root. */
typedef struct SimSwitch {
        const char *path;
        HwSim *sim;
} SimSwitch;

static int sim_switch_open(const DisplayDevice *d, void *userdata, Hw **ret)
{
        SimSwitch *s = userdata;
        int r;

        if (!s->sim) {
                r = hw_sim_file_load(s->path, d, &s->sim);
                if (r < 0)
                        return r;
        }
        return hw_sim_open_func(d, s->sim, ret);
}

static int sim_switch_finish(SimSwitch *s)
{
        int r = 0;
        if (s->sim)
                r = hw_sim_file_store(s->sim, s->path);
        s->sim = hw_sim_unref(s->sim);
        return r;
}

static int sim_switch_engine_func(const EngineConfig *c, EngineOp op, void *userdata)
{
        SimSwitch *s = userdata;
        EngineConfig copy = *c;
        int code, r;

        copy.hw_open = sim_switch_open;
        copy.hw_userdata = s;
        /* Test hook for the daemon's deadline: a simulated device that is slow to save. */
        const char *slow = getenv("UMSRESTORE_TEST_SLOW_SAVE_MS");
        if (slow && op == ENGINE_SAVE) {
                unsigned long ms = strtoul(slow, NULL, 10);
                struct timespec ts = { .tv_sec = (time_t)(ms / 1000), .tv_nsec = (long)(ms % 1000) * 1000000L };
                (void)nanosleep(&ts, NULL);
        }
        code = engine_run_and_log(&copy, op);
        r = sim_switch_finish(s);
        if (r < 0) {
                log_error_errno(r, "Failed to store the simulated device in '%s': %s", s->path, STRERROR(r));
                return UMS_EXIT_FAILURE;
        }
        return code;
}

/* Returns 1 if the switch is active (and set up), 0 if not, < 0 if misused. */
static int sim_switch_setup(const ActionArgs *a, SimSwitch *s)
{
        const char *path = getenv("UMSRESTORE_TEST_HW_SIM");

        if (!path || !path[0])
                return 0;
        if (root_is_real(a->root))
                return log_error_errno(-EPERM, "UMSRESTORE_TEST_HW_SIM is a test switch and needs --root; "
                                               "refusing to run against the real machine with it set.");
        s->path = path;
        s->sim = NULL;
        log_notice("Test mode: devices are simulated, state in '%s'.", path);
        return 1;
}

/* One engine pass under the run lock (waiting up to LOCK_TIMEOUT_USEC), on the simulated
 * device when sim is given. Returns an exit code. */
static int run_locked_pass(const EngineConfig *c, EngineOp op, SimSwitch *sim)
{
        _cleanup_close_ int lock_fd = run_lock_acquire(c->state_dir, LOCK_TIMEOUT_USEC);

        if (lock_fd == -EBUSY) {
                log_error("Another umsrestored is busy (lock '%s/lock' held for more than %u s); try again.",
                          c->state_dir, LOCK_TIMEOUT_USEC / 1000000u);
                return UMS_EXIT_BUSY;
        }
        if (lock_fd < 0) {
                log_error_errno(lock_fd, "Failed to take the lock in '%s': %s. Are you root?", c->state_dir,
                                STRERROR(lock_fd));
                return lock_fd == -EACCES || lock_fd == -EPERM ? UMS_EXIT_NOT_PERMITTED : UMS_EXIT_FAILURE;
        }
        if (sim)
                return sim_switch_engine_func(c, op, sim);
        return engine_run_and_log(c, op);
}

static int run_engine_action(const ActionArgs *a, EngineOp op)
{
        _cleanup_(cli_setup_done) CliSetup s = { 0 };
        SimSwitch sim = { 0 };
        EngineConfig c;
        int r;

        r = cli_setup(a, &s);
        if (r != 0)
                return r;
        c = s.engine;
        r = sim_switch_setup(a, &sim);
        if (r < 0)
                return UMS_EXIT_USAGE;

        return run_locked_pass(&c, op, r > 0 ? &sim : NULL);
}

int action_save_now(const ActionArgs *a)
{
        return run_engine_action(a, ENGINE_SAVE);
}

int action_restore_now(const ActionArgs *a)
{
        return run_engine_action(a, ENGINE_RESTORE);
}

int action_dump(const ActionArgs *a)
{
        _cleanup_(state_file_freep) StateFile *s = NULL;
        _cleanup_free_ uint8_t *data = NULL;
        _cleanup_close_ int fd = -EBADF;
        Buffer out = { 0 };
        struct stat st;
        ssize_t n;
        int r;

        fd = open(a->dump_file, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0) {
                r = negative_errno();
                log_error("Cannot open '%s': %s.", a->dump_file,
                          r == -ELOOP ? "it is a symlink, refused" : STRERROR(r));
                return UMS_EXIT_FAILURE;
        }
        if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode)) {
                log_error("'%s' is not a regular file.", a->dump_file);
                return UMS_EXIT_BAD_STATE;
        }
        if (st.st_size > STATE_FILE_MAX) {
                log_error("'%s' is too large to be a state file (%lld bytes).", a->dump_file,
                          (long long)st.st_size);
                return UMS_EXIT_BAD_STATE;
        }
        data = malloc((size_t)st.st_size + 1);
        if (!data)
                return UMS_EXIT_FAILURE;
        n = read(fd, data, (size_t)st.st_size + 1);
        if (n < 0) {
                log_error_errno(errno, "Failed to read '%s': %s", a->dump_file, STRERROR(errno));
                return UMS_EXIT_FAILURE;
        }
        r = state_parse(data, (size_t)n, &s);
        if (r < 0) {
                log_error("'%s' is not a valid state file: %s.", a->dump_file, state_error_to_string(r));
                return UMS_EXIT_BAD_STATE;
        }

        if (a->json)
                buffer_printf(&out, "{\"header\":");
        state_dump_header(s, a->json, &out);
        if (a->json)
                buffer_printf(&out, ",\"methods\":[");
        for (size_t i = 0; i < s->n_sections; i++) {
                const StateSection *sec = &s->sections[i];
                const MethodOps *m = method_by_id(sec->method_id);

                if (a->json) {
                        buffer_printf(&out, "%s{\"id\":%u,\"version\":%u,\"length\":%u,\"name\":", i ? "," : "",
                                      sec->method_id, sec->method_version, sec->len);
                        if (m)
                                buffer_append_json_string(&out, m->name);
                        else
                                buffer_printf(&out, "null");
                        buffer_printf(&out, ",\"data\":");
                } else
                        buffer_printf(&out, "\n[%s] method id %u, version %u, %u bytes\n", m ? m->name : "unknown",
                                      sec->method_id, sec->method_version, sec->len);

                if (!m || m->version != sec->method_version || m->check(sec->payload, sec->len) < 0) {
                        if (a->json)
                                buffer_printf(&out, "null");
                        else
                                buffer_printf(&out, "  (not decodable by this build: %s)\n",
                                              m ? "payload refused by the method" : "unknown method");
                } else
                        m->dump(sec->payload, sec->len, a->json, &out);
                if (a->json)
                        buffer_printf(&out, "}");
        }
        if (a->json)
                buffer_printf(&out, "]}\n");
        fputs(buffer_str(&out), stdout);
        buffer_done(&out);
        return UMS_EXIT_OK;
}

int action_check_config(const ActionArgs *a)
{
        _cleanup_(cli_setup_done) CliSetup s = { 0 };
        Buffer out = { 0 };
        int r;

        r = cli_setup(a, &s);
        if (r != 0)
                return r;
        r = config_format(s.config, &out);
        if (r < 0) {
                buffer_done(&out);
                return log_error_errno(r, "Failed to format the configuration: %s", STRERROR(r)), UMS_EXIT_FAILURE;
        }
        printf("# Effective configuration (umsrestore.conf and drop-ins):\n%s", buffer_str(&out));
        buffer_done(&out);
        return UMS_EXIT_OK;
}

/* The daemon's engine pass, run in its child process: takes the run lock so a manual
 * call or a hook never interleaves with it. */
static int daemon_engine_func(const EngineConfig *c, EngineOp op, void *userdata)
{
        SimSwitch *sim = userdata;
        return run_locked_pass(c, op, sim->path ? sim : NULL);
}

int action_daemon(const ActionArgs *a)
{
        _cleanup_close_ int daemon_lock = -EBADF;
        _cleanup_(manager_freep) Manager *m = NULL;
        _cleanup_(cli_setup_done) CliSetup s = { 0 };
        SimSwitch sim = { 0 };
        EngineConfig c;
        int r;

        r = cli_setup(a, &s);
        if (r != 0)
                return r;
        c = s.engine;
        if (sim_switch_setup(a, &sim) < 0)
                return UMS_EXIT_USAGE;

        daemon_lock = daemon_lock_acquire(c.state_dir);
        if (daemon_lock == -EBUSY) {
                log_error("Another umsrestored daemon is already running (it holds '%s/daemon.lock').", c.state_dir);
                return UMS_EXIT_BUSY;
        }
        if (daemon_lock < 0) {
                log_error_errno(daemon_lock, "Failed to take '%s/daemon.lock': %s. Run the daemon as root.",
                                c.state_dir, STRERROR(daemon_lock));
                return UMS_EXIT_NOT_PERMITTED;
        }

        r = manager_new(&c, &m);
        if (r < 0)
                return log_error_errno(r, "Failed to set up the daemon: %s", STRERROR(r)), UMS_EXIT_FAILURE;
        m->engine_func = daemon_engine_func;
        m->engine_userdata = &sim;
        /* The manager owns the configuration from here on and reloads it on SIGHUP. */
        m->owned_config = TAKE_PTR(s.config);
        m->config_root = a->root;
        m->config_path = a->config_file;
        m->log_level_fixed = a->log_level_set;

        log_info("umsrestored %s starting.", UMSRESTORE_VERSION);
        r = manager_start(m);
        if (r < 0)
                return UMS_EXIT_FAILURE;
        r = manager_run(m);
        return r < 0 ? UMS_EXIT_FAILURE : UMS_EXIT_OK;
}
