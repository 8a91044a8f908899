/* SPDX-License-Identifier: MIT */
/* Owns the meaning of umsrestore.conf's lines: which sections and keys exist, a key or
 * section given twice in one file, and each setting merged into a Config (FILE:LINE errors). */
#include <ctype.h>

#include "conf-internal.h"
#include "conf-reader.h"
#include "conf-values.h"
#include "suggest.h"

/* Keys of the larger section: [General]. */
#define KEYS_MAX ((size_t)_GENERAL_KEY_MAX)
_Static_assert((size_t)_DEVICE_KEY_MAX <= KEYS_MAX, "key_lines too small");

static const char *const section_words[] = { "General", "Device" };

typedef enum SectionKind {
        SECTION_NONE,
        SECTION_GENERAL,
        SECTION_DEVICE,
} SectionKind;

/* A [Device X] section met in the file being parsed. */
typedef struct OpenedDevice {
        size_t index; /* in Config.devices */
        unsigned line;
} OpenedDevice;

/* One config_parse_string() call: one file. */
typedef struct ParseContext {
        Config *config;
        unsigned line; /* of the line being applied */

        SectionKind section;
        char section_name[CONF_LINE_MAX + 1]; /* as written */
        size_t device;                /* SECTION_DEVICE: index in config->devices */
        unsigned key_lines[KEYS_MAX]; /* line where each key of the section was set, 0 = not yet */
        unsigned general_line;        /* where [General] was opened in this file, 0 if not yet */
        OpenedDevice *opened;
        size_t n_opened;
} ParseContext;

/* Index of key in keys, or -1. */
static int key_index(const char *const *keys, size_t n, const char *key)
{
        for (size_t i = 0; i < n; i++)
                if (streq(keys[i], key))
                        return (int)i;
        return -1;
}

/* Checks that key is known in the current section and not set twice in it; returns its
 * index. */
static int section_key(ParseContext *ctx, const char *key, const char *const *keys, size_t n_keys,
                       const char *const *other_keys, size_t n_other, const char *other_section,
                       char **ret_error)
{
        const char *suggestion;
        char known[160];
        size_t len = 0;
        int k;

        if (key[0] == '\0')
                return conf_error(ret_error, -EINVAL, "missing key name before '=' in [%s]", ctx->section_name);
        k = key_index(keys, n_keys, key);
        if (k >= 0) {
                if (ctx->key_lines[k])
                        return conf_error(ret_error, -EINVAL, "duplicate key '%s' in [%s] (first set at line %u)",
                                          key, ctx->section_name, ctx->key_lines[k]);
                ctx->key_lines[k] = ctx->line;
                return k;
        }
        if (key_index(other_keys, n_other, key) >= 0)
                return conf_error(ret_error, -EINVAL, "key '%s' belongs in %s, not in [%s]", key, other_section,
                                  ctx->section_name);
        suggestion = suggest_closest(key, strlen(key), keys, n_keys);
        if (suggestion)
                return conf_error(ret_error, -EINVAL, "unknown key '%s' in [%s] (did you mean '%s'?)", key,
                                  ctx->section_name, suggestion);
        known[0] = '\0';
        for (size_t i = 0; i < n_keys && len < sizeof(known); i++)
                len += (size_t)snprintf(known + len, sizeof(known) - len, "%s%s", i ? ", " : "", keys[i]);
        return conf_error(ret_error, -EINVAL, "unknown key '%s' in [%s] (known keys: %s)", key,
                          ctx->section_name, known);
}

/* Replaces *list with the parsed value of a device list key. */
static int set_device_list(const char *key, const char *value, DeviceMatch **list, size_t *n_list,
                           char **ret_error)
{
        DeviceMatch *parsed;
        size_t n;
        int r;

        r = conf_parse_devices(key, value, &parsed, &n, ret_error);
        if (r < 0)
                return r;
        free(*list);
        *list = parsed;
        *n_list = n;
        return 0;
}

/* An empty value (Key=) restores a key's default: for the lists, the empty list their
 * parsers make of it; for the others, config_defaults. */
