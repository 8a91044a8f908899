/* SPDX-License-Identifier: MIT */
/* Owns the save, restore and rollback passes over the managed devices of a survey: per
 * method sections, state and undo files, validation before the first write, verify. */
#include <assert.h>
#include <sys/utsname.h>
#include <time.h>

#include "engine.h"
#include "log.h"
#include "sysfs.h"

/* A record: "<epoch-usec> <errno> <duration-usec> <message>\n", then the methods' line
 * "methods <name>:<save-usec>:<restore-usec>:<errno>:<mismatches> ...\n". */
#define RECORD_MAX 2048

const char *engine_op_to_string(EngineOp op)
{
        switch (op) {
        case ENGINE_SAVE:
                return "save";
        case ENGINE_RESTORE:
                return "restore";
        case ENGINE_ROLLBACK:
                return "rollback";
        case ENGINE_TEST:
                return "test-restore";
        }
        return "?";
}

EngineResult *engine_result_free(EngineResult *r)
{
        if (!r)
                return NULL;
        free(r->devices);
        free(r);
        return NULL;
}

void engine_config_default(EngineConfig *c)
{
        *c = (EngineConfig){
                .survey = {
                        .root = NULL,
                        .pci_source = pci_source_pciaccess,
                        .classify_env = classify_env_default(NULL),
                        .console_switch = true,
                },
                .hw = &hw_backend_pciaccess,
        };
}

static void read_boot_id(const char *root, char buf[static 37])
{
        _cleanup_free_ char *s = NULL;
        buf[0] = '\0';
        if (sysfs_read_line(root, "/proc/sys/kernel/random/boot_id", &s) >= 0)
                snprintf(buf, 37, "%s", s);
}

static void append_method_name(DeviceResult *res, const char *name)
{
        size_t len = strlen(res->methods);
        snprintf(res->methods + len, sizeof(res->methods) - len, "%s%s", len ? ", " : "", name);
}

/* The entry of method m in res, added (in the order methods first ran) if there is none. */
static MethodResult *method_result(DeviceResult *res, const MethodOps *m)
{
        MethodResult *mr;

        for (unsigned i = 0; i < res->n_per_method; i++)
                if (streq(res->per_method[i].name, m->name))
                        return &res->per_method[i];
        assert(res->n_per_method < ELEMENTSOF(res->per_method));
        mr = &res->per_method[res->n_per_method++];
        snprintf(mr->name, sizeof(mr->name), "%s", m->name);
        return mr;
}

/* The first line of what a verify appended to report from offset on. */
static void report_first_line(Buffer *report, size_t offset, char *buf, size_t size)
{
        const char *s = buffer_str(report);

        snprintf(buf, size, "%s", strlen(s) > offset ? s + offset : "");
        buf[strcspn(buf, "\n")] = '\0';
}

/* Appends m's section, its payload just saved into payload, to s. */
static void add_section(StateFile *s, const MethodOps *m, const Buffer *payload)
{
        s->sections[s->n_sections++] = (StateSection){
                .method_id = m->id,
                .method_version = m->version,
                .len = (uint32_t)payload->size,
                .payload = payload->data,
        };
}

static void state_fill_header(const EngineConfig *c, const DisplayDevice *d, StateFile *s)
{
        struct utsname u;

        state_identity_from_device(&s->identity, d);
        if (uname(&u) >= 0)
                snprintf(s->kernel_release, sizeof(s->kernel_release), "%s", u.release);
        read_boot_id(c->survey.root, s->boot_id);
        s->time_usec = clock_usec(CLOCK_REALTIME);
}

static void remove_undo(const EngineConfig *c, const DisplayDevice *d)
{
        char name[STATE_NAME_MAX];

        if (state_file_name(d->slot, STATE_UNDO_SUFFIX, name) >= 0)
                (void)state_remove(c->rundir->fd, name);
}

/* Opens d through the configured backend; a failure is said in res. */
static int open_device(const EngineConfig *c, const DisplayDevice *d, DeviceResult *res, Hw **ret)
{
        int r = c->hw->open(d, c->hw->userdata, ret);
        if (r < 0)
                snprintf(res->message, sizeof(res->message), "cannot open the device for access: %s",
                         STRERROR(r));
        return r;
}

