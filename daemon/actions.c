/* SPDX-License-Identifier: MIT */
/* The command-line actions: --status, --report, --save-now, --restore-now, --test-restore,
 * --dump, --check-config and the daemon's start. Each sets up what it needs, logs for a person, returns an exit code. */
#include <fcntl.h>

#include "actions.h"
#include "child.h"
#include "conf.h"
#include "exit-codes.h"
#include "log.h"
#include "manager.h"
#include "pass.h"
#include "report.h"
#include "status.h"
#include "sysfs.h"
#include "version.h"

/* What every action sets up: the engine configuration for the real machine or a fake
 * tree under --root, umsrestore.conf, and the run directory. */
typedef struct CliSetup {
        EngineConfig engine;
        char *state_dir;
        Config *config;
        RunDir *rundir;
        QuirkDb *quirks;
        const char *quirks_dir;   /* the shipped set */
        char *quirks_local_dir;   /* the administrator's overrides */
        char *quirks_error;       /* why the shipped set is not used, or NULL */
        char *quirks_local_error; /* why the local overrides are not used, or NULL */
} CliSetup;

static void cli_setup_done(CliSetup *s)
{
        s->quirks = quirk_db_free(s->quirks);
        s->quirks_local_dir = mfree(s->quirks_local_dir);
        s->quirks_error = mfree(s->quirks_error);
        s->quirks_local_error = mfree(s->quirks_local_error);
        s->state_dir = mfree(s->state_dir);
        s->config = config_free(s->config);
        s->rundir = rundir_free(s->rundir);
}

typedef enum RunDirNeed {
        RUNDIR_NONE,     /* --check-config */
        RUNDIR_IF_THERE, /* --status: read what is there, create nothing */
        RUNDIR_CREATE,   /* passes and the daemon */
} RunDirNeed;

/* The quirk database: the shipped set, then the local overrides. A broken local file is
 * named and every local file ignored; a broken shipped set is named and no quirk applies
 * (the built-in defaults are the safe ones). Only -ENOMEM fails. */
static int cli_load_quirks(const ActionArgs *a, CliSetup *s)
{
        QuirkMethodNames names = survey_method_names();
        int r;

        s->quirks_dir = a->quirks_dir ? a->quirks_dir : UMSRESTORE_QUIRKSDIR;
        r = quirk_local_dir(s->engine.survey.root, &s->quirks_local_dir);
        if (r < 0)
                return r;
        r = quirk_db_load(s->engine.survey.root, s->quirks_dir, &names, &s->quirks, &s->quirks_error,
                          &s->quirks_local_error);
        if (r == -ENOMEM)
                return r;
        if (r < 0) {
                if (!s->quirks_error && asprintf(&s->quirks_error, "%s: %s", s->quirks_dir, STRERROR(r)) < 0)
                        return -ENOMEM;
                log_error("%s", s->quirks_error);
                log_error("The shipped quirk database in '%s' is broken: no quirk applies, the built-in defaults do. "
                          "Reinstall umsrestore or report this.", s->quirks_dir);
        }
        if (s->quirks_local_error) {
                log_error("%s", s->quirks_local_error);
                log_error("Ignoring every local quirk file in '%s' until this is fixed; the shipped quirks apply. "
                          "'umsrestored --check-config' checks them.", s->quirks_local_dir);
        }
        s->engine.survey.quirks = s->quirks;
        return 0;
}

