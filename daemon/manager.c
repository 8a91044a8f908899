/* SPDX-License-Identifier: MIT */
/* Owns the daemon's event loop: the logind delay inhibitor, PrepareForSleep, logind
 * restarts, bounded save/restore passes in a child process, sd_notify and signals. */
#include <fcntl.h>
#include <signal.h>
#include <sys/inotify.h>
#include <sys/wait.h>
#include <systemd/sd-daemon.h>

#include "exit-codes.h"
#include "log.h"
#include "manager.h"
#include "pass.h"
#include "sysfs.h"
/* Last: from here on the sd_* calls go through the pointers it sets. */
#include "libsystemd-dl.h"

#define LOGIND_SERVICE "org.freedesktop.login1"
#define LOGIND_PATH "/org/freedesktop/login1"
#define LOGIND_MANAGER "org.freedesktop.login1.Manager"
#define DEFAULT_INHIBIT_DELAY_USEC (5u * 1000000u)
#define RESTORE_DEADLINE_USEC (20u * 1000000u)
#define INHIBIT_RETRIES_MAX 10u
#define INHIBIT_RETRY_USEC (300u * 1000u)
/* After a DRM node appears or goes, wait this long for the driver to finish registering
 * its connectors before classifying again. */
#define DRM_SETTLE_USEC (500u * 1000u)

uint64_t manager_save_deadline_usec(uint64_t delay)
{
        /* Leave logind a quarter of its delay (at least 250 ms, at most 1 s) as margin. */
        uint64_t margin = delay / 4;
        if (margin < 250000)
                margin = 250000;
        if (margin > 1000000)
                margin = 1000000;
        return delay > margin + 100000 ? delay - margin : 100000;
}

static void manager_release_lock(Manager *m, const char *why)
{
        if (m->inhibit_fd < 0)
                return;
        m->inhibit_fd = safe_close(m->inhibit_fd);
        log_debug("Released the logind delay lock (%s).", why);
}

static void manager_update_status(Manager *m)
{
        if (m->inhibit_denied)
                (void)sd_notifyf(false, "STATUS=logind refused the delay lock; not saving before sleep (%s)",
                                 m->managed_desc);
        else if (!m->want_lock)
                (void)sd_notifyf(false, "STATUS=idle: %s", m->managed_desc);
        else
                (void)sd_notifyf(false, "STATUS=managing %u device%s: %s%s", m->n_managed,
                                 m->n_managed == 1 ? "" : "s", m->managed_desc,
                                 m->inhibit_fd >= 0 ? "" : " (waiting for logind)");
}

/* Surveys the devices; decides whether a lock is wanted. */
static void manager_rescan(Manager *m)
{
        _cleanup_(survey_freep) Survey *survey = NULL;
        size_t len = 0;
        int r;

        m->n_managed = 0;
        m->managed_desc[0] = '\0';
        r = survey_run(&m->config.survey, &survey);
        if (r < 0) {
                log_warning_errno(r, "Failed to list display devices: %s; will try again at the next sleep.",
                                  STRERROR(r));
                snprintf(m->managed_desc, sizeof(m->managed_desc), "device discovery failed");
                m->want_lock = true; /* the save pass will retry and report */
                return;
        }
        for (size_t i = 0; i < survey->n; i++) {
                const SurveyDevice *sd = &survey->devices[i];
                const DisplayDevice *d = &sd->device;
                char methods[128];

                switch (sd->role) {
                case SURVEY_HANDS_OFF:
                        log_info("%s: %s, not touched: %s.", d->slot, verdict_to_string(d->verdict), d->reason);
                        continue;
                case SURVEY_EXCLUDED:
                        log_info("%s: excluded by the configuration, not touched.", d->slot);
                        continue;
                case SURVEY_NOT_CHOSEN:
                        continue;
                case SURVEY_MANAGED:
                        break;
                }
                survey_plan_names(sd, methods, sizeof(methods));
                if (sd->mode_unrestored)
                        log_warning("%s: %s.", d->slot, sd->mode_note);
                if (len < sizeof(m->managed_desc))
                        len += (size_t)snprintf(m->managed_desc + len, sizeof(m->managed_desc) - len, "%s%s (%s)",
                                                m->n_managed ? ", " : "", d->slot, methods);
                m->n_managed++;
        }
        m->want_lock = m->n_managed > 0;
        if (!m->want_lock)
                snprintf(m->managed_desc, sizeof(m->managed_desc), "%s",
                         survey->n == 0              ? "no display device"
                         : survey->n_kms == survey->n ? "all devices KMS"
                                                      : "no device to manage");
}