/* Some method of sd's plan has a save_again(), the last save of the device succeeded and no
 * restore succeeded after it (the records say so). Without such a method no record is read:
 * the save of every other device does no extra I/O. */
static bool previous_save_unrestored(const EngineConfig *c, const SurveyDevice *sd)
{
        const DisplayDevice *d = &sd->device;
        EngineLast save, restore;
        bool wanted = false;

        for (size_t i = 0; i < sd->n_plan; i++)
                wanted = wanted || sd->plan[i]->save_again;
        if (!wanted)
                return false;
        if (engine_read_last_fields(c->rundir, d->slot, ENGINE_SAVE, &save) < 0 || save.error != 0)
                return false;
        if (engine_read_last_fields(c->rundir, d->slot, ENGINE_RESTORE, &restore) < 0)
                return true;
        return restore.error != 0 || restore.time_usec < save.time_usec;
}

static const StateSection *section_of(const StateFile *s, const MethodOps *m)
{
        for (size_t i = 0; s && i < s->n_sections; i++)
                if (s->sections[i].method_id == m->id)
                        return &s->sections[i];
        return NULL;
}

static int save_device(const EngineConfig *c, const SurveyDevice *sd, const char *console, DeviceResult *res)
{
        const DisplayDevice *d = &sd->device;
        Buffer payloads[PLAN_MAX] = { { 0 } };
        _cleanup_(state_file_freep) StateFile *old = NULL;
        _cleanup_(hw_freep) Hw *hw = NULL;
        StateFile s = { 0 };
        unsigned covered = 0;
        int r;

        /* Only a save that was never restored hands anything on (a method's save_again());
         * a state that does not load (another boot, tampered) hands on nothing. */
        if (previous_save_unrestored(c, sd) && engine_load_state(c, d, STATE_SUFFIX, &old) < 0)
                old = NULL;

        /* From here on the state of an earlier sleep is no longer restorable: if this save
         * fails or is killed, a restore must not write back a picture from another time. */
        r = state_invalidate(c->rundir->fd, d->slot);
        if (r < 0) {
                snprintf(res->message, sizeof(res->message), "cannot retire the previous state file in '%s': %s",
                         c->rundir->path, STRERROR(r));
                return r;
        }

        r = open_device(c, d, res, &hw);
        if (r < 0)
                return r;

        state_fill_header(c, d, &s);
        for (size_t i = 0; i < sd->n_plan; i++) {
                const MethodOps *m = sd->plan[i];
                const StateSection *again = m->save_again ? section_of(old, m) : NULL;
                uint64_t t0 = clock_usec(CLOCK_MONOTONIC);

                r = again ? m->save_again(hw, d, again->payload, again->len, &payloads[s.n_sections]) : 0;
                if (r == 0) {
                        r = m->probe(hw, d);
                        if (r < 0) {
                                snprintf(res->message, sizeof(res->message), "method %s: probe failed: %s",
                                         m->name, STRERROR(r));
                                goto finish;
                        }
                        if (r == 0)
                                continue;
                        r = m->save(hw, d, &payloads[s.n_sections]);
                }
                if (r < 0) {
                        snprintf(res->message, sizeof(res->message), "method %s: save failed: %s", m->name,
                                 STRERROR(r));
                        goto finish;
                }
                add_section(&s, m, &payloads[s.n_sections]);
                append_method_name(res, m->name);
                if (m->modes)
                        covered |= m->modes(d);
                if (m->commit) {
                        /* The console method moves to a spare VT: recorded first, so that a
                         * rollback pass can put it back should this pass be killed. */
                        r = state_write_undo(c->rundir->fd, &s);
                        if (r < 0) {
                                snprintf(res->message, sizeof(res->message),
                                         "cannot record what method %s will change in '%s': %s", m->name,
                                         c->rundir->path, STRERROR(r));
                                s.n_sections--;
                                goto finish;
                        }
                        r = m->commit(hw, d, s.sections[s.n_sections - 1].payload, s.sections[s.n_sections - 1].len);
                        if (r < 0) {
                                snprintf(res->message, sizeof(res->message), "method %s: save failed: %s", m->name,
                                         STRERROR(r));
                                s.n_sections--; /* commit undid itself where it could */
                                goto finish;
                        }
                }
                method_result(res, m)->save_usec = clock_usec(CLOCK_MONOTONIC) - t0;
        }

        r = state_write(c->rundir->fd, &s, NULL);
        if (r < 0) {
                snprintf(res->message, sizeof(res->message), "cannot write the state file in '%s': %s",
                         c->rundir->path, STRERROR(r));
                goto finish;
        }
        res->n_sections = (unsigned)s.n_sections;
        /* Said before the sleep, not found out after it: the saved methods cannot bring back
         * the mode the console runs (the plan's, less those whose probe declined). */
        if (sd->mode && !(covered & sd->mode))
                survey_mode_note(sd, console, res->warning, sizeof(res->warning));
        snprintf(res->message, sizeof(res->message), "saved %zu method%s (%s)%s%s", s.n_sections,
                 s.n_sections == 1 ? "" : "s", res->methods[0] ? res->methods : "none applied",
                 res->warning[0] ? "; WARNING: " : "", res->warning);
        r = 0;
finish:
        if (r < 0) {
                /* Undo what the saved methods changed (the console method has moved to a
                 * spare VT): put their own saved values back, newest first. */
                for (size_t i = s.n_sections; i-- > 0;) {
                        const MethodOps *m = method_by_id(s.sections[i].method_id);
                        (void)m->restore(hw, d, s.sections[i].payload, s.sections[i].len);
                }
        }
        remove_undo(c, d);
        for (size_t i = 0; i < PLAN_MAX; i++)
                buffer_done(&payloads[i]);
        return r;
}

