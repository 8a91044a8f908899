/* SPDX-License-Identifier: MIT */
/* Owns a pass as a caller sees it: the run lock, the sweep of leftovers, the backend's
 * begin/end, the engine run, one log line per device, and the exit code. */
#include "child.h"
#include "exit-codes.h"
#include "log.h"
#include "pass.h"

int pass_exit_code(EngineOp op, const EngineResult *res)
{
        if (res->n_managed == 0)
                /* nothing managed: not permitted if something would be managed but can't be */
                return res->n_unusable > 0 ? UMS_EXIT_NOT_PERMITTED : UMS_EXIT_NOTHING;
        if (res->n_failed == 0)
                return UMS_EXIT_OK;
        if (res->n_done > 0)
                return UMS_EXIT_PARTIAL;
        for (size_t i = 0; (op == ENGINE_RESTORE || op == ENGINE_TEST) && i < res->n; i++) {
                const DeviceResult *d = &res->devices[i];
                if (!d->attempted || d->r >= 0)
                        continue;
                if (d->busy)
                        return UMS_EXIT_BUSY;
                if (d->no_state)
                        return UMS_EXIT_NO_STATE;
                if (d->refused)
                        return UMS_EXIT_BAD_STATE;
                if (d->mismatches > 0)
                        return UMS_EXIT_VERIFY;
                break;
        }
        return UMS_EXIT_FAILURE;
}

static void pass_log_sleep_flags(EngineOp op, const SleepFlagsResult *f)
{
        if (f->acted && op == ENGINE_SAVE)
                log_info("kernel.acpi_video_flags set to %u (was %u): the quirks' ACPIVideoFlags= for the kernel's "
                         "wakeup code.", f->value, f->previous);
        else if (f->acted)
                log_info("kernel.acpi_video_flags put back to %u.", f->value);
        else if (f->r < 0 && op == ENGINE_SAVE)
                log_warning("Could not set kernel.acpi_video_flags to %u (ACPIVideoFlags= of the quirks): %s; the "
                            "display may stay dark after resume. See 'umsrestored --quirks'.",
                            f->value, strerror(-f->r));
        else if (f->r < 0)
                log_warning("Could not put kernel.acpi_video_flags back to %u: %s; set it by hand "
                            "(sysctl kernel.acpi_video_flags=%u) if the next resume misbehaves.",
                            f->value, strerror(-f->r), f->value);
}

void pass_log_results(const EngineConfig *c, EngineOp op, const EngineResult *res)
{
        const char *opname = engine_op_to_string(op);
        char failed[256] = "";
        size_t len = 0;

        for (size_t i = 0; i < res->n; i++) {
                const DeviceResult *d = &res->devices[i];

                if (!d->attempted) {
                        if (op != ENGINE_ROLLBACK && d->role != SURVEY_NOT_CHOSEN)
                                log_info("%s: %s, not touched: %s.", d->slot, verdict_to_string(d->verdict),
                                         d->reason);
                        continue;
                }
                if (d->r < 0) {
                        log_error("%s: %s failed: %s.", d->slot, opname, d->message);
                        if (len < sizeof(failed))
                                len += (size_t)snprintf(failed + len, sizeof(failed) - len, "%s%s", len ? ", " : "",
                                                        d->slot);
                } else if (d->warning[0]) /* the message ends with the warning */
                        log_warning("%s: %s (in %.1f ms).", d->slot, d->message, (double)d->duration_usec / 1000.0);
                else
                        log_info("%s: %s in %.1f ms.", d->slot, d->message, (double)d->duration_usec / 1000.0);
        }
        pass_log_sleep_flags(op, &res->sleep_flags);
        if (res->n_managed == 0 && op != ENGINE_ROLLBACK) {
                if (res->n == 0)
                        log_notice("No display device found: nothing to %s.", opname);
                else
                        log_notice("No device needs umsrestore (see above): nothing to %s.", opname);
        }
        if (res->n_failed > 0 && res->n_done > 0)
                log_warning("The %s partly failed: %zu of %zu device%s done; failed: %s. See 'umsrestored "
                            "--status'.",
                            opname, res->n_done, res->n_done + res->n_failed,
                            res->n_done + res->n_failed == 1 ? "" : "s", failed);
        else if (res->n_failed > 0)
                log_error("The %s failed for every device (%s). See 'umsrestored --status'%s.", opname, failed,
                          op == ENGINE_RESTORE ? " and try 'umsrestored --restore-now' from a shell" : "");
        (void)c;
}