static int manager_take_lock(Manager *m);

static int on_retry(sd_event_source *s, uint64_t usec, void *userdata)
{
        Manager *m = userdata;

        (void)s;
        (void)usec;
        m->retry_source = sd_event_source_disable_unref(m->retry_source);
        (void)manager_take_lock(m);
        return 0;
}

static int on_inhibit_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
{
        Manager *m = userdata;
        const sd_bus_error *e;
        int fd, r;

        (void)ret_error;
        m->inhibit_call_slot = sd_bus_slot_unref(m->inhibit_call_slot);

        e = sd_bus_message_get_error(reply);
        if (e) {
                if (sd_bus_error_has_names(e, SD_BUS_ERROR_ACCESS_DENIED,
                                           SD_BUS_ERROR_INTERACTIVE_AUTHORIZATION_REQUIRED)) {
                        m->inhibit_denied = true;
                        log_error("logind refused the sleep delay lock (%s: %s). Allow the polkit action "
                                  "org.freedesktop.login1.inhibit-delay-sleep for umsrestored; until then the "
                                  "display state is not saved before sleep. Retrying when logind restarts.",
                                  e->name, e->message ? e->message : "");
                } else if (sd_bus_error_has_names(e, SD_BUS_ERROR_SERVICE_UNKNOWN, SD_BUS_ERROR_NAME_HAS_NO_OWNER))
                        log_notice("logind is not running yet; waiting for it before taking the sleep delay lock.");
                else if (m->inhibit_retries < INHIBIT_RETRIES_MAX) {
                        /* A logind that just took its name may not serve its methods yet. */
                        m->inhibit_retries++;
                        log_debug("Inhibit() failed (%s), retry %u in %u ms.", e->name, m->inhibit_retries,
                                  INHIBIT_RETRY_USEC / 1000);
                        m->retry_source = sd_event_source_disable_unref(m->retry_source);
                        if (sd_event_add_time_relative(m->event, &m->retry_source, CLOCK_MONOTONIC,
                                                       INHIBIT_RETRY_USEC, 1000, on_retry, m) < 0)
                                log_warning("Failed to schedule an Inhibit() retry.");
                } else
                        log_error("Taking the logind sleep delay lock failed (%s: %s); retrying when logind "
                                  "restarts.",
                                  e->name, e->message ? e->message : "");
                manager_update_status(m);
                return 0;
        }
        m->inhibit_retries = 0;

        r = sd_bus_message_read(reply, "h", &fd);
        if (r < 0) {
                log_error_errno(r, "Malformed reply from logind's Inhibit(): %s", STRERROR(r));
                return 0;
        }
        /* The fd belongs to the message: keep our own duplicate. */
        manager_release_lock(m, "replaced");
        m->inhibit_fd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
        if (m->inhibit_fd < 0) {
                m->inhibit_fd = -EBADF;
                log_error_errno(errno, "Failed to keep the logind lock fd: %s", STRERROR(errno));
                return 0;
        }
        m->inhibit_denied = false;
        if (!m->want_lock || m->sleeping) {
                /* The reply raced with a rescan that found nothing, or with a sleep. */
                if (!m->want_lock)
                        manager_release_lock(m, "nothing to manage");
        } else
                log_debug("Holding the logind sleep delay lock.");
        manager_update_status(m);
        return 0;
}

static int manager_take_lock(Manager *m)
{
        int r;

        if (!m->want_lock || m->inhibit_fd >= 0 || m->inhibit_call_slot)
                return 0;
        r = sd_bus_call_method_async(m->bus, &m->inhibit_call_slot, LOGIND_SERVICE, LOGIND_PATH, LOGIND_MANAGER,
                                     "Inhibit", on_inhibit_reply, m, "ssss", "sleep", "umsrestore",
                                     "Save display state of non-KMS GPUs", "delay");
        if (r < 0)
                return log_error_errno(r, "Failed to ask logind for the sleep delay lock: %s", STRERROR(r));
        return 0;
}