int engine_check_sections(const StateFile *s)
{
        for (size_t i = 0; i < s->n_sections; i++) {
                const StateSection *sec = &s->sections[i];
                const MethodOps *m = method_by_id(sec->method_id);

                if (!m || m->version != sec->method_version)
                        return -EPROTO;
                if (m->check(sec->payload, sec->len) < 0)
                        return -EBADR;
        }
        return 0;
}

int engine_load_state(const EngineConfig *c, const DisplayDevice *d, const char *suffix, StateFile **ret)
{
        _cleanup_(state_file_freep) StateFile *s = NULL;
        char name[STATE_NAME_MAX], boot_id[37];
        int r;

        r = state_file_name(d->slot, suffix, name);
        if (r < 0)
                return r;
        r = state_load_at(c->rundir->fd, name, c->rundir->uid, &s);
        if (r < 0)
                return r;
        r = state_check_identity(s, d);
        if (r < 0)
                return r;
        read_boot_id(c->survey.root, boot_id);
        if (!streq(boot_id, s->boot_id))
                return -ESTALE;
        r = engine_check_sections(s);
        if (r < 0)
                return r;
        *ret = TAKE_PTR(s);
        return 0;
}

const char *engine_load_error_to_string(int r)
{
        switch (r) {
        case -ENOENT:
                return "no state was saved for it (the last save failed, or none ran: run --save-now before "
                       "suspending)";
        case -ESTALE:
                return "the state file is from another boot";
        case -EPROTO:
                return "the state file names a method or method version this build does not have";
        case -EBADR:
                return "a method section does not have the length or values its method expects";
        default:
                return state_error_to_string(r);
        }
}

/* One attempt at writing a state back (see write_back()). */
typedef struct Attempt {
        uint32_t skip;   /* sections (bit i = s->sections[i]) left out of this attempt */
        bool stop_early; /* stop after the first section whose verify fails (a fallback follows) */
        bool post;       /* the BIOS method may POST (DeviceSettings.vbe_post) */
        uint32_t failed; /* out: sections whose verify found differences */
        int failed_first; /* out: the first of them (in restore order), or -1 */
} Attempt;