/* Returns 0, or the exit code to leave with (after logging why). */
static int cli_setup(const ActionArgs *a, RunDirNeed need, CliSetup *s)
{
        _cleanup_free_ char *error = NULL;
        EngineConfig *c = &s->engine;
        const char *state_dir = UMSRESTORE_RUNSTATEDIR;
        uid_t state_uid = 0;
        int r;

        engine_config_default(c);
        c->hw = a->hw ? a->hw : &hw_backend_pciaccess;
        c->survey.only_device = a->device;
        c->survey.console_switch = !a->no_console_switch;
        if (!root_is_real(a->root)) {
                if (asprintf(&s->state_dir, "%s/run/umsrestore", a->root) < 0)
                        return log_error_errno(-ENOMEM, "Out of memory."), UMS_EXIT_FAILURE;
                c->survey.root = a->root;
                c->survey.pci_source = pci_source_sysfs;
                c->survey.classify_env = classify_env_default(a->root);
                state_dir = s->state_dir;
                state_uid = geteuid();
        } else if (c->hw->test_only && need != RUNDIR_NONE) {
                log_error("This is a test build with the simulated '%s' backend; it refuses the real machine. "
                          "Give --root with a fake sysfs tree, or use the installed umsrestored.",
                          c->hw->name);
                return UMS_EXIT_USAGE;
        }

        r = config_load(c->survey.root, a->config_file, &s->config, &error);
        if (r < 0) {
                if (error)
                        log_error("%s", error);
                else
                        log_error_errno(r, "Failed to read the configuration: %s", STRERROR(r));
                log_error("Fix the configuration (see umsrestore.conf(5)); 'umsrestored --check-config' checks it.");
                return UMS_EXIT_CONFIG;
        }
        c->survey.config = s->config;
        if (!a->log_level_set)
                log_set_max_level(s->config->log_level);
        r = cli_load_quirks(a, s);
        if (r < 0)
                return log_error_errno(r, "Out of memory."), UMS_EXIT_FAILURE;

        if (need == RUNDIR_NONE)
                return 0;
        error = mfree(error);
        r = rundir_open(state_dir, state_uid, need == RUNDIR_CREATE, &s->rundir, &error);
        if (r < 0 && need == RUNDIR_IF_THERE) {
                if (r != -ENOENT && r != -EACCES)
                        log_warning("%s", error ? error : STRERROR(r));
                return 0; /* --status shows what it can */
        }
        if (r < 0) {
                if (error)
                        log_error("%s", error);
                else
                        log_error_errno(r, "Failed to open '%s': %s", state_dir, STRERROR(r));
                if (r == -EACCES && !error)
                        log_error("Are you root?");
                return r == -EACCES && !error ? UMS_EXIT_NOT_PERMITTED : UMS_EXIT_FAILURE;
        }
        c->rundir = s->rundir;
        return 0;
}

/* The status of the machine's display devices for --status and --report: the survey, each
 * device's last results, the console and what blocks the machine. Returns 0 or an exit code. */
typedef struct StatusCollect {
        Survey *survey;
        StatusDevice *devices;
        StatusInfo info;
        char blocker[256], console[128];
} StatusCollect;

static void status_collect_done(StatusCollect *c)
{
        c->survey = survey_free(c->survey);
        c->devices = mfree(c->devices);
}

static int status_collect(const ActionArgs *a, const CliSetup *s, StatusCollect *c)
{
        int r;

        r = survey_run(&s->engine.survey, &c->survey);
        if (r == -ENODEV) {
                log_error("No display device at '%s'. Run 'umsrestored --status' to list them.", a->device);
                return UMS_EXIT_FAILURE;
        }
        if (r < 0) {
                log_error_errno(r, "Failed to list PCI display devices: %s. Is /sys mounted?", STRERROR(r));
                return UMS_EXIT_FAILURE;
        }
        c->devices = calloc(c->survey->n ? c->survey->n : 1, sizeof(StatusDevice));
        if (!c->devices)
                return log_error_errno(-ENOMEM, "Out of memory."), UMS_EXIT_FAILURE;
        for (size_t i = 0; i < c->survey->n; i++) {
                const SurveyDevice *sd = &c->survey->devices[i];
                StatusDevice *d = &c->devices[c->info.n_devices];

                if (sd->role == SURVEY_NOT_CHOSEN)
                        continue;
                d->device = sd;
                d->has_last_save = engine_read_last_fields(s->rundir, sd->device.slot, ENGINE_SAVE, &d->last_save) >= 0;
                d->has_last_restore =
                        engine_read_last_fields(s->rundir, sd->device.slot, ENGINE_RESTORE, &d->last_restore) >= 0;
                d->has_last_test = engine_read_last_fields(s->rundir, sd->device.slot, ENGINE_TEST, &d->last_test) >= 0;
                c->info.n_devices++;
        }
        c->info.devices = c->devices;
        c->info.survey = c->survey;
        c->info.blocker = classify_machine_blocker(&s->engine.survey.classify_env, c->blocker, sizeof(c->blocker));
        classify_console(s->engine.survey.root, c->console, sizeof(c->console));
        c->info.console = c->console;
        c->info.daemon_running = s->rundir && rundir_daemon_lock_is_held(s->rundir) > 0;
        return 0;
}