static int on_delay_reply(sd_bus_message *reply, void *userdata, sd_bus_error *ret_error)
{
        Manager *m = userdata;
        uint64_t v;

        (void)ret_error;
        m->delay_call_slot = sd_bus_slot_unref(m->delay_call_slot);
        if (sd_bus_message_is_method_error(reply, NULL) || sd_bus_message_read(reply, "v", "t", &v) < 0 || v == 0) {
                m->inhibit_delay_max_usec = DEFAULT_INHIBIT_DELAY_USEC;
                log_debug("Could not read InhibitDelayMaxUSec; assuming 5 s.");
                return 0;
        }
        m->inhibit_delay_max_usec = v;
        log_debug("logind waits at most %.1f s for delay locks; saving within %.1f s.", (double)v / 1e6,
                  (double)manager_save_deadline_usec(v) / 1e6);
        return 0;
}

static void manager_read_delay(Manager *m)
{
        m->delay_call_slot = sd_bus_slot_unref(m->delay_call_slot);
        if (sd_bus_call_method_async(m->bus, &m->delay_call_slot, LOGIND_SERVICE, LOGIND_PATH,
                                     "org.freedesktop.DBus.Properties", "Get", on_delay_reply, m, "ss",
                                     LOGIND_MANAGER, "InhibitDelayMaxUSec") < 0)
                m->inhibit_delay_max_usec = DEFAULT_INHIBIT_DELAY_USEC;
}

static void manager_pass_finished(Manager *m, EngineOp op, int status, bool killed);

static int on_child_exit(sd_event_source *s, const siginfo_t *si, void *userdata)
{
        Manager *m = userdata;
        int status = si->si_code == CLD_EXITED ? si->si_status : 128 + si->si_status;

        (void)s;
        m->child_source = sd_event_source_unref(m->child_source);
        m->deadline_source = sd_event_source_disable_unref(m->deadline_source);
        m->child = 0;
        manager_pass_finished(m, m->child_op, status, m->child_killed);
        return 0;
}

static int on_deadline(sd_event_source *s, uint64_t usec, void *userdata)
{
        Manager *m = userdata;

        (void)s;
        (void)usec;
        log_warning("The %s pass did not finish within %.1f s; stopping it so the system is not held up.",
                    engine_op_to_string(m->child_op), (double)(clock_usec(CLOCK_MONOTONIC) - m->child_start_usec) / 1e6);
        if (m->child > 0) {
                (void)kill(m->child, SIGKILL);
                m->child_killed = true;
        }
        /* on_child_exit follows; release the lock now so logind can go on meanwhile. */
        if (m->child_op == ENGINE_SAVE)
                manager_release_lock(m, "save deadline");
        m->deadline_source = sd_event_source_disable_unref(m->deadline_source);
        return 0;
}

/* Runs one pass in a child process, bounded by deadline_usec. The child keeps no fd but
 * stdio and the run directory: a stuck child cannot hold logind's sleep through the
 * inhibitor fd, nor the daemon lock, nor the bus connection. */
static int manager_spawn_pass(Manager *m, EngineOp op, uint64_t deadline_usec)
{
        pid_t pid;
        int r;

        if (m->child > 0)
                return -EBUSY;
        r = pass_spawn(&m->config, op, &pid);
        if (r < 0)
                return r;
        m->child = pid;
        m->child_op = op;
        m->child_killed = false;
        m->child_start_usec = clock_usec(CLOCK_MONOTONIC);
        r = sd_event_add_child(m->event, &m->child_source, pid, WEXITED, on_child_exit, m);
        if (r < 0) {
                (void)kill(pid, SIGKILL);
                (void)waitpid(pid, NULL, 0);
                m->child = 0;
                return r;
        }
        r = sd_event_add_time_relative(m->event, &m->deadline_source, CLOCK_MONOTONIC, deadline_usec, 1000,
                                       on_deadline, m);
        if (r < 0)
                log_warning_errno(r, "Failed to arm the %s deadline: %s", engine_op_to_string(op), STRERROR(r));
        return 0;
}