/* Writes the sections of s back, newest first, verifying each right after its restore (a
 * later method, the console switch back, lets the kernel redraw, which legitimately
 * changes registers such as the cursor). Stops at the first failure: a later method must
 * not run on hardware that did not come back. */
static int write_back_attempt(Hw *hw, const DisplayDevice *dev, const StateFile *s, Attempt *a, DeviceResult *res,
                              Buffer *report)
{
        DisplayDevice d = *dev;

        d.settings.vbe_post = a->post;
        a->failed = 0;
        a->failed_first = -1;
        for (size_t i = s->n_sections; i-- > 0;) {
                const StateSection *sec = &s->sections[i];
                const MethodOps *m = method_by_id(sec->method_id);
                MethodResult *mr;
                uint64_t t0;
                int r;

                if (a->skip & (1u << i))
                        continue;
                mr = method_result(res, m);
                *mr = (MethodResult){ .save_usec = mr->save_usec };
                snprintf(mr->name, sizeof(mr->name), "%s", m->name);
                t0 = clock_usec(CLOCK_MONOTONIC);
                hw_clear_failure(hw);
                r = m->restore(hw, &d, sec->payload, sec->len);
                if (r < 0) {
                        mr->r = r;
                        mr->restore_usec = clock_usec(CLOCK_MONOTONIC) - t0;
                        snprintf(mr->report, sizeof(mr->report), "%.159s", hw->failure);
                        snprintf(res->message, sizeof(res->message), "method %s: restore failed: %s%s%s", m->name,
                                 hw->failure, hw->failure[0] ? ": " : "", STRERROR(r));
                        return r;
                }
                append_method_name(res, m->name);
                res->n_sections++;
                mr->restore_usec = clock_usec(CLOCK_MONOTONIC) - t0;
                if (m->verify) {
                        size_t before = report ? report->size : 0;
                        int v = m->verify(hw, &d, sec->payload, sec->len, report);
                        mr->restore_usec = clock_usec(CLOCK_MONOTONIC) - t0;
                        if (v > 0) {
                                mr->mismatches = (unsigned)v;
                                if (report)
                                        report_first_line(report, before, mr->report, sizeof(mr->report));
                                res->mismatches += (unsigned)v;
                                a->failed |= 1u << i;
                                if (a->failed_first < 0)
                                        a->failed_first = (int)i;
                                if (a->stop_early)
                                        return 0;
                        }
                }
        }
        return 0;
}

static int write_back(Hw *hw, const DisplayDevice *d, const StateFile *s, DeviceResult *res, Buffer *report)
{
        Attempt a = { .post = d->settings.vbe_post };
        return write_back_attempt(hw, d, s, &a, res, report);
}

/* The fallback plan of a restore: a video BIOS section (an on-demand method, vbe) saved beside
 * a native method that brings back the same kind of mode (mode: the console's, METHOD_MODE_*)
 * is held back. Returns the BIOS section's bit and sets *ret_native to the native ones', or
 * 0 when there is nothing to fall back on. */
static uint32_t fallback_sections(const StateFile *s, const DisplayDevice *d, unsigned mode, uint32_t *ret_native)
{
        uint32_t bios = 0, native = 0;

        for (size_t i = 0; i < s->n_sections; i++) {
                const MethodOps *m = method_by_id(s->sections[i].method_id);

                if (m->on_demand)
                        bios |= 1u << i;
                else if (mode && m->modes && (m->modes(d) & mode))
                        native |= 1u << i;
        }
        *ret_native = native;
        return native ? bios : 0;
}

/* Restores s on an open device along the plan: the native methods first; if one of those
 * that bring the mode back fails verification, again with the video BIOS method in its place;
 * if that fails too and the configuration allows a POST, once more with a POST. Every step
 * stays within the pass's deadline; the message says which step brought the display back. */