/* --status, or with report --report: what status_collect() found, formatted. */
static int status_or_report(const ActionArgs *a, bool report)
{
        _cleanup_(cli_setup_done) CliSetup s = { 0 };
        _cleanup_(status_collect_done) StatusCollect c = { 0 };
        _cleanup_(buffer_done) Buffer out = { 0 };
        ReportSystem sys;
        int r;

        r = cli_setup(a, RUNDIR_IF_THERE, &s);
        if (r != 0)
                return r;
        r = status_collect(a, &s, &c);
        if (r != 0)
                return r;
        if (report) {
                report_collect_system(s.engine.survey.root, &sys);
                r = a->json ? report_format_json(&sys, &c.info, &out) : report_format_text(&sys, &c.info, &out);
        } else
                r = a->json ? status_format_json(&c.info, &out) : status_format_text(&c.info, &out);
        if (r < 0)
                return log_error_errno(r, "Failed to format the %s: %s", report ? "report" : "status",
                                       STRERROR(r)), UMS_EXIT_FAILURE;
        fputs(buffer_str(&out), stdout);
        return UMS_EXIT_OK;
}

int action_status(const ActionArgs *a)
{
        return status_or_report(a, false);
}

int action_report(const ActionArgs *a)
{
        return status_or_report(a, true);
}

static uint64_t manual_deadline_usec(const CliSetup *s)
{
        return s->config && s->config->manual_deadline_usec > 0 ? s->config->manual_deadline_usec
                                                                 : CONFIG_MANUAL_DEADLINE_DEFAULT_USEC;
}

static int run_engine_action(const ActionArgs *a, EngineOp op)
{
        _cleanup_(cli_setup_done) CliSetup s = { 0 };
        int r;

        r = cli_setup(a, RUNDIR_CREATE, &s);
        if (r != 0)
                return r;
        return pass_run_bounded(&s.engine, op, manual_deadline_usec(&s));
}

int action_save_now(const ActionArgs *a)
{
        return run_engine_action(a, ENGINE_SAVE);
}

int action_restore_now(const ActionArgs *a)
{
        return run_engine_action(a, ENGINE_RESTORE);
}

int action_test_restore(const ActionArgs *a)
{
        _cleanup_(cli_setup_done) CliSetup s = { 0 };
        int r;

        r = cli_setup(a, RUNDIR_CREATE, &s);
        if (r != 0)
                return r;
        s.engine.test_force = a->force;
        return pass_run_bounded(&s.engine, ENGINE_TEST, a->deadline_usec > 0 ? a->deadline_usec
                                                                              : ACTION_TEST_DEADLINE_DEFAULT_USEC);
}

/* Prints a state file after the same loading and section checks a restore makes (owner,
 * device and boot aside: it may be a copy from elsewhere). Runs in the bounded child. */
static int dump_file(void *userdata)
{
        const ActionArgs *a = userdata;
        _cleanup_(state_file_freep) StateFile *s = NULL;
        _cleanup_(buffer_done) Buffer out = { 0 };
        int r;

        r = state_load_at(AT_FDCWD, a->dump_file, STATE_OWNER_ANY, &s);
        if (r < 0) {
                log_error("Cannot use '%s': %s.", a->dump_file, state_error_to_string(r));
                return r == -ENOENT || r == -EACCES ? UMS_EXIT_FAILURE : UMS_EXIT_BAD_STATE;
        }
        r = engine_check_sections(s);
        if (r < 0) {
                log_error("'%s' would be refused by a restore: %s.", a->dump_file, engine_load_error_to_string(r));
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
                        buffer_append_json_string(&out, m->name);
                        buffer_printf(&out, ",\"data\":");
                } else
                        buffer_printf(&out, "\n[%s] method id %u, version %u, %u bytes\n", m->name, sec->method_id,
                                      sec->method_version, sec->len);
                m->dump(sec->payload, sec->len, a->json, &out);
                if (a->json)
                        buffer_printf(&out, "}");
        }
        if (a->json)
                buffer_printf(&out, "]}\n");
        fputs(buffer_str(&out), stdout);
        return UMS_EXIT_OK;
}

int action_dump(const ActionArgs *a)
{
        _cleanup_(cli_setup_done) CliSetup s = { 0 };
        uint64_t deadline;
        int r;

        /* The configuration only for ManualDeadlineSec=: --dump works on any file, also where
         * the configuration is broken. */
        if (cli_setup(a, RUNDIR_NONE, &s) != 0)
                log_notice("Dumping with the default deadline.");
        deadline = manual_deadline_usec(&s);
        r = child_run_bounded(dump_file, (void *)a, -1, deadline);
        if (r == -ETIMEDOUT) {
                log_error("Reading '%s' did not finish within %.1f s and was stopped.", a->dump_file,
                          (double)deadline / 1e6);
                return UMS_EXIT_TIMEOUT;
        }
        if (r < 0)
                return log_error_errno(r, "Failed to run the dump: %s", STRERROR(r)), UMS_EXIT_FAILURE;
        return r >= 128 ? UMS_EXIT_FAILURE : r;
}