/* At debug level: where the pass's time went (the run lock and sweep, the survey, each
 * device and its methods), for a person asking why a sleep or a wake is slow. */
static void pass_log_timing(EngineOp op, const EngineResult *res, uint64_t lock_usec, uint64_t total_usec)
{
        if (log_get_max_level() < LOG_DEBUG)
                return; /* its lines are put together with snprintf: none of that unless shown */
        log_debug("The %s took %.1f ms: run lock and sweep %.1f ms, survey %.1f ms, the rest the devices below.",
                  engine_op_to_string(op), (double)total_usec / 1000.0, (double)lock_usec / 1000.0,
                  (double)res->survey_usec / 1000.0);
        for (size_t i = 0; i < res->n; i++) {
                const DeviceResult *d = &res->devices[i];
                char line[512] = "";
                size_t len = 0;

                if (!d->attempted)
                        continue;
                for (unsigned k = 0; k < d->n_per_method && len < sizeof(line); k++) {
                        const MethodResult *m = &d->per_method[k];
                        len += (size_t)snprintf(line + len, sizeof(line) - len, "%s%s %.2f", k ? ", " : "", m->name,
                                                (double)(op == ENGINE_SAVE ? m->save_usec : m->restore_usec) / 1000.0);
                }
                log_debug("%s: %.1f ms in all; methods (ms): %s.", d->slot, (double)d->duration_usec / 1000.0,
                          line[0] ? line : "none");
        }
}

/* --test-restore's answer on stdout: per device, each method's times and result. */
static void pass_print_test(const EngineResult *res)
{
        for (size_t i = 0; i < res->n; i++) {
                const DeviceResult *d = &res->devices[i];

                if (!d->attempted)
                        continue;
                printf("%s: %s\n", d->slot, d->r >= 0 ? "RESTORABLE" : d->busy ? "NOT TESTED" : "NOT RESTORABLE");
                if (d->n_per_method == 0)
                        continue;
                printf("  %-12s %9s %11s  %s\n", "METHOD", "SAVE ms", "RESTORE ms", "RESULT");
                for (unsigned k = 0; k < d->n_per_method; k++) {
                        const MethodResult *m = &d->per_method[k];
                        char result[220];

                        if (m->r < 0)
                                snprintf(result, sizeof(result), "failed: %s%s%s", STRERROR(m->r),
                                         m->report[0] ? ": " : "", m->report);
                        else if (m->mismatches > 0)
                                snprintf(result, sizeof(result), "NOT restorable, %u differ: %s", m->mismatches,
                                         m->report);
                        else if (m->restore_usec == 0 && d->r < 0)
                                snprintf(result, sizeof(result), "not reached");
                        else
                                snprintf(result, sizeof(result), "restorable");
                        printf("  %-12s %9.2f %11.2f  %s\n", m->name, (double)m->save_usec / 1000.0,
                               (double)m->restore_usec / 1000.0, result);
                }
        }
        fflush(stdout);
}