static int write_back_with_fallback(Hw *hw, const DisplayDevice *d, unsigned mode, const StateFile *s,
                                    DeviceResult *res, Buffer *report)
{
        uint32_t native, bios = fallback_sections(s, d, mode, &native);
        Attempt a = { .skip = bios, .stop_early = true };
        char failed_name[32], first_report[200];
        int r;

        if (!bios)
                return write_back(hw, d, s, res, report);

        r = write_back_attempt(hw, d, s, &a, res, report);
        if (r < 0 || !(a.failed & native))
                return r; /* (a failure elsewhere is reported as it is: the BIOS would not help) */

        snprintf(failed_name, sizeof(failed_name), "%s",
                 method_by_id(s->sections[a.failed_first].method_id)->name);
        snprintf(first_report, sizeof(first_report), "%s", buffer_str(report));
        first_report[strcspn(first_report, "\n")] = '\0';
        for (int step = 0; step < 2; step++) {
                if (step == 1 && !d->settings.vbe_post)
                        break;
                buffer_done(report);
                res->mismatches = 0;
                res->n_sections = 0;
                res->methods[0] = '\0';
                a = (Attempt){ .skip = native & a.failed, .post = step == 1, .stop_early = step == 0 && d->settings.vbe_post };
                r = write_back_attempt(hw, d, s, &a, res, report);
                if (r < 0)
                        return r;
                if (a.failed == 0) {
                        snprintf(res->fallback, sizeof(res->fallback), "restored by %s%s after %s failed verification (%s)",
                                 method_by_id(s->sections[__builtin_ctz(bios)].method_id)->name,
                                 step == 1 ? " with a POST" : "", failed_name, first_report);
                        return 0;
                }
        }
        snprintf(res->fallback, sizeof(res->fallback), "%s failed verification (%s); the video BIOS did not bring the display back either",
                 failed_name, first_report);
        return 0;
}

/* Opens the device and writes s back (see write_back()). */
static int open_and_write_back(const EngineConfig *c, const DisplayDevice *d, const StateFile *s,
                               DeviceResult *res, Buffer *report)
{
        _cleanup_(hw_freep) Hw *hw = NULL;
        int r;

        r = open_device(c, d, res, &hw);
        if (r < 0)
                return r;
        return write_back(hw, d, s, res, report);
}

/* Appends what the fallback did (if anything) to the message, after sep. */
static void append_fallback(DeviceResult *res, const char *sep)
{
        size_t n = strlen(res->message);

        if (res->fallback[0] && n < sizeof(res->message))
                snprintf(res->message + n, sizeof(res->message) - n, "%s%s", sep, res->fallback);
}

static int restore_device(const EngineConfig *c, const SurveyDevice *sd, DeviceResult *res)
{
        const DisplayDevice *d = &sd->device;
        _cleanup_(state_file_freep) StateFile *s = NULL;
        _cleanup_(buffer_done) Buffer report = { 0 };
        int r;

        /* Everything is validated before the device is even opened: never half a state. */
        r = engine_load_state(c, d, STATE_SUFFIX, &s);
        if (r < 0) {
                if (r == -ENOENT) {
                        res->no_state = true;
                        snprintf(res->message, sizeof(res->message), "not restored: %s",
                                 engine_load_error_to_string(r));
                } else {
                        res->refused = true;
                        snprintf(res->message, sizeof(res->message), "refused: %s; nothing was written",
                                 engine_load_error_to_string(r));
                }
                return r;
        }
        {
                _cleanup_(hw_freep) Hw *hw = NULL;

                r = open_device(c, d, res, &hw);
                if (r < 0)
                        return r;
                r = write_back_with_fallback(hw, d, sd->mode, s, res, &report);
                if (r < 0)
                        return r;
        }
        if (res->mismatches > 0) {
                /* One line for the log: the report's lines joined with ';'. */
                char t[201];
                size_t n;

                snprintf(t, sizeof(t), "%s", buffer_str(&report));
                n = strlen(t);
                while (n > 0 && t[n - 1] == '\n')
                        t[--n] = '\0';
                for (char *nl = strchr(t, '\n'); nl; nl = strchr(nl, '\n'))
                        *nl = ';';
                snprintf(res->message, sizeof(res->message), "restored %u method%s (%s), but %u %s on "
                         "read-back: %.200s",
                         res->n_sections, res->n_sections == 1 ? "" : "s", res->methods, res->mismatches,
                         res->mismatches == 1 ? "register differs" : "registers differ", t);
                append_fallback(res, "; ");
                return -EIO;
        }
        snprintf(res->message, sizeof(res->message), "restored and verified %u method%s (%s)", res->n_sections,
                 res->n_sections == 1 ? "" : "s", res->methods[0] ? res->methods : "none");
        append_fallback(res, ": ");
        return 0;
}