/* Between sleeps: the lock again if there is something to manage. Never while a sleep is
 * under way: logind would then wait for it the whole InhibitDelayMaxSec. */
static void manager_awake(Manager *m)
{
        if (m->sleeping)
                return;
        manager_rescan(m);
        manager_take_lock(m);
}

static void manager_pass_finished(Manager *m, EngineOp op, int status, bool killed)
{
        uint64_t took = clock_usec(CLOCK_MONOTONIC) - m->child_start_usec;

        m->cycles++;
        switch (op) {
        case ENGINE_SAVE: {
                const char *releasing = m->inhibit_fd >= 0 ? "; releasing the sleep delay lock" : "";

                /* Every device that saved is restored after wake, also when another failed. */
                m->saved_this_sleep = !killed && (status == UMS_EXIT_OK || status == UMS_EXIT_PARTIAL);
                if (killed)
                        log_error("The save pass was stopped; nothing from it will be restored. Putting back what it "
                                  "changed (the VT switch).");
                else if (status == UMS_EXIT_OK)
                        log_info("Saved display state in %.1f ms%s.", (double)took / 1000.0, releasing);
                else if (status == UMS_EXIT_PARTIAL)
                        log_warning("Saved the display state of some devices in %.1f ms (the others are named above)%s; "
                                    "those will be restored after wake.",
                                    (double)took / 1000.0, releasing);
                else if (status == UMS_EXIT_NOTHING)
                        log_info("Nothing to save%s.", releasing);
                else
                        log_error("Saving display state failed (exit status %d); the system sleeps anyway, and after "
                                  "wake nothing will be restored. See 'umsrestored --status'.",
                                  status);
                /* Always: never hold up sleep. */
                manager_release_lock(m, "saved");
                if (killed || status >= 128) {
                        int r = manager_spawn_pass(m, ENGINE_ROLLBACK, PASS_ROLLBACK_DEADLINE_USEC);
                        if (r < 0)
                                log_error_errno(r, "Failed to start the rollback: %s; the console may stay on a spare "
                                                   "VT (switch back with Alt+F1 or chvt).",
                                                STRERROR(r));
                        else
                                break;
                }
                /* false arrived while we were saving */
                manager_awake(m);
                break;
        }
        case ENGINE_RESTORE:
                if (status == UMS_EXIT_OK)
                        log_info("Restored display state in %.1f ms.", (double)took / 1000.0);
                else if (status == UMS_EXIT_PARTIAL)
                        log_warning("Restored the display state of some devices in %.1f ms; the others are named "
                                    "above. See 'umsrestored --status'.",
                                    (double)took / 1000.0);
                else
                        log_error("Restoring display state failed (exit status %d%s). Try 'umsrestored "
                                  "--restore-now' from a shell, and see 'umsrestored --status'.",
                                  status, killed ? ", stopped at its deadline" : "");
                m->saved_this_sleep = false;
                manager_awake(m);
                break;
        case ENGINE_ROLLBACK:
                if (status != UMS_EXIT_OK && status != UMS_EXIT_NOTHING)
                        log_error("Rolling back an unfinished save failed (exit status %d%s); the console may be on "
                                  "a spare VT: switch back with Alt+F1 or chvt.",
                                  status, killed ? ", stopped at its deadline" : "");
                manager_awake(m);
                break;
        case ENGINE_TEST: /* a command-line action only: the daemon never starts one */
                break;
        }
        manager_update_status(m);
}