int pass_run_locked(const EngineConfig *c, EngineOp op)
{
        _cleanup_(engine_result_freep) EngineResult *res = NULL;
        _cleanup_close_ int lock_fd = -EBADF;
        const char *opname = engine_op_to_string(op);
        uint64_t t_start = clock_usec(CLOCK_MONOTONIC), t_locked;
        int r, n;

        lock_fd = rundir_lock(c->rundir, PASS_LOCK_TIMEOUT_USEC);
        if (lock_fd == -EBUSY) {
                log_error("Another umsrestored is busy (lock '%s/lock' held for more than %u s); try again.",
                          c->rundir->path, PASS_LOCK_TIMEOUT_USEC / 1000000u);
                return UMS_EXIT_BUSY;
        }
        if (lock_fd < 0) {
                log_error_errno(lock_fd, "Failed to take the lock in '%s': %s. Are you root?", c->rundir->path,
                                STRERROR(lock_fd));
                return lock_fd == -EACCES || lock_fd == -EPERM ? UMS_EXIT_NOT_PERMITTED : UMS_EXIT_FAILURE;
        }
        /* Under the lock no write is under way: what a crash or a killed pass left goes. */
        n = rundir_sweep_temp(c->rundir);
        if (n > 0)
                log_info("Removed %d unfinished file%s from '%s'.", n, n == 1 ? "" : "s", c->rundir->path);

        if (c->hw->pass_begin) {
                r = c->hw->pass_begin(c->hw->userdata, opname);
                if (r < 0) {
                        log_error_errno(r, "The %s backend failed to start the %s: %s", c->hw->name, opname,
                                        STRERROR(r));
                        return UMS_EXIT_FAILURE;
                }
        }
        t_locked = clock_usec(CLOCK_MONOTONIC);
        r = engine_run(c, op, &res);
        if (c->hw->pass_end) {
                int q = c->hw->pass_end(c->hw->userdata);
                if (q < 0 && r >= 0)
                        r = q;
        }
        if (r == -ENODEV) {
                log_error("No display device at '%s'. Run 'umsrestored --status' to list them.",
                          c->survey.only_device);
                return UMS_EXIT_FAILURE;
        }
        if (r < 0) {
                log_error_errno(r, "Failed to %s: %s. Is /sys mounted?", opname, STRERROR(r));
                return UMS_EXIT_FAILURE;
        }
        pass_log_results(c, op, res);
        pass_log_timing(op, res, t_locked - t_start, clock_usec(CLOCK_MONOTONIC) - t_start);
        if (op == ENGINE_TEST)
                pass_print_test(res);
        return pass_exit_code(op, res);
}

typedef struct PassJob {
        const EngineConfig *config;
        EngineOp op;
} PassJob;

static int pass_child(void *userdata)
{
        PassJob *j = userdata;

        log_debug("The %s pass runs as PID %d.", engine_op_to_string(j->op), (int)getpid());
        return pass_run_locked(j->config, j->op);
}

int pass_spawn(const EngineConfig *c, EngineOp op, pid_t *ret_pid)
{
        PassJob j = { .config = c, .op = op };

        /* The child runs on a copy of j (fork), so a stack variable is fine. */
        return child_spawn(pass_child, &j, c->rundir->fd, ret_pid);
}

int pass_run_bounded(const EngineConfig *c, EngineOp op, uint64_t deadline_usec)
{
        pid_t pid;
        int r;

        r = pass_spawn(c, op, &pid);
        if (r < 0) {
                log_error_errno(r, "Failed to start the %s: %s", engine_op_to_string(op), STRERROR(r));
                return UMS_EXIT_FAILURE;
        }
        r = child_wait(pid, deadline_usec);
        if (r >= 0 && r < 128)
                return r;
        if (r >= 128)
                log_error("The %s pass died (%s).", engine_op_to_string(op), strsignal(r - 128));
        else if (r == -ETIMEDOUT)
                log_error("The %s did not finish within %.1f s and was stopped; nothing of it is trusted. %s if "
                          "the device is slow, and see 'umsrestored --status'.",
                          engine_op_to_string(op), (double)deadline_usec / 1e6,
                          op == ENGINE_TEST ? "Give a longer --deadline" : "Raise ManualDeadlineSec= in umsrestore.conf(5)");
        else
                log_error_errno(r, "Failed to wait for the %s: %s", engine_op_to_string(op), STRERROR(r));
        if (op == ENGINE_SAVE || op == ENGINE_TEST) {
                int q;

                /* The save may have moved the console to a spare VT before it was stopped; the
                 * test may have left the display half restored: its undo file holds what it saved. */
                q = child_run_bounded(pass_child, &(PassJob){ .config = c, .op = ENGINE_ROLLBACK }, c->rundir->fd,
                                      PASS_ROLLBACK_DEADLINE_USEC);
                if (q != UMS_EXIT_OK && q != UMS_EXIT_NOTHING)
                        log_error(op == ENGINE_SAVE ? "Rolling back the stopped save failed too (%d); the console may "
                                                      "still be on a spare VT: switch back with Alt+F1 or chvt."
                                                    : "Writing the saved state back after the stopped test failed "
                                                      "too (%d); run 'umsrestored --status' and reboot if the "
                                                      "screen stays dark.",
                                  q);
                else if (op == ENGINE_TEST)
                        log_notice("The state saved before the test was written back.");
        }
        return r == -ETIMEDOUT ? UMS_EXIT_TIMEOUT : UMS_EXIT_FAILURE;
}