/* --test-restore on one device: saves the state of every method of the plan (into the undo
 * file, not the state file, and without the console's move to a spare VT), puts the display
 * in its after-sleep state where a method knows how, restores every method newest first and
 * verifies each. Refuses (-EBUSY, nothing written) where a graphical session owns the VT,
 * unless forced. Never POSTs. */
static int test_device(const EngineConfig *c, const SurveyDevice *sd, DeviceResult *res)
{
        const DisplayDevice *d = &sd->device;
        Buffer payloads[PLAN_MAX] = { { 0 } };
        _cleanup_(buffer_done) Buffer report = { 0 };
        _cleanup_(hw_freep) Hw *hw = NULL;
        StateFile s = { 0 };
        Attempt a = { 0 };
        bool graphics = false;
        int r;

        r = open_device(c, d, res, &hw);
        if (r < 0)
                return r;
        if (hw_vt_in_graphics(hw, &graphics) >= 0 && graphics && !c->test_force) {
                res->busy = true;
                snprintf(res->message, sizeof(res->message),
                         "not tested: a graphical session (an X server or a Wayland compositor) owns the active VT "
                         "and would fight the test; nothing was written. Run it from a text console, or give "
                         "--force");
                return -EBUSY;
        }

        state_fill_header(c, d, &s);
        for (size_t i = 0; i < sd->n_plan; i++) {
                const MethodOps *m = sd->plan[i];
                uint64_t t0 = clock_usec(CLOCK_MONOTONIC);

                r = m->probe(hw, d);
                if (r == 0)
                        continue;
                if (r >= 0)
                        r = m->save(hw, d, &payloads[s.n_sections]);
                if (r < 0) {
                        method_result(res, m)->r = r;
                        snprintf(res->message, sizeof(res->message), "not tested: method %s could not save: %s; "
                                 "nothing was written", m->name, STRERROR(r));
                        goto finish;
                }
                add_section(&s, m, &payloads[s.n_sections]);
                method_result(res, m)->save_usec = clock_usec(CLOCK_MONOTONIC) - t0;
        }

        /* Before the first write: a test stopped at its deadline is rolled back from this. */
        r = state_write_undo(c->rundir->fd, &s);
        if (r < 0) {
                snprintf(res->message, sizeof(res->message), "not tested: cannot record the saved state in '%s': "
                         "%s; nothing was written", c->rundir->path, STRERROR(r));
                goto finish;
        }
        for (size_t i = 0; i < s.n_sections; i++) {
                const MethodOps *m = method_by_id(s.sections[i].method_id);

                if (!m->disturb)
                        continue;
                r = m->disturb(hw, d);
                if (r < 0) {
                        /* Whatever it did is restored right below. */
                        snprintf(res->message, sizeof(res->message), "method %s: could not put the display in "
                                 "its after-sleep state: %s", m->name, STRERROR(r));
                        break;
                }
        }

        r = write_back_attempt(hw, d, &s, &a, res, &report);
        if (r >= 0 && res->mismatches > 0) {
                char t[201];

                snprintf(t, sizeof(t), "%s", buffer_str(&report));
                t[strcspn(t, "\n")] = '\0';
                snprintf(res->message, sizeof(res->message), "NOT restorable: after the restore %u %s on "
                         "read-back: %s", res->mismatches, res->mismatches == 1 ? "register differs" : "registers differ", t);
                r = -EIO;
        } else if (r >= 0)
                snprintf(res->message, sizeof(res->message), "restorable: %u method%s (%s) saved, disturbed, "
                         "restored and verified", res->n_sections, res->n_sections == 1 ? "" : "s",
                         res->methods[0] ? res->methods : "none");
finish:
        remove_undo(c, d);
        for (size_t i = 0; i < PLAN_MAX; i++)
                buffer_done(&payloads[i]);
        return r;
}