static int general_set(Config *c, GeneralKey k, const char *value, char **ret_error)
{
        const char *key = config_general_keys[k];
        bool reset = value[0] == '\0';
        int r;

        switch (k) {
        case GENERAL_METHODS:
                return conf_parse_methods(key, value, c->methods, &c->n_methods, ret_error);
        case GENERAL_CONSOLE_SWITCH:
                r = reset ? config_defaults.console_switch : conf_parse_boolean(key, value, ret_error);
                if (r >= 0) {
                        c->console_switch = r;
                        c->console_switch_set = !reset;
                }
                return r;
        case GENERAL_VBE_POST:
                r = reset ? config_defaults.vbe_post : conf_parse_boolean(key, value, ret_error);
                if (r >= 0) {
                        c->vbe_post = r;
                        c->vbe_post_set = !reset;
                }
                return r;
        case GENERAL_SAVE_DEADLINE:
                if (reset)
                        c->save_deadline_usec = config_defaults.save_deadline_usec;
                return reset ? 0 : conf_parse_deadline(key, value, &c->save_deadline_usec, ret_error);
        case GENERAL_MANUAL_DEADLINE:
                if (reset) {
                        c->manual_deadline_usec = config_defaults.manual_deadline_usec;
                        return 0;
                }
                r = conf_parse_deadline(key, value, &c->manual_deadline_usec, ret_error);
                if (r >= 0 && c->manual_deadline_usec == 0)
                        c->manual_deadline_usec = config_defaults.manual_deadline_usec;
                return r;
        case GENERAL_INCLUDE:
                return set_device_list(key, value, &c->include, &c->n_include, ret_error);
        case GENERAL_EXCLUDE:
                return set_device_list(key, value, &c->exclude, &c->n_exclude, ret_error);
        case GENERAL_LOG_LEVEL:
                if (reset)
                        c->log_level = config_defaults.log_level;
                return reset ? 0 : conf_parse_log_level(key, value, &c->log_level, ret_error);
        case _GENERAL_KEY_MAX:
                break;
        }
        return -EINVAL;
}

static int device_set(ConfigDevice *dev, DeviceKey k, const char *value, char **ret_error)
{
        const char *key = config_device_keys[k];
        int r;

        switch (k) {
        case DEVICE_MANAGE:
                r = value[0] == '\0' ? -1 : conf_parse_boolean(key, value, ret_error);
                if (r < 0 && value[0] != '\0')
                        return r;
                dev->manage = r;
                return 0;
        case DEVICE_METHODS:
                return conf_parse_methods(key, value, dev->methods, &dev->n_methods, ret_error);
        case DEVICE_VBE_POST:
                r = value[0] == '\0' ? -1 : conf_parse_boolean(key, value, ret_error);
                if (r < 0 && value[0] != '\0')
                        return r;
                dev->vbe_post = r;
                return 0;
        case _DEVICE_KEY_MAX:
                break;
        }
        return -EINVAL;
}

static int assignment(ParseContext *ctx, const char *key, const char *value, char **ret_error)
{
        const char *const *g = config_general_keys, *const *d = config_device_keys;
        int k;

        switch (ctx->section) {
        case SECTION_GENERAL:
                k = section_key(ctx, key, g, _GENERAL_KEY_MAX, d, _DEVICE_KEY_MAX, "a [Device ...] section",
                                ret_error);
                return k < 0 ? k : general_set(ctx->config, (GeneralKey)k, value, ret_error);
        case SECTION_DEVICE:
                k = section_key(ctx, key, d, _DEVICE_KEY_MAX, g, _GENERAL_KEY_MAX, "[General]", ret_error);
                return k < 0 ? k
                             : device_set(&ctx->config->devices[ctx->device], (DeviceKey)k, value, ret_error);
        case SECTION_NONE:
                break;
        }
        return conf_error(ret_error, -EINVAL,
                          "'%s=' is outside of any section (put it under [General] or [Device ...])", key);
}