static int on_prepare_for_sleep(sd_bus_message *msg, void *userdata, sd_bus_error *ret_error)
{
        Manager *m = userdata;
        int start, r;

        (void)ret_error;
        r = sd_bus_message_read(msg, "b", &start);
        if (r < 0) {
                log_warning_errno(r, "Malformed PrepareForSleep signal, ignoring: %s", STRERROR(r));
                return 0;
        }

        if (start) {
                if (m->sleeping) {
                        log_debug("Duplicate PrepareForSleep(true), ignoring.");
                        return 0;
                }
                m->sleeping = true;
                m->saved_this_sleep = false;
                if (m->child > 0) {
                        log_warning("A %s pass is still running at PrepareForSleep(true); not saving this time.",
                                    engine_op_to_string(m->child_op));
                        manager_release_lock(m, "busy");
                        return 0;
                }
                log_debug("PrepareForSleep(true): starting the save pass.");
                (void)sd_notify(false, "STATUS=saving display state before sleep");
                r = manager_spawn_pass(m, ENGINE_SAVE,
                                       m->owned_config && m->owned_config->save_deadline_usec > 0
                                               ? m->owned_config->save_deadline_usec
                                               : manager_save_deadline_usec(m->inhibit_delay_max_usec));
                if (r < 0) {
                        log_error_errno(r, "Failed to start the save pass: %s; sleeping without it.", STRERROR(r));
                        manager_release_lock(m, "save failed to start");
                }
                return 0;
        }

        if (!m->sleeping) {
                log_notice("PrepareForSleep(false) without a preceding true: no state from this sleep, not restoring.");
                manager_take_lock(m);
                return 0;
        }
        m->sleeping = false;
        if (m->child > 0) {
                if (m->child_op == ENGINE_SAVE) {
                        log_warning("The save pass is still running after wake; stopping it, nothing will be restored.");
                        (void)kill(m->child, SIGKILL);
                } else
                        log_notice("The %s pass is still running after wake: nothing was saved for this sleep, not "
                                   "restoring.",
                                   engine_op_to_string(m->child_op));
                return 0; /* on_child_exit takes the lock again */
        }
        if (!m->saved_this_sleep) {
                log_notice("No display state was saved for this sleep; not restoring.");
                manager_rescan(m);
                manager_take_lock(m);
                manager_update_status(m);
                return 0;
        }
        (void)sd_notify(false, "STATUS=restoring display state after wake");
        r = manager_spawn_pass(m, ENGINE_RESTORE, RESTORE_DEADLINE_USEC);
        if (r < 0) {
                log_error_errno(r, "Failed to start the restore pass: %s", STRERROR(r));
                manager_take_lock(m);
        }
        return 0;
}

static int on_name_owner_changed(sd_bus_message *msg, void *userdata, sd_bus_error *ret_error)
{
        Manager *m = userdata;
        const char *name, *old_owner, *new_owner;

        (void)ret_error;
        if (sd_bus_message_read(msg, "sss", &name, &old_owner, &new_owner) < 0 || !streq(name, LOGIND_SERVICE))
                return 0;
        /* A new logind knows nothing of our old lock. */
        manager_release_lock(m, "logind went away");
        m->inhibit_call_slot = sd_bus_slot_unref(m->inhibit_call_slot);
        m->retry_source = sd_event_source_disable_unref(m->retry_source);
        m->inhibit_retries = 0;
        if (new_owner && new_owner[0]) {
                log_info("logind (re)started; taking a new sleep delay lock.");
                m->inhibit_denied = false;
                m->sleeping = false;
                manager_read_delay(m);
                manager_take_lock(m);
        } else
                log_notice("logind left the bus; waiting for it to come back.");
        manager_update_status(m);
        return 0;
}

static int on_sigterm(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
        Manager *m = userdata;

        (void)s;
        log_info("Received %s, stopping.", si->ssi_signo == SIGINT ? "SIGINT" : "SIGTERM");
        manager_release_lock(m, "stopping");
        return sd_event_exit(m->event, 0);
}

/* Reads umsrestore.conf again; on an error the old configuration stays in force. */
static void manager_reload_config(Manager *m)
{
        _cleanup_free_ char *error = NULL;
        Config *c = NULL;
        int r;

        r = config_load(m->config_root, m->config_path, &c, &error);
        if (r < 0) {
                log_error("%s; keeping the previous configuration.",
                          error ? error : "Failed to read the configuration");
                return;
        }
        config_free(m->owned_config);
        m->owned_config = c;
        m->config.survey.config = c;
        if (!m->log_level_fixed)
                log_set_max_level(c->log_level);
}

static void manager_watch_dri(Manager *m);

