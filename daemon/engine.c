/* SPDX-License-Identifier: MIT */
/* Owns the save and restore passes over all managed devices: plan, per-method sections,
 * state files, validation of every section before the first hardware write, verify. */
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <time.h>

#include "engine.h"
#include "log.h"
#include "state.h"
#include "sysfs.h"
#include "version.h"

static uint64_t now_usec(clockid_t clock)
{
        struct timespec ts;
        clock_gettime(clock, &ts);
        return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

const char *engine_op_to_string(EngineOp op)
{
        return op == ENGINE_SAVE ? "save" : "restore";
}

EngineResult *engine_result_free(EngineResult *r)
{
        if (!r)
                return NULL;
        free(r->devices);
        free(r);
        return NULL;
}

int engine_hw_open_real(const DisplayDevice *d, void *userdata, Hw **ret)
{
        (void)userdata;
        return hw_open_pciaccess(d, ret);
}

void engine_config_default(EngineConfig *c)
{
        *c = (EngineConfig){
                .root = NULL,
                .pci_source = pci_source_pciaccess,
                .classify_env = classify_env_default(NULL),
                .hw_open = engine_hw_open_real,
                .state_dir = UMSRESTORE_RUNSTATEDIR,
                .state_uid = 0,
                .console_switch = true,
        };
}

bool engine_device_allowed(const EngineConfig *c, const DisplayDevice *d)
{
        return !c->config || config_device_managed(c->config, d);
}

size_t engine_plan(const EngineConfig *c, const DisplayDevice *d, const MethodOps *ret[static PLAN_MAX])
{
        const char *selected[PLAN_MAX];
        size_t n = 0, n_selected = 0;
        bool console = c->console_switch && (!c->config || c->config->console_switch);

        if (!verdict_is_managed(d->verdict) || !engine_device_allowed(c, d))
                return 0;
        if (c->config)
                n_selected = config_device_methods(c->config, d, selected, PLAN_MAX);

        for (size_t i = 0; i < method_table_size && n < PLAN_MAX; i++) {
                const MethodOps *m = method_table[i];
                bool wanted = n_selected == 0;

                if (!m)
                        continue;
                for (size_t j = 0; j < n_selected && !wanted; j++)
                        wanted = streq(selected[j], m->name);
                if (!wanted || (!console && streq(m->name, "console")))
                        continue;
                ret[n++] = m;
        }
        return n;
}

void engine_plan_names(const EngineConfig *c, const DisplayDevice *d, char *buf, size_t size)
{
        const MethodOps *plan[PLAN_MAX];
        size_t n = engine_plan(c, d, plan), len = 0;

        buf[0] = '\0';
        for (size_t i = 0; i < n && len < size; i++)
                len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", plan[i]->name);
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

/* After a failed save, an older state file must not be restored as if it were this
 * sleep's: move it out of the way (it stays readable as "<slot>.state.prev"). */
static void invalidate_state(const EngineConfig *c, const DisplayDevice *d)
{
        _cleanup_free_ char *path = NULL, *prev = NULL;

        if (state_path(c->state_dir, d->slot, &path) < 0 || asprintf(&prev, "%s.prev", path) < 0)
                return;
        (void)rename(path, prev);
}

static int save_device(const EngineConfig *c, const DisplayDevice *d, DeviceResult *res)
{
        const MethodOps *plan[PLAN_MAX];
        Buffer payloads[PLAN_MAX] = { { 0 } };
        _cleanup_(hw_freep) Hw *hw = NULL;
        StateFile s = { 0 };
        struct utsname u;
        size_t n;
        int r;

        n = engine_plan(c, d, plan);
        r = c->hw_open(d, c->hw_userdata, &hw);
        if (r < 0) {
                snprintf(res->message, sizeof(res->message), "cannot open the device for access: %s",
                         STRERROR(r));
                invalidate_state(c, d);
                return r;
        }

        for (size_t i = 0; i < n; i++) {
                const MethodOps *m = plan[i];

                r = m->probe(hw, d);
                if (r < 0) {
                        snprintf(res->message, sizeof(res->message), "method %s: probe failed: %s", m->name,
                                 STRERROR(r));
                        goto finish;
                }
                if (r == 0)
                        continue;
                r = m->save(hw, d, &payloads[s.n_sections]);
                if (r < 0) {
                        snprintf(res->message, sizeof(res->message), "method %s: save failed: %s", m->name,
                                 STRERROR(r));
                        goto finish;
                }
                s.sections[s.n_sections] = (StateSection){
                        .method_id = m->id,
                        .method_version = m->version,
                        .len = (uint32_t)payloads[s.n_sections].size,
                        .payload = payloads[s.n_sections].data,
                };
                s.n_sections++;
                append_method_name(res, m->name);
        }

        state_identity_from_device(&s.identity, d);
        if (uname(&u) >= 0)
                snprintf(s.kernel_release, sizeof(s.kernel_release), "%s", u.release);
        read_boot_id(c->root, s.boot_id);
        s.time_usec = now_usec(CLOCK_REALTIME);

        r = state_write(c->state_dir, &s);
        if (r < 0) {
                snprintf(res->message, sizeof(res->message), "cannot write the state file in '%s': %s",
                         c->state_dir, STRERROR(r));
                goto finish;
        }
        res->n_sections = (unsigned)s.n_sections;
        snprintf(res->message, sizeof(res->message), "saved %zu method%s (%s)", s.n_sections,
                 s.n_sections == 1 ? "" : "s", res->methods[0] ? res->methods : "none applied");
        r = 0;
finish:
        if (r < 0) {
                /* Undo what the saved methods changed (the console method has moved to a
                 * spare VT): put their own saved values back, newest first. */
                for (size_t i = s.n_sections; i-- > 0;) {
                        const MethodOps *m = method_by_id(s.sections[i].method_id);
                        (void)m->restore(hw, d, s.sections[i].payload, s.sections[i].len);
                }
                invalidate_state(c, d);
        }
        for (size_t i = 0; i < PLAN_MAX; i++)
                buffer_done(&payloads[i]);
        return r;
}

int engine_load_state(const EngineConfig *c, const DisplayDevice *d, StateFile **ret)
{
        _cleanup_(state_file_freep) StateFile *s = NULL;
        _cleanup_free_ char *path = NULL;
        char boot_id[37];
        int r;

        r = state_path(c->state_dir, d->slot, &path);
        if (r < 0)
                return r;
        r = state_load_file(path, c->state_uid, &s);
        if (r < 0)
                return r;
        r = state_check_identity(s, d);
        if (r < 0)
                return r;
        read_boot_id(c->root, boot_id);
        if (!streq(boot_id, s->boot_id))
                return -ESTALE;
        for (size_t i = 0; i < s->n_sections; i++) {
                const StateSection *sec = &s->sections[i];
                const MethodOps *m = method_by_id(sec->method_id);

                if (!m || m->version != sec->method_version)
                        return -EPROTO;
                r = m->check(sec->payload, sec->len);
                if (r < 0)
                        return -EBADR;
        }
        *ret = TAKE_PTR(s);
        return 0;
}

static const char *load_error_to_string(int r)
{
        switch (r) {
        case -ENOENT:
                return "no saved state (run --save-now before suspending)";
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

static int restore_device(const EngineConfig *c, const DisplayDevice *d, DeviceResult *res)
{
        _cleanup_(state_file_freep) StateFile *s = NULL;
        _cleanup_(hw_freep) Hw *hw = NULL;
        Buffer report = { 0 };
        int r;

        /* Everything is validated before the device is even opened: never half a state. */
        r = engine_load_state(c, d, &s);
        if (r < 0) {
                res->refused = true;
                snprintf(res->message, sizeof(res->message), "refused: %s; nothing was written",
                         load_error_to_string(r));
                return r;
        }

        r = c->hw_open(d, c->hw_userdata, &hw);
        if (r < 0) {
                snprintf(res->message, sizeof(res->message), "cannot open the device for access: %s",
                         STRERROR(r));
                return r;
        }

        /* Restore in reverse save order, stopping at the first failure: a later method
         * (the console switch back) must not run on hardware that did not come back. */
        for (size_t i = s->n_sections; i-- > 0;) {
                const StateSection *sec = &s->sections[i];
                const MethodOps *m = method_by_id(sec->method_id);

                r = m->restore(hw, d, sec->payload, sec->len);
                if (r < 0) {
                        snprintf(res->message, sizeof(res->message), "method %s: restore failed: %s", m->name,
                                 STRERROR(r));
                        goto finish;
                }
                append_method_name(res, m->name);
                res->n_sections++;
                /* Verify right away: a later method (the console switch back) lets the
                 * kernel redraw, which legitimately changes registers such as the cursor. */
                if (m->verify) {
                        int v = m->verify(hw, d, sec->payload, sec->len, &report);
                        if (v > 0)
                                res->mismatches += (unsigned)v;
                }
        }
        if (res->mismatches > 0) {
                snprintf(res->message, sizeof(res->message), "restored %u method%s (%s), but %u register%s "
                         "differ on read-back: %.200s",
                         res->n_sections, res->n_sections == 1 ? "" : "s", res->methods, res->mismatches,
                         res->mismatches == 1 ? "" : "s", buffer_str(&report));
                r = -EIO;
                goto finish;
        }
        snprintf(res->message, sizeof(res->message), "restored and verified %u method%s (%s)", res->n_sections,
                 res->n_sections == 1 ? "" : "s", res->methods[0] ? res->methods : "none");
        r = 0;
finish:
        buffer_done(&report);
        return r;
}

int engine_run(const EngineConfig *c, EngineOp op, EngineResult **ret)
{
        _cleanup_(engine_result_freep) EngineResult *result = NULL;
        _cleanup_(device_list_freep) DeviceList *l = NULL;
        int r, first_error = 0;

        r = devices_discover(c->root, c->pci_source, &l);
        if (r < 0)
                return r;
        classify_devices(&c->classify_env, l);

        result = calloc(1, sizeof(*result));
        if (!result)
                return -ENOMEM;
        if (l->n > 0) {
                result->devices = calloc(l->n, sizeof(DeviceResult));
                if (!result->devices)
                        return -ENOMEM;
        }

        if (c->only_device && !device_list_find(l, c->only_device)) {
                *ret = TAKE_PTR(result);
                return -ENODEV;
        }

        for (size_t i = 0; i < l->n; i++) {
                const DisplayDevice *d = &l->devices[i];
                DeviceResult *res = &result->devices[result->n++];
                uint64_t start;

                snprintf(res->slot, sizeof(res->slot), "%s", d->slot);
                snprintf(res->reason, sizeof(res->reason), "%s", d->reason);
                res->verdict = d->verdict;
                if (c->only_device && d != device_list_find(l, c->only_device))
                        continue;
                if (!verdict_is_managed(d->verdict))
                        continue; /* kms, foreign, unusable: no hardware access at all */
                if (!engine_device_allowed(c, d)) {
                        snprintf(res->reason, sizeof(res->reason),
                                 "excluded by the configuration (Include=, Exclude= or Manage=)");
                        continue;
                }

                result->n_managed++;
                res->attempted = true;
                start = now_usec(CLOCK_MONOTONIC);
                res->r = op == ENGINE_SAVE ? save_device(c, d, res) : restore_device(c, d, res);
                res->duration_usec = now_usec(CLOCK_MONOTONIC) - start;
                if (res->r < 0) {
                        result->n_failed++;
                        if (first_error == 0)
                                first_error = res->r;
                }
                (void)engine_record_result(c, op, res);
        }

        *ret = TAKE_PTR(result);
        if ((*ret)->n_managed == 0)
                return -ENOENT;
        if (first_error < 0)
                return first_error;
        return 0;
}

/* "<state_dir>/<slot>.last-save": one line "<epoch-usec> <errno> <duration-usec> <message>". */
static int last_path(const EngineConfig *c, const char *slot, EngineOp op, char *buf, size_t size)
{
        int n = snprintf(buf, size, "%s/%s.last-%s", c->state_dir, slot, engine_op_to_string(op));
        return n < 0 || (size_t)n >= size ? -ENAMETOOLONG : 0;
}

int engine_record_result(const EngineConfig *c, EngineOp op, const DeviceResult *res)
{
        char path[512], tmp[540];
        _cleanup_close_ int fd = -EBADF;
        FILE *f;
        int r;

        r = last_path(c, res->slot, op, path, sizeof(path));
        if (r < 0)
                return r;
        if (mkdir(c->state_dir, 0700) < 0 && errno != EEXIST)
                return negative_errno();
        snprintf(tmp, sizeof(tmp), "%s.tmp", path);
        fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0600);
        if (fd < 0)
                return negative_errno();
        f = fdopen(fd, "w");
        if (!f)
                return negative_errno();
        fd = -EBADF;
        fprintf(f, "%llu %d %llu %s\n", (unsigned long long)now_usec(CLOCK_REALTIME), res->r,
                (unsigned long long)res->duration_usec, res->message);
        if (fclose(f) != 0)
                return negative_errno();
        if (rename(tmp, path) < 0)
                return negative_errno();
        return 0;
}

int engine_read_last(const EngineConfig *c, const char *slot, EngineOp op, char *buf, size_t size)
{
        char path[512], line[700];
        unsigned long long when, dur;
        int err, off = 0, r;
        FILE *f;

        r = last_path(c, slot, op, path, sizeof(path));
        if (r < 0)
                return r;
        f = fopen(path, "re");
        if (!f)
                return negative_errno();
        if (!fgets(line, sizeof(line), f)) {
                fclose(f);
                return -EBADMSG;
        }
        fclose(f);
        line[strcspn(line, "\n")] = '\0';
        if (sscanf(line, "%llu %d %llu %n", &when, &err, &dur, &off) != 3 || off == 0)
                return -EBADMSG;

        time_t t = (time_t)(when / 1000000u);
        struct tm tm;
        char ts[32];
        gmtime_r(&t, &tm);
        strftime(ts, sizeof(ts), "%Y-%m-%d %H:%M:%S UTC", &tm);
        snprintf(buf, size, "%s at %s (%.1f ms): %s", err == 0 ? "ok" : "FAILED", ts, (double)dur / 1000.0,
                 line + off);
        return 0;
}