int action_check_config(const ActionArgs *a)
{
        _cleanup_(cli_setup_done) CliSetup s = { 0 };
        _cleanup_(buffer_done) Buffer out = { 0 };
        int r;

        r = cli_setup(a, RUNDIR_NONE, &s);
        if (r != 0)
                return r;
        r = config_format(s.config, &out);
        if (r < 0)
                return log_error_errno(r, "Failed to format the configuration: %s", STRERROR(r)), UMS_EXIT_FAILURE;
        printf("# Effective configuration (umsrestore.conf and drop-ins):\n%s", buffer_str(&out));
        if (s.quirks_error || s.quirks_local_error)
                return UMS_EXIT_CONFIG;
        printf("# Quirk database: %zu sections in %zu files ('%s', %zu local in '%s'): OK\n", s.quirks->n_sections,
               s.quirks->n_files, s.quirks_dir, s.quirks->n_local_files, s.quirks_local_dir);
        return UMS_EXIT_OK;
}

int action_quirks(const ActionArgs *a)
{
        _cleanup_(cli_setup_done) CliSetup s = { 0 };
        _cleanup_(survey_freep) Survey *survey = NULL;
        _cleanup_(buffer_done) Buffer out = { 0 };
        QuirksInfo info;
        int r;

        r = cli_setup(a, RUNDIR_NONE, &s);
        if (r != 0)
                return r;
        r = survey_run(&s.engine.survey, &survey);
        if (r < 0) {
                log_error_errno(r, "Failed to list PCI display devices: %s. Is /sys mounted?", STRERROR(r));
                return UMS_EXIT_FAILURE;
        }
        info = (QuirksInfo){
                .survey = survey,
                .db = s.quirks,
                .shipped_dir = s.quirks_dir,
                .local_dir = s.quirks_local_dir,
                .shipped_error = s.quirks_error,
                .local_error = s.quirks_local_error,
        };
        if (a->json)
                status_format_quirks_json(&info, &out);
        else
                status_format_quirks_text(&info, &out);
        fputs(buffer_str(&out), stdout);
        return s.quirks_error || s.quirks_local_error ? UMS_EXIT_CONFIG : UMS_EXIT_OK;
}

int action_daemon(const ActionArgs *a)
{
        _cleanup_(cli_setup_done) CliSetup s = { 0 };
        _cleanup_(manager_freep) Manager *m = NULL;
        _cleanup_close_ int daemon_lock = -EBADF;
        char why[512];
        int r;

        /* Before anything is set up: a daemon that cannot talk D-Bus takes no lock. */
        r = manager_load_libsystemd(why, sizeof(why));
        if (r < 0) {
                log_error("The daemon cannot start: %s. Install libsystemd0; the actions (--save-now, "
                          "--restore-now, --status...) work without it.",
                          why);
                return UMS_EXIT_FAILURE;
        }

        r = cli_setup(a, RUNDIR_CREATE, &s);
        if (r != 0)
                return r;

        daemon_lock = rundir_daemon_lock(s.rundir);
        if (daemon_lock == -EBUSY) {
                log_error("Another umsrestored daemon is already running (it holds '%s/daemon.lock').",
                          s.rundir->path);
                return UMS_EXIT_BUSY;
        }
        if (daemon_lock < 0) {
                log_error_errno(daemon_lock, "Failed to take '%s/daemon.lock': %s. Run the daemon as root.",
                                s.rundir->path, STRERROR(daemon_lock));
                return UMS_EXIT_NOT_PERMITTED;
        }

        /* The manager owns the configuration, the run directory and the lifetime lock from
         * here on; it reloads the configuration on SIGHUP. */
        r = manager_new(&(ManagerParams){
                                .engine = s.engine,
                                .config = TAKE_PTR(s.config),
                                .rundir = TAKE_PTR(s.rundir),
                                .daemon_lock_fd = TAKE_FD(daemon_lock),
                                .config_root = a->root,
                                .config_path = a->config_file,
                                .log_level_fixed = a->log_level_set,
                        },
                        &m);
        if (r < 0)
                return log_error_errno(r, "Failed to set up the daemon: %s", STRERROR(r)), UMS_EXIT_FAILURE;

        log_info("umsrestored %s starting.", UMSRESTORE_VERSION);
        r = manager_start(m);
        if (r < 0)
                return UMS_EXIT_FAILURE;
        r = manager_run(m);
        return r < 0 ? UMS_EXIT_FAILURE : UMS_EXIT_OK;
}