/* 1 if the device had an unfinished save to roll back (done or failed: see res), 0 if not. */
static int rollback_device(const EngineConfig *c, const SurveyDevice *sd, DeviceResult *res)
{
        const DisplayDevice *d = &sd->device;
        _cleanup_(state_file_freep) StateFile *s = NULL;
        _cleanup_(buffer_done) Buffer report = { 0 };
        int r;

        r = engine_load_state(c, d, STATE_UNDO_SUFFIX, &s);
        if (r == -ENOENT)
                return 0;
        if (r < 0) {
                res->refused = true;
                snprintf(res->message, sizeof(res->message), "rollback refused: %s; nothing was written",
                         engine_load_error_to_string(r));
                remove_undo(c, d);
                return r;
        }
        r = open_and_write_back(c, d, s, res, &report);
        if (r < 0)
                return r;
        remove_undo(c, d);
        snprintf(res->message, sizeof(res->message), "rolled back what an unfinished save or test-restore changed (%s)",
                 res->methods[0] ? res->methods : "nothing");
        return 1;
}

static const char *record_suffix(EngineOp op)
{
        return op == ENGINE_SAVE ? ".last-save" : op == ENGINE_TEST ? ".last-test" : ".last-restore";
}

static int record_result(const EngineConfig *c, EngineOp op, const DeviceResult *res)
{
        _cleanup_(buffer_done) Buffer line = { 0 };
        char name[STATE_NAME_MAX];
        int r;

        r = state_file_name(res->slot, record_suffix(op), name);
        if (r < 0)
                return r;
        r = buffer_printf(&line, "%llu %d %llu %s\nmethods", (unsigned long long)clock_usec(CLOCK_REALTIME), res->r,
                          (unsigned long long)res->duration_usec, res->message);
        for (unsigned i = 0; r >= 0 && i < res->n_per_method; i++) {
                const MethodResult *m = &res->per_method[i];
                r = buffer_printf(&line, " %s:%llu:%llu:%d:%u", m->name, (unsigned long long)m->save_usec,
                                  (unsigned long long)m->restore_usec, m->r, m->mismatches);
        }
        if (r >= 0)
                r = buffer_printf(&line, "\n");
        if (r < 0)
                return r;
        return state_write_record(c->rundir->fd, name, line.data, MIN(line.size, (size_t)RECORD_MAX));
}