static int on_rescan_timer(sd_event_source *s, uint64_t usec, void *userdata)
{
        Manager *m = userdata;
        bool had = m->want_lock;

        (void)s;
        (void)usec;
        m->rescan_source = sd_event_source_disable_unref(m->rescan_source);
        if (m->sleeping || m->child > 0)
                return 0; /* the next save classifies again anyway */
        manager_rescan(m);
        if (had != m->want_lock)
                log_info("Display devices changed: %s.", m->want_lock ? m->managed_desc : "nothing to manage now");
        if (m->want_lock)
                manager_take_lock(m);
        else
                manager_release_lock(m, "nothing to manage");
        manager_update_status(m);
        return 0;
}

/* A DRM node came or went (a KMS driver bound late, or was unbound): classify again soon. */
static int on_dri_event(sd_event_source *s, const struct inotify_event *ev, void *userdata)
{
        Manager *m = userdata;

        if ((ev->mask & IN_IGNORED) && s == m->dri_watch) {
                /* /dev/dri went away: watch for it to come back through /dev */
                m->dri_watch = sd_event_source_disable_unref(m->dri_watch);
        } else if (ev->len > 0 && streq(ev->name, "dri") && !m->dri_watch)
                manager_watch_dri(m);
        if (m->rescan_source)
                return 0;
        if (sd_event_add_time_relative(m->event, &m->rescan_source, CLOCK_MONOTONIC, DRM_SETTLE_USEC, 10000,
                                       on_rescan_timer, m) < 0)
                log_warning("Failed to schedule a rescan after a DRM device change.");
        return 0;
}

static void manager_watch_dri(Manager *m)
{
        _cleanup_free_ char *dri = NULL;

        if (sysfs_path(m->config.survey.root, "/dev/dri", &dri) < 0)
                return;
        if (sd_event_add_inotify(m->event, &m->dri_watch, dri, IN_CREATE | IN_DELETE | IN_ONLYDIR,
                                 on_dri_event, m) < 0)
                log_debug("Not watching '%s' (it does not exist yet).", dri);
}

/* Watches ROOT/dev/dri for DRM nodes, and ROOT/dev for the directory itself to appear.
 * inotify only: no wake-ups while nothing changes. */
static void manager_start_watches(Manager *m)
{
        _cleanup_free_ char *dev = NULL;

        manager_watch_dri(m);
        if (sysfs_path(m->config.survey.root, "/dev", &dev) < 0)
                return;
        if (sd_event_add_inotify(m->event, &m->dev_watch, dev, IN_CREATE | IN_ONLYDIR, on_dri_event, m) < 0)
                log_debug("Not watching '%s' for DRM devices.", dev);
}

static int on_sighup(sd_event_source *s, const struct signalfd_siginfo *si, void *userdata)
{
        Manager *m = userdata;

        (void)s;
        (void)si;
        (void)sd_notify(false, "RELOADING=1");
        log_info("Received SIGHUP, reloading the configuration and looking at the devices again.");
        manager_reload_config(m);
        manager_rescan(m);
        if (m->want_lock)
                manager_take_lock(m);
        else
                manager_release_lock(m, "nothing to manage");
        (void)sd_notify(false, "READY=1");
        manager_update_status(m);
        return 0;
}

int manager_load_libsystemd(char *why, size_t why_size)
{
        return libsystemd_load(LIBSYSTEMD_SONAME, why, why_size);
}

int manager_new(const ManagerParams *p, Manager **ret)
{
        _cleanup_(manager_freep) Manager *m = NULL;
        sigset_t mask;
        int r;

        m = calloc(1, sizeof(*m));
        if (!m) {
                config_free(p->config);
                rundir_free(p->rundir);
                safe_close(p->daemon_lock_fd);
                return -ENOMEM;
        }
        m->inhibit_fd = -EBADF;
        m->config = p->engine;
        m->owned_config = p->config;
        m->rundir = p->rundir;
        m->daemon_lock_fd = p->daemon_lock_fd;
        m->config.survey.config = m->owned_config;
        m->config.rundir = m->rundir;
        m->config_root = p->config_root;
        m->config_path = p->config_path;
        m->log_level_fixed = p->log_level_fixed;
        m->inhibit_delay_max_usec = DEFAULT_INHIBIT_DELAY_USEC;

        sigemptyset(&mask);
        sigaddset(&mask, SIGTERM);
        sigaddset(&mask, SIGINT);
        sigaddset(&mask, SIGHUP);
        sigaddset(&mask, SIGCHLD);
        if (sigprocmask(SIG_BLOCK, &mask, NULL) < 0)
                return negative_errno();

        r = sd_event_default(&m->event);
        if (r < 0)
                return r;
        r = sd_event_add_signal(m->event, NULL, SIGTERM, on_sigterm, m);
        if (r < 0)
                return r;
        r = sd_event_add_signal(m->event, NULL, SIGINT, on_sigterm, m);
        if (r < 0)
                return r;
        r = sd_event_add_signal(m->event, NULL, SIGHUP, on_sighup, m);
        if (r < 0)
                return r;
        r = sd_event_set_watchdog(m->event, true);
        if (r < 0)
                return r;

        *ret = TAKE_PTR(m);
        return 0;
}