static int open_device_section(ParseContext *ctx, const char *id, size_t n, char **ret_error)
{
        _cleanup_free_ char *where = NULL;
        OpenedDevice *grown;
        DeviceMatch m;
        size_t index;
        int r;

        if (n == 0)
                return conf_error(ret_error, -EINVAL,
                                  "section [%s] needs a device: [Device 0000:00:02.0] or [Device 8086:27ae]",
                                  ctx->section_name);
        if (asprintf(&where, "[%s]", ctx->section_name) < 0)
                return conf_error(ret_error, -ENOMEM, NULL);
        r = conf_parse_device(where, id, n, &m, ret_error);
        if (r < 0)
                return r;
        if (config_device_get(ctx->config, &m, &index) < 0)
                return conf_error(ret_error, -ENOMEM, NULL);
        for (size_t i = 0; i < ctx->n_opened; i++)
                if (ctx->opened[i].index == index)
                        return conf_error(ret_error, -EINVAL,
                                          "duplicate section [%s] (this device already has a section at line %u)",
                                          ctx->section_name, ctx->opened[i].line);
        grown = reallocarray(ctx->opened, ctx->n_opened + 1, sizeof(*grown));
        if (!grown)
                return conf_error(ret_error, -ENOMEM, NULL);
        ctx->opened = grown;
        grown[ctx->n_opened++] = (OpenedDevice){ .index = index, .line = ctx->line };
        ctx->device = index;
        ctx->section = SECTION_DEVICE;
        return 0;
}

static int open_section(ParseContext *ctx, const char *name, char **ret_error)
{
        size_t wlen = strcspn(name, " \t"), n;
        const char *rest = name + wlen, *suggestion;

        ctx->section = SECTION_NONE;
        memset(ctx->key_lines, 0, sizeof(ctx->key_lines));
        snprintf(ctx->section_name, sizeof(ctx->section_name), "%s", name);

        if (streq(name, "General")) {
                if (ctx->general_line)
                        return conf_error(ret_error, -EINVAL, "duplicate section [General] (first at line %u)",
                                          ctx->general_line);
                ctx->general_line = ctx->line;
                ctx->section = SECTION_GENERAL;
                return 0;
        }
        if (wlen == strlen("Device") && strncmp(name, "Device", wlen) == 0) {
                while (isspace((unsigned char)*rest))
                        rest++;
                n = strlen(rest);
                while (n > 0 && isspace((unsigned char)rest[n - 1]))
                        n--;
                return open_device_section(ctx, rest, n, ret_error);
        }
        suggestion = suggest_closest(name, wlen, section_words, ELEMENTSOF(section_words));
        if (suggestion && streq(suggestion, "General"))
                return conf_error(ret_error, -EINVAL, "unknown section [%s] (did you mean [General]?)", name);
        if (suggestion)
                return conf_error(ret_error, -EINVAL, "unknown section [%s] (did you mean [Device%s]?)", name,
                                  rest);
        return conf_error(ret_error, -EINVAL,
                          "unknown section [%s] (expected [General] or [Device SLOT|VENDOR:DEVICE])", name);
}

int config_parse_string(const char *text, const char *name, Config *c, char **ret_error)
{
        ParseContext ctx = { .config = c, .section = SECTION_NONE };
        _cleanup_free_ char *error = NULL;
        ConfReader reader;
        ConfLine line;
        int r;

        if (!text || !name || !c)
                return conf_error(ret_error, -EINVAL, "invalid arguments");
        conf_reader_init(&reader, text);
        for (;;) {
                r = conf_reader_next(&reader, &line, &error);
                if (r <= 0)
                        break;
                ctx.line = line.number;
                if (line.type == CONF_LINE_SECTION)
                        r = open_section(&ctx, line.section, &error);
                else
                        r = assignment(&ctx, line.key, line.value, &error);
                if (r < 0)
                        break;
        }
        free(ctx.opened);
        if (r >= 0)
                return 0;
        if (!error)
                return conf_error(ret_error, r, NULL);
        return conf_error(ret_error, r, "%s:%u: %s", name, reader.number, error);
}
