/* SPDX-License-Identifier: MIT */
/* Owns the Config object: its keys and defaults, its [Device X] entries, the engine's two
 * questions (is a device managed, which methods), and the effective configuration as text. */
#include <stdarg.h>
#include <syslog.h>

#include "conf-internal.h"
#include "conf-values.h"

const char *const config_general_keys[_GENERAL_KEY_MAX] = {
        [GENERAL_METHODS] = "Methods",
        [GENERAL_CONSOLE_SWITCH] = "ConsoleSwitch",
        [GENERAL_VBE_POST] = "VBEPost",
        [GENERAL_SAVE_DEADLINE] = "SaveDeadlineSec",
        [GENERAL_MANUAL_DEADLINE] = "ManualDeadlineSec",
        [GENERAL_INCLUDE] = "Include",
        [GENERAL_EXCLUDE] = "Exclude",
        [GENERAL_LOG_LEVEL] = "LogLevel",
};

const char *const config_device_keys[_DEVICE_KEY_MAX] = {
        [DEVICE_MANAGE] = "Manage",
        [DEVICE_METHODS] = "Methods",
        [DEVICE_VBE_POST] = "VBEPost",
};

const Config config_defaults = {
        .console_switch = true,
        .vbe_post = false,
        .save_deadline_usec = 0,
        .manual_deadline_usec = CONFIG_MANUAL_DEADLINE_DEFAULT_USEC,
        .log_level = LOG_INFO,
};

int conf_error(char **ret_error, int r, const char *fmt, ...)
{
        va_list ap;
        char *m = NULL;
        int n;

        if (!ret_error)
                return r;
        if (fmt) {
                va_start(ap, fmt);
                n = vasprintf(&m, fmt, ap);
                va_end(ap);
                if (n < 0) {
                        m = NULL;
                        r = -ENOMEM;
                }
        }
        *ret_error = m;
        return r;
}

int config_new(Config **ret)
{
        Config *c;

        c = malloc(sizeof(*c));
        if (!c)
                return -ENOMEM;
        *c = config_defaults;
        *ret = c;
        return 0;
}

Config *config_free(Config *c)
{
        if (!c)
                return NULL;
        free(c->include);
        free(c->exclude);
        free(c->devices);
        free(c);
        return NULL;
}

int config_device_get(Config *c, const DeviceMatch *m, size_t *ret_index)
{
        ConfigDevice *grown;

        for (size_t i = 0; i < c->n_devices; i++)
                if (device_match_equal(&c->devices[i].match, m)) {
                        *ret_index = i;
                        return 0;
                }
        grown = reallocarray(c->devices, c->n_devices + 1, sizeof(*grown));
        if (!grown)
                return -ENOMEM;
        c->devices = grown;
        grown[c->n_devices] = (ConfigDevice){ .match = *m, .manage = -1, .vbe_post = -1 };
        *ret_index = c->n_devices++;
        return 0;
}

static bool device_match_any(const DeviceMatch *list, size_t n, const DisplayDevice *d)
{
        for (size_t i = 0; i < n; i++)
                if (device_match_test(&list[i], d))
                        return true;
        return false;
}

static const ConfigDevice *config_device_section(const Config *c, const DisplayDevice *d, bool by_id)
{
        for (size_t i = 0; i < c->n_devices; i++)
                if (c->devices[i].match.by_id == by_id && device_match_test(&c->devices[i].match, d))
                        return &c->devices[i];
        return NULL;
}

bool config_device_managed(const Config *c, const DisplayDevice *d)
{
        if (device_match_any(c->exclude, c->n_exclude, d))
                return false;
        for (int by_id = 0; by_id <= 1; by_id++) {
                const ConfigDevice *s = config_device_section(c, d, by_id);
                if (s && s->manage >= 0)
                        return s->manage > 0;
        }
        if (c->n_include > 0)
                return device_match_any(c->include, c->n_include, d);
        return true;
}

int config_device_vbe_post_setting(const Config *c, const DisplayDevice *d)
{
        for (int by_id = 0; by_id <= 1; by_id++) {
                const ConfigDevice *s = config_device_section(c, d, by_id);
                if (s && s->vbe_post >= 0)
                        return s->vbe_post > 0;
        }
        return c->vbe_post_set ? c->vbe_post : -1;
}