Manager *manager_free(Manager *m)
{
        if (!m)
                return NULL;
        if (m->child > 0) {
                (void)kill(m->child, SIGKILL);
                (void)waitpid(m->child, NULL, 0);
        }
        m->child_source = sd_event_source_unref(m->child_source);
        m->deadline_source = sd_event_source_disable_unref(m->deadline_source);
        m->retry_source = sd_event_source_disable_unref(m->retry_source);
        m->rescan_source = sd_event_source_disable_unref(m->rescan_source);
        m->dev_watch = sd_event_source_disable_unref(m->dev_watch);
        m->dri_watch = sd_event_source_disable_unref(m->dri_watch);
        m->sleep_slot = sd_bus_slot_unref(m->sleep_slot);
        m->owner_slot = sd_bus_slot_unref(m->owner_slot);
        m->inhibit_call_slot = sd_bus_slot_unref(m->inhibit_call_slot);
        m->delay_call_slot = sd_bus_slot_unref(m->delay_call_slot);
        m->inhibit_fd = safe_close(m->inhibit_fd);
        m->owned_config = config_free(m->owned_config);
        m->rundir = rundir_free(m->rundir);
        m->daemon_lock_fd = safe_close(m->daemon_lock_fd);
        m->bus = sd_bus_flush_close_unref(m->bus);
        m->event = sd_event_unref(m->event);
        free(m);
        return NULL;
}

int manager_start(Manager *m)
{
        int r;

        r = sd_bus_open_system(&m->bus);
        if (r < 0)
                return log_error_errno(r, "Failed to connect to the system bus: %s. Is dbus running?", STRERROR(r));
        r = sd_bus_attach_event(m->bus, m->event, SD_EVENT_PRIORITY_NORMAL);
        if (r < 0)
                return log_error_errno(r, "Failed to attach the bus to the event loop: %s", STRERROR(r));

        r = sd_bus_match_signal(m->bus, &m->sleep_slot, LOGIND_SERVICE, LOGIND_PATH, LOGIND_MANAGER,
                                "PrepareForSleep", on_prepare_for_sleep, m);
        if (r < 0)
                return log_error_errno(r, "Failed to subscribe to PrepareForSleep: %s", STRERROR(r));
        r = sd_bus_match_signal(m->bus, &m->owner_slot, "org.freedesktop.DBus", "/org/freedesktop/DBus",
                                "org.freedesktop.DBus", "NameOwnerChanged", on_name_owner_changed, m);
        if (r < 0)
                return log_error_errno(r, "Failed to watch logind restarts: %s", STRERROR(r));

        manager_rescan(m);
        manager_start_watches(m);
        manager_read_delay(m);
        /* A daemon that died in a save may have left the console on a spare VT and files
         * half written: the rollback pass puts back the one and removes the others. It runs
         * before READY=1, so no sleep can meet it. */
        (void)pass_run_bounded(&m->config, ENGINE_ROLLBACK, PASS_ROLLBACK_DEADLINE_USEC);
        if (m->want_lock)
                manager_take_lock(m);
        else
                log_info("Idle: %s. Not taking a sleep delay lock.", m->managed_desc);

        (void)sd_notify(false, "READY=1");
        manager_update_status(m);
        return 0;
}

int manager_run(Manager *m)
{
        int r = sd_event_loop(m->event);
        (void)sd_notify(false, "STOPPING=1");
        manager_release_lock(m, "stopped");
        if (r < 0)
                return log_error_errno(r, "Event loop failed: %s", STRERROR(r));
        return r;
}