int engine_run(const EngineConfig *c, EngineOp op, EngineResult **ret)
{
        _cleanup_(engine_result_freep) EngineResult *result = NULL;
        _cleanup_(survey_freep) Survey *survey = NULL;
        uint64_t t0;
        int r;

        if (!c || !c->hw || !c->rundir || !ret)
                return -EINVAL;
        t0 = clock_usec(CLOCK_MONOTONIC);
        r = survey_run(&c->survey, &survey);
        if (r < 0)
                return r;

        result = calloc(1, sizeof(*result));
        if (!result)
                return -ENOMEM;
        result->survey_usec = clock_usec(CLOCK_MONOTONIC) - t0;
        if (survey->n > 0) {
                result->devices = calloc(survey->n, sizeof(DeviceResult));
                if (!result->devices)
                        return -ENOMEM;
        }
        result->n_managed = survey->n_managed;
        result->n_unusable = survey->n_unusable;
        if (op == ENGINE_SAVE)
                sleep_flags_apply(c->survey.root, c->rundir, survey->acpi_video_flags, &result->sleep_flags);

        for (size_t i = 0; i < survey->n; i++) {
                const SurveyDevice *sd = &survey->devices[i];
                DeviceResult *res = &result->devices[result->n++];
                uint64_t start;

                snprintf(res->slot, sizeof(res->slot), "%s", sd->device.slot);
                snprintf(res->reason, sizeof(res->reason), "%s", sd->device.reason);
                res->verdict = sd->device.verdict;
                res->role = sd->role;
                if (sd->role == SURVEY_EXCLUDED)
                        snprintf(res->reason, sizeof(res->reason),
                                 "excluded by the configuration (Include=, Exclude= or Manage=)");
                if (sd->role != SURVEY_MANAGED)
                        continue; /* kms, foreign, unusable, excluded: no hardware access at all */

                start = clock_usec(CLOCK_MONOTONIC);
                switch (op) {
                case ENGINE_SAVE:
                        res->r = save_device(c, sd, survey->console, res);
                        break;
                case ENGINE_RESTORE:
                        res->r = restore_device(c, sd, res);
                        break;
                case ENGINE_TEST:
                        res->r = test_device(c, sd, res);
                        break;
                case ENGINE_ROLLBACK:
                        r = rollback_device(c, sd, res);
                        if (r == 0)
                                continue; /* nothing unfinished on this device */
                        res->r = MIN(r, 0);
                        break;
                }
                res->attempted = true;
                res->duration_usec = clock_usec(CLOCK_MONOTONIC) - start;
                if (res->r < 0)
                        result->n_failed++;
                else
                        result->n_done++;
                if (op != ENGINE_ROLLBACK)
                        (void)record_result(c, op, res);
        }
        if (op == ENGINE_RESTORE || op == ENGINE_ROLLBACK) /* after the devices: the flag is for the next wake */
                sleep_flags_reset(c->survey.root, c->rundir, &result->sleep_flags);

        *ret = TAKE_PTR(result);
        return 0;
}

int engine_read_last_fields(const RunDir *d, const char *slot, EngineOp op, EngineLast *ret)
{
        _cleanup_free_ char *line = NULL;
        char name[STATE_NAME_MAX];
        unsigned long long when, dur;
        char *methods, *save = NULL;
        int err, off = 0, r;

        if (!d)
                return -ENOENT;
        r = state_file_name(slot, record_suffix(op), name);
        if (r < 0)
                return r;
        r = state_read_record(d->fd, name, d->uid, RECORD_MAX, &line);
        if (r < 0)
                return r;
        methods = strchr(line, '\n');
        if (methods)
                *methods++ = '\0';
        if (sscanf(line, "%llu %d %llu %n", &when, &err, &dur, &off) != 3 || off == 0)
                return -EBADMSG;
        *ret = (EngineLast){ .time_usec = when, .error = err, .duration_usec = dur };
        snprintf(ret->message, sizeof(ret->message), "%s", line + off);
        /* The methods' line (records of older versions have none). */
        if (!methods || strncmp(methods, "methods", strlen("methods")) != 0)
                return 0;
        methods[strcspn(methods, "\n")] = '\0';
        for (char *tok = strtok_r(methods + strlen("methods"), " ", &save); tok && ret->n_methods < PLAN_MAX;
             tok = strtok_r(NULL, " ", &save)) {
                MethodResult *m = &ret->methods[ret->n_methods];
                unsigned long long su, ru;
                int n = 0;

                if (sscanf(tok, "%15[a-z0-9-]:%llu:%llu:%d:%u%n", m->name, &su, &ru, &m->r, &m->mismatches, &n) != 5 ||
                    tok[n] != '\0')
                        return -EBADMSG;
                m->save_usec = su;
                m->restore_usec = ru;
                ret->n_methods++;
        }
        return 0;
}

int engine_read_last(const RunDir *d, const char *slot, EngineOp op, char *buf, size_t size)
{
        EngineLast l;
        struct tm tm;
        char ts[32];
        time_t t;
        int r;

        r = engine_read_last_fields(d, slot, op, &l);
        if (r < 0)
                return r;
        t = (time_t)(l.time_usec / 1000000u);
        gmtime_r(&t, &tm);
        strftime(ts, sizeof(ts), "%Y-%m-%d %H:%M:%S UTC", &tm);
        snprintf(buf, size, "%s at %s (%.1f ms): %s", l.error == 0 ? "ok" : "FAILED", ts,
                 (double)l.duration_usec / 1000.0, l.message);
        return 0;
}