bool config_device_vbe_post(const Config *c, const DisplayDevice *d)
{
        for (int by_id = 0; by_id <= 1; by_id++) {
                const ConfigDevice *s = config_device_section(c, d, by_id);
                if (s && s->vbe_post >= 0)
                        return s->vbe_post > 0;
        }
        return c->vbe_post;
}

size_t config_device_methods(const Config *c, const DisplayDevice *d, const char **ret, size_t max)
{
        const char *const *methods = c->methods;
        size_t n = c->n_methods;

        for (int by_id = 0; by_id <= 1; by_id++) {
                const ConfigDevice *s = config_device_section(c, d, by_id);
                if (s && s->n_methods > 0) {
                        methods = s->methods;
                        n = s->n_methods;
                        break;
                }
        }
        n = MIN(n, max);
        for (size_t i = 0; i < n; i++)
                ret[i] = methods[i];
        return n;
}

static int format_methods(Buffer *out, const char *key, const char *const *methods, size_t n)
{
        int r = buffer_printf(out, "%s=", key);

        for (size_t i = 0; i < n && r >= 0; i++)
                r = buffer_printf(out, "%s%s", i ? " " : "", methods[i]);
        return r < 0 ? r : buffer_printf(out, "\n");
}

static int format_device_list(Buffer *out, const char *key, const DeviceMatch *list, size_t n)
{
        char buf[DEVICE_MATCH_STRING_MAX];
        int r = buffer_printf(out, "%s=", key);

        for (size_t i = 0; i < n && r >= 0; i++) {
                device_match_format(&list[i], true, buf);
                r = buffer_printf(out, "%s%s", i ? " " : "", buf);
        }
        return r < 0 ? r : buffer_printf(out, "\n");
}

static const char *yes_no(bool b)
{
        return b ? "yes" : "no";
}

int config_format(const Config *c, Buffer *out)
{
        const char *const *g = config_general_keys, *const *dk = config_device_keys;
        char deadline[CONF_SECONDS_STRING_MAX], manual[CONF_SECONDS_STRING_MAX], level[16],
                id[DEVICE_MATCH_STRING_MAX];
        const char *level_name = conf_log_level_name(c->log_level);
        int r;

        conf_format_seconds(c->save_deadline_usec, deadline);
        conf_format_seconds(c->manual_deadline_usec, manual);
        if (level_name)
                snprintf(level, sizeof(level), "%s", level_name);
        else
                snprintf(level, sizeof(level), "%d", c->log_level);

        r = buffer_printf(out, "[General]\n");
        if (r >= 0)
                r = format_methods(out, g[GENERAL_METHODS], c->methods, c->n_methods);
        if (r >= 0)
                r = buffer_printf(out, "%s=%s\n%s=%s\n%s=%s\n%s=%s\n", g[GENERAL_CONSOLE_SWITCH],
                                  c->console_switch_set ? yes_no(c->console_switch) : "", g[GENERAL_VBE_POST],
                                  c->vbe_post_set ? yes_no(c->vbe_post) : "",
                                  g[GENERAL_SAVE_DEADLINE], deadline, g[GENERAL_MANUAL_DEADLINE], manual);
        if (r >= 0)
                r = format_device_list(out, g[GENERAL_INCLUDE], c->include, c->n_include);
        if (r >= 0)
                r = format_device_list(out, g[GENERAL_EXCLUDE], c->exclude, c->n_exclude);
        if (r >= 0)
                r = buffer_printf(out, "%s=%s\n", g[GENERAL_LOG_LEVEL], level);

        for (size_t i = 0; i < c->n_devices && r >= 0; i++) {
                const ConfigDevice *dev = &c->devices[i];

                device_match_format(&dev->match, false, id);
                r = buffer_printf(out, "\n[Device %s]\n%s=%s\n", id, dk[DEVICE_MANAGE],
                                  dev->manage < 0 ? "" : yes_no(dev->manage > 0));
                if (r >= 0)
                        r = format_methods(out, dk[DEVICE_METHODS], dev->methods, dev->n_methods);
                if (r >= 0)
                        r = buffer_printf(out, "%s=%s\n", dk[DEVICE_VBE_POST],
                                          dev->vbe_post < 0 ? "" : yes_no(dev->vbe_post > 0));
        }
        return r < 0 ? r : 0;
}
