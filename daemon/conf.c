/* SPDX-License-Identifier: MIT */
/* umsrestore.conf: the main file and drop-ins read through libinih with exact line numbers,
 * merged key by key; device matching for the engine; the effective configuration as text. */
#include <ctype.h>
#include <dirent.h>
#include <ini.h>
#include <inttypes.h>
#include <stdarg.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <syslog.h>

#include "conf.h"
#include "log.h"
#include "methods/method.h"
#include "suggest.h"
#include "version.h"

#define CONFIG_MAIN_FILE "umsrestore.conf"
#define CONFIG_DROPIN_DIR "umsrestore.conf.d"
#define QUOTE_MAX 60           /* characters of a bad line quoted in an error */
#define DEVICE_MATCH_STRING_MAX 16

/* Drop-in directories by priority: a file name here masks the same name further down. */
static const char *const dropin_dirs[] = { UMSRESTORE_SYSCONFDIR, "/run", "/usr/lib" };

typedef enum GeneralKey {
        GENERAL_METHODS,
        GENERAL_CONSOLE_SWITCH,
        GENERAL_VBE_POST,
        GENERAL_SAVE_DEADLINE,
        GENERAL_INCLUDE,
        GENERAL_EXCLUDE,
        GENERAL_LOG_LEVEL,
        _GENERAL_KEY_MAX,
} GeneralKey;

static const char *const general_keys[_GENERAL_KEY_MAX] = {
        [GENERAL_METHODS] = "Methods",
        [GENERAL_CONSOLE_SWITCH] = "ConsoleSwitch",
        [GENERAL_VBE_POST] = "VBEPost",
        [GENERAL_SAVE_DEADLINE] = "SaveDeadlineSec",
        [GENERAL_INCLUDE] = "Include",
        [GENERAL_EXCLUDE] = "Exclude",
        [GENERAL_LOG_LEVEL] = "LogLevel",
};

typedef enum DeviceKey {
        DEVICE_MANAGE,
        DEVICE_METHODS,
        _DEVICE_KEY_MAX,
} DeviceKey;

static const char *const device_keys[_DEVICE_KEY_MAX] = {
        [DEVICE_MANAGE] = "Manage",
        [DEVICE_METHODS] = "Methods",
};

/* Keys of the larger section: [General]. */
#define KEYS_MAX ((size_t)_GENERAL_KEY_MAX)
_Static_assert((size_t)_DEVICE_KEY_MAX <= KEYS_MAX, "key_lines too small");

static const char *const section_words[] = { "General", "Device" };

static const char *const level_names[] = {
        "emerg", "alert", "crit", "err", "warning", "notice", "info", "debug",
};

static const Config config_defaults = {
        .console_switch = true,
        .vbe_post = false,
        .save_deadline_usec = 0,
        .log_level = LOG_INFO,
};

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

/* State of one config_parse_string() call: one file. */
typedef struct ParseContext {
        Config *config;
        const char *text; /* input not yet handed to inih */
        unsigned line;    /* number of the line last handed to inih */
        bool stop;        /* the reader ends the input (after an error) */
        bool oom;
        unsigned error_line; /* first error found here (not by inih), 0 if none */
        char *error;         /* its message, without "NAME:LINE: " */

        SectionKind section;
        char section_name[64];        /* as inih reports it (inih keeps at most 50 bytes) */
        size_t device;                /* SECTION_DEVICE: index in config->devices */
        unsigned key_lines[KEYS_MAX]; /* line where each key of the section was set, 0 = not yet */
        unsigned general_line;        /* where [General] was opened in this file, 0 if not yet */
        OpenedDevice *opened;
        size_t n_opened;
} ParseContext;

static int set_error(char **ret_error, int r, const char *fmt, ...) _printf_(3, 4);
static int set_error(char **ret_error, int r, const char *fmt, ...)
{
        va_list ap;
        char *m = NULL;

        if (!ret_error)
                return r;
        if (fmt) {
                va_start(ap, fmt);
                if (vasprintf(&m, fmt, ap) < 0)
                        m = NULL;
                va_end(ap);
        }
        *ret_error = m;
        return r;
}

/* Records the first error of the file and stops reading. */
static void ctx_error(ParseContext *ctx, unsigned line, const char *fmt, ...) _printf_(3, 4);
static void ctx_error(ParseContext *ctx, unsigned line, const char *fmt, ...)
{
        va_list ap;
        char *m;
        int n;

        ctx->stop = true;
        if (ctx->error_line || ctx->oom)
                return;
        va_start(ap, fmt);
        n = vasprintf(&m, fmt, ap);
        va_end(ap);
        if (n < 0) {
                ctx->oom = true;
                return;
        }
        ctx->error = m;
        ctx->error_line = line;
}

static void ctx_oom(ParseContext *ctx)
{
        ctx->oom = true;
        ctx->stop = true;
}

static int parse_boolean(const char *v)
{
        static const char *const yes[] = { "yes", "true", "on", "1" };
        static const char *const no[] = { "no", "false", "off", "0" };

        for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
                if (strcasecmp(v, yes[i]) == 0)
                        return 1;
                if (strcasecmp(v, no[i]) == 0)
                        return 0;
        }
        return -EINVAL;
}

/* "0", or seconds with up to 6 decimals ("2.5"). Range checks are the caller's. */
static int parse_seconds(const char *s, uint64_t *ret_usec)
{
        uint64_t sec = 0, frac = 0;
        size_t digits = 0;

        for (; isdigit((unsigned char)*s); s++, digits++) {
                if (digits >= 9) /* over 10^9 s: out of any range, without overflow */
                        return -ERANGE;
                sec = sec * 10 + (uint64_t)(*s - '0');
        }
        if (digits == 0)
                return -EINVAL;
        if (*s == '.') {
                s++;
                digits = 0;
                for (; isdigit((unsigned char)*s); s++, digits++) {
                        if (digits >= 6)
                                return -EINVAL;
                        frac = frac * 10 + (uint64_t)(*s - '0');
                }
                if (digits == 0)
                        return -EINVAL;
                for (; digits < 6; digits++)
                        frac *= 10;
        }
        if (*s != '\0')
                return -EINVAL;
        *ret_usec = sec * 1000000 + frac;
        return 0;
}

/* The n bytes at s as exactly four hex digits (either case). */
static bool parse_hex16(const char *s, size_t n, uint16_t *ret)
{
        char buf[5];

        if (n != 4)
                return false;
        for (size_t i = 0; i < n; i++)
                if (!isxdigit((unsigned char)s[i]))
                        return false;
        memcpy(buf, s, 4);
        buf[4] = '\0';
        *ret = (uint16_t)strtoul(buf, NULL, 16);
        return true;
}

/* Strict: a slot as pci_parse_slot() takes it ("0000:00:02.0", "00:02.0") or a model
 * "8086:27ae" (n bytes of s), nothing else. */
static int device_match_parse(const char *s, size_t n, DeviceMatch *ret)
{
        DeviceMatch m = { 0 };
        char slot[SLOT_MAX];

        if (n == 9 && s[4] == ':' && parse_hex16(s, 4, &m.vendor_id) && parse_hex16(s + 5, 4, &m.device_id)) {
                m.by_id = true;
                *ret = m;
                return 0;
        }
        if (n >= sizeof(slot))
                return -EINVAL;
        memcpy(slot, s, n);
        slot[n] = '\0';
        if (pci_parse_slot(slot, &m.domain, &m.bus, &m.dev, &m.func) < 0)
                return -EINVAL;
        *ret = m;
        return 0;
}

/* For error messages: does a bad device string look like it meant a slot or an ID? */
static bool looks_like_slot(const char *s, size_t n)
{
        size_t colons = 0;

        for (size_t i = 0; i < n; i++) {
                if (s[i] == '.')
                        return true;
                colons += s[i] == ':';
        }
        return colons >= 2;
}

static const char *device_match_problem(const char *s, size_t n)
{
        return looks_like_slot(s, n) ? "invalid PCI slot" : "invalid PCI ID";
}

static const char *device_match_expected(const char *s, size_t n)
{
        return looks_like_slot(s, n) ? "expected 0000:00:02.0 or 00:02.0"
                                     : "expected vendor:device, e.g. 8086:27ae";
}

/* short_slot: "00:02.0" for domain 0 (lists use it so that a printed line is never longer
 * than the line it was parsed from). */
static void device_match_format(const DeviceMatch *m, bool short_slot,
                                char buf[static DEVICE_MATCH_STRING_MAX])
{
        if (m->by_id)
                snprintf(buf, DEVICE_MATCH_STRING_MAX, "%04x:%04x", m->vendor_id, m->device_id);
        else if (short_slot && m->domain == 0)
                snprintf(buf, DEVICE_MATCH_STRING_MAX, "%02x:%02x.%u", m->bus, m->dev, (unsigned)m->func);
        else
                pci_format_slot(buf, m->domain, m->bus, m->dev, m->func);
}

static bool device_match_equal(const DeviceMatch *a, const DeviceMatch *b)
{
        if (a->by_id != b->by_id)
                return false;
        if (a->by_id)
                return a->vendor_id == b->vendor_id && a->device_id == b->device_id;
        return a->domain == b->domain && a->bus == b->bus && a->dev == b->dev && a->func == b->func;
}

static bool device_match_test(const DeviceMatch *m, const DisplayDevice *d)
{
        if (m->by_id)
                return m->vendor_id == d->vendor_id && m->device_id == d->device_id;
        return m->domain == d->domain && m->bus == d->bus && m->dev == d->dev && m->func == d->func;
}

static bool device_match_any(const DeviceMatch *list, size_t n, const DisplayDevice *d)
{
        for (size_t i = 0; i < n; i++)
                if (device_match_test(&list[i], d))
                        return true;
        return false;
}

/* Next whitespace-separated word of *p; false at the end. */
static bool next_word(const char **p, const char **ret_word, size_t *ret_len)
{
        const char *s = *p, *e;

        while (*s && isspace((unsigned char)*s))
                s++;
        if (!*s) {
                *p = s;
                return false;
        }
        for (e = s; *e && !isspace((unsigned char)*e); e++)
                ;
        *ret_word = s;
        *ret_len = (size_t)(e - s);
        *p = e;
        return true;
}

static void unknown_method_error(ParseContext *ctx, const char *word, size_t n)
{
        const char *suggestion;
        char known[256];

        if (memchr(word, ',', n)) {
                ctx_error(ctx, ctx->line, "unknown method '%.*s' (separate method names with spaces)",
                          (int)n, word);
                return;
        }
        suggestion = method_closest_name(word, n);
        if (suggestion) {
                ctx_error(ctx, ctx->line, "unknown method '%.*s' (did you mean '%s'?)", (int)n, word,
                          suggestion);
                return;
        }
        method_names_join(known, sizeof(known));
        ctx_error(ctx, ctx->line, "unknown method '%.*s' (known methods: %s)", (int)n, word, known);
}

/* A space-separated list of method names; empty = not set. */
static int parse_method_list(ParseContext *ctx, const char *key, const char *value, const char **ret_methods,
                             size_t *ret_n)
{
        const char *list[CONFIG_METHODS_MAX], *p = value, *word;
        size_t n = 0, len;

        while (next_word(&p, &word, &len)) {
                const MethodOps *ops = method_by_name_len(word, len);

                if (!ops) {
                        unknown_method_error(ctx, word, len);
                        return -EINVAL;
                }
                for (size_t i = 0; i < n; i++)
                        if (list[i] == ops->name) {
                                ctx_error(ctx, ctx->line, "method '%s' is listed twice in %s=", ops->name,
                                          key);
                                return -EINVAL;
                        }
                if (n >= ELEMENTSOF(list)) {
                        ctx_error(ctx, ctx->line, "too many methods in %s= (at most %zu)", key,
                                  ELEMENTSOF(list));
                        return -EINVAL;
                }
                list[n++] = ops->name;
        }
        for (size_t i = 0; i < n; i++)
                ret_methods[i] = list[i];
        *ret_n = n;
        return 0;
}

/* A space-separated list of slots and IDs; replaces *list. Empty = no entries. */
static int parse_device_list(ParseContext *ctx, const char *key, const char *value, DeviceMatch **list,
                             size_t *n_list)
{
        _cleanup_free_ DeviceMatch *l = NULL;
        const char *p = value, *word;
        size_t n = 0, len;

        while (next_word(&p, &word, &len)) {
                DeviceMatch m, *grown;

                if (device_match_parse(word, len, &m) < 0) {
                        ctx_error(ctx, ctx->line, "%s '%.*s' in %s= (%s)", device_match_problem(word, len),
                                  (int)len, word, key, device_match_expected(word, len));
                        return -EINVAL;
                }
                grown = reallocarray(l, n + 1, sizeof(*l));
                if (!grown) {
                        ctx_oom(ctx);
                        return -ENOMEM;
                }
                l = grown;
                l[n++] = m;
        }
        free(*list);
        *list = TAKE_PTR(l);
        *n_list = n;
        return 0;
}

static int parse_bool_key(ParseContext *ctx, const char *key, const char *value)
{
        int b = parse_boolean(value);

        if (b < 0)
                ctx_error(ctx, ctx->line,
                          "invalid boolean '%s' for %s= (use yes/no, true/false, on/off or 1/0)", value,
                          key);
        return b;
}

/* Index of key in keys, or -1. */
static int key_index(const char *const *keys, size_t n, const char *key)
{
        for (size_t i = 0; i < n; i++)
                if (streq(keys[i], key))
                        return (int)i;
        return -1;
}

/* Checks that key is known in the current section and not set twice in it. Returns the
 * key's index, or -1 after recording an error. */
static int section_key(ParseContext *ctx, const char *key, const char *const *keys, size_t n_keys,
                       const char *const *other_keys, size_t n_other, const char *other_section)
{
        const char *suggestion;
        char known[160];
        size_t len = 0;
        int k;

        if (key[0] == '\0') {
                ctx_error(ctx, ctx->line, "missing key name before '=' in [%s]", ctx->section_name);
                return -1;
        }
        k = key_index(keys, n_keys, key);
        if (k >= 0) {
                if (ctx->key_lines[k]) {
                        ctx_error(ctx, ctx->line, "duplicate key '%s' in [%s] (first set at line %u)", key,
                                  ctx->section_name, ctx->key_lines[k]);
                        return -1;
                }
                ctx->key_lines[k] = ctx->line;
                return k;
        }
        if (key_index(other_keys, n_other, key) >= 0) {
                ctx_error(ctx, ctx->line, "key '%s' belongs in %s, not in [%s]", key, other_section,
                          ctx->section_name);
                return -1;
        }
        suggestion = suggest_closest(key, strlen(key), keys, n_keys);
        if (suggestion) {
                ctx_error(ctx, ctx->line, "unknown key '%s' in [%s] (did you mean '%s'?)", key,
                          ctx->section_name, suggestion);
                return -1;
        }
        known[0] = '\0';
        for (size_t i = 0; i < n_keys && len < sizeof(known); i++)
                len += (size_t)snprintf(known + len, sizeof(known) - len, "%s%s", i ? ", " : "", keys[i]);
        ctx_error(ctx, ctx->line, "unknown key '%s' in [%s] (known keys: %s)", key, ctx->section_name,
                  known);
        return -1;
}

/* An empty value resets a key to its default. */
static void general_set(ParseContext *ctx, GeneralKey k, const char *value)
{
        Config *c = ctx->config;
        const char *key = general_keys[k];
        bool reset = value[0] == '\0';
        uint64_t usec;
        int r;

        switch (k) {
        case GENERAL_METHODS:
                (void)parse_method_list(ctx, key, value, c->methods, &c->n_methods);
                return;
        case GENERAL_CONSOLE_SWITCH:
                r = reset ? config_defaults.console_switch : parse_bool_key(ctx, key, value);
                if (r >= 0)
                        c->console_switch = r;
                return;
        case GENERAL_VBE_POST:
                r = reset ? config_defaults.vbe_post : parse_bool_key(ctx, key, value);
                if (r >= 0)
                        c->vbe_post = r;
                return;
        case GENERAL_SAVE_DEADLINE:
                if (reset) {
                        c->save_deadline_usec = config_defaults.save_deadline_usec;
                        return;
                }
                r = parse_seconds(value, &usec);
                if (r == -EINVAL) {
                        ctx_error(ctx, ctx->line, "invalid number '%s' for %s= (seconds, e.g. 5 or 2.5)",
                                  value, key);
                        return;
                }
                if (r < 0 ||
                    (usec != 0 && (usec < CONFIG_DEADLINE_MIN_USEC || usec > CONFIG_DEADLINE_MAX_USEC))) {
                        ctx_error(ctx, ctx->line, "%s=%s is out of range (0, or 0.1 to 60 seconds)", key,
                                  value);
                        return;
                }
                c->save_deadline_usec = usec;
                return;
        case GENERAL_INCLUDE:
                (void)parse_device_list(ctx, key, value, &c->include, &c->n_include);
                return;
        case GENERAL_EXCLUDE:
                (void)parse_device_list(ctx, key, value, &c->exclude, &c->n_exclude);
                return;
        case GENERAL_LOG_LEVEL:
                r = reset ? config_defaults.log_level : log_level_from_string(value);
                if (r < 0) {
                        ctx_error(ctx, ctx->line,
                                  "invalid log level '%s' for %s= (use debug, info, notice, warning or err)",
                                  value, key);
                        return;
                }
                c->log_level = r;
                return;
        case _GENERAL_KEY_MAX:
                break;
        }
}

static void device_set(ParseContext *ctx, DeviceKey k, const char *value)
{
        ConfigDevice *dev = &ctx->config->devices[ctx->device];
        int r;

        switch (k) {
        case DEVICE_MANAGE:
                r = value[0] == '\0' ? -1 : parse_bool_key(ctx, device_keys[k], value);
                if (r >= 0 || value[0] == '\0')
                        dev->manage = r;
                return;
        case DEVICE_METHODS:
                (void)parse_method_list(ctx, device_keys[k], value, dev->methods, &dev->n_methods);
                return;
        case _DEVICE_KEY_MAX:
                break;
        }
}

static int config_handler(void *userdata, const char *section, const char *key, const char *value)
{
        ParseContext *ctx = userdata;
        int k;

        /* Errors are collected in ctx (with our own message), never returned to inih: its
         * return value then only reports lines it could not parse. */
        if (ctx->error_line || ctx->oom)
                return 1;
        if (ctx->section == SECTION_NONE) {
                ctx_error(ctx, ctx->line,
                          "'%s=' is outside of any section (put it under [General] or [Device ...])", key);
                return 1;
        }
        if (!streq(section, ctx->section_name)) {
                ctx_error(ctx, ctx->line, "cannot tell which section '%s=' belongs to", key);
                return 1;
        }
        if (ctx->section == SECTION_GENERAL) {
                k = section_key(ctx, key, general_keys, ELEMENTSOF(general_keys), device_keys,
                                ELEMENTSOF(device_keys), "a [Device ...] section");
                if (k >= 0)
                        general_set(ctx, (GeneralKey)k, value);
        } else {
                k = section_key(ctx, key, device_keys, ELEMENTSOF(device_keys), general_keys,
                                ELEMENTSOF(general_keys), "[General]");
                if (k >= 0)
                        device_set(ctx, (DeviceKey)k, value);
        }
        return 1;
}

static int config_device_get(Config *c, const DeviceMatch *m, size_t *ret_index)
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
        grown[c->n_devices] = (ConfigDevice){ .match = *m, .manage = -1 };
        *ret_index = c->n_devices++;
        return 0;
}

static void open_device_section(ParseContext *ctx, const char *id, size_t n)
{
        DeviceMatch m;
        OpenedDevice *grown;
        size_t index;

        if (n == 0) {
                ctx_error(ctx, ctx->line,
                          "section [%s] needs a device: [Device 0000:00:02.0] or [Device 8086:27ae]",
                          ctx->section_name);
                return;
        }
        if (device_match_parse(id, n, &m) < 0) {
                ctx_error(ctx, ctx->line, "%s '%.*s' in [%s] (%s)", device_match_problem(id, n), (int)n, id,
                          ctx->section_name, device_match_expected(id, n));
                return;
        }
        if (config_device_get(ctx->config, &m, &index) < 0) {
                ctx_oom(ctx);
                return;
        }
        for (size_t i = 0; i < ctx->n_opened; i++)
                if (ctx->opened[i].index == index) {
                        ctx_error(ctx, ctx->line,
                                  "duplicate section [%s] (this device already has a section at line %u)",
                                  ctx->section_name, ctx->opened[i].line);
                        return;
                }
        grown = reallocarray(ctx->opened, ctx->n_opened + 1, sizeof(*grown));
        if (!grown) {
                ctx_oom(ctx);
                return;
        }
        ctx->opened = grown;
        grown[ctx->n_opened++] = (OpenedDevice){ .index = index, .line = ctx->line };
        ctx->device = index;
        ctx->section = SECTION_DEVICE;
}

/* A section header on the current line, named exactly as inih will report it. */
static void open_section(ParseContext *ctx, const char *name)
{
        size_t wlen = strcspn(name, " \t"), n;
        const char *rest = name + wlen, *suggestion;

        ctx->section = SECTION_NONE;
        memset(ctx->key_lines, 0, sizeof(ctx->key_lines));
        snprintf(ctx->section_name, sizeof(ctx->section_name), "%s", name);

        if (streq(name, "General")) {
                if (ctx->general_line) {
                        ctx_error(ctx, ctx->line, "duplicate section [General] (first at line %u)",
                                  ctx->general_line);
                        return;
                }
                ctx->general_line = ctx->line;
                ctx->section = SECTION_GENERAL;
                return;
        }
        if (wlen == strlen("Device") && strncmp(name, "Device", wlen) == 0) {
                while (isspace((unsigned char)*rest))
                        rest++;
                n = strlen(rest);
                while (n > 0 && isspace((unsigned char)rest[n - 1]))
                        n--;
                open_device_section(ctx, rest, n);
                return;
        }
        suggestion = suggest_closest(name, wlen, section_words, ELEMENTSOF(section_words));
        if (suggestion && streq(suggestion, "General"))
                ctx_error(ctx, ctx->line, "unknown section [%s] (did you mean [General]?)", name);
        else if (suggestion)
                ctx_error(ctx, ctx->line, "unknown section [%s] (did you mean [Device%s]?)", name, rest);
        else
                ctx_error(ctx, ctx->line,
                          "unknown section [%s] (expected [General] or [Device SLOT|VENDOR:DEVICE])", name);
}

typedef struct SectionProbe {
        bool found;
        char *name;
} SectionProbe;

static int probe_handler(void *userdata, const char *section, const char *key, const char *value)
{
        SectionProbe *p = userdata;

        if (!p->found) {
                p->found = true;
                p->name = strdup(section);
        }
        return 1;
}

/* Called by the reader for a line starting with '['. inih reports sections only with
 * their keys, so a misspelt section without keys would go unnoticed: ask inih for the name
 * it makes of this line alone (followed by one key) and open the section here. */
static void section_line(ParseContext *ctx, const char *line)
{
        _cleanup_free_ char *text = NULL;
        SectionProbe probe = { 0 };
        const char *close = strchr(line, ']'), *after;

        if (asprintf(&text, "%sx=\n", line) < 0) {
                ctx_oom(ctx);
                return;
        }
        (void)ini_parse_string(text, probe_handler, &probe);
        if (!probe.found)
                return; /* not a section header to inih: it reports the syntax error */
        if (!probe.name) {
                ctx_oom(ctx);
                return;
        }
        if (!close || strlen(probe.name) != (size_t)(close - line - 1))
                ctx_error(ctx, ctx->line, "section name too long: '%s...'", probe.name);
        else {
                for (after = close + 1; isspace((unsigned char)*after); after++)
                        ;
                if (*after && *after != '#' && *after != ';')
                        ctx_error(ctx, ctx->line, "unexpected text after [%s]: '%.*s'", probe.name,
                                  (int)strcspn(after, "\n"), after);
                else
                        open_section(ctx, probe.name);
        }
        free(probe.name);
}

/* ini_reader: hands inih one line at a time and counts them, so that errors found in the
 * handler carry the line the key is on. Leading whitespace is dropped (inih would take an
 * indented line for the continuation of the previous value) and a line too long for
 * inih's buffer is an error (inih would split it into two lines). */
static char *config_reader(char *buf, int size, void *userdata)
{
        ParseContext *ctx = userdata;
        const char *p = ctx->text, *eol;
        size_t len;

        if (ctx->stop || !*p)
                return NULL;
        eol = strchr(p, '\n');
        len = eol ? (size_t)(eol - p) : strlen(p);
        ctx->text = eol ? eol + 1 : p + len;
        ctx->line++;

        if (ctx->line == 1 && len >= 3 && memcmp(p, "\xef\xbb\xbf", 3) == 0) {
                p += 3;
                len -= 3;
        }
        while (len > 0 && isspace((unsigned char)p[0])) {
                p++;
                len--;
        }
        while (len > 0 && isspace((unsigned char)p[len - 1]))
                len--;
        if (size < 2 || len > (size_t)size - 2) {
                ctx_error(ctx, ctx->line, "line is longer than %d characters", MAX(size - 2, 0));
                return NULL;
        }
        memcpy(buf, p, len);
        buf[len] = '\n';
        buf[len + 1] = '\0';
        if (buf[0] == '[')
                section_line(ctx, buf);
        return buf;
}

/* Line number (1-based) of text, without the BOM, surrounding whitespace and newline. */
static const char *text_line(const char *text, unsigned number, size_t *ret_len)
{
        const char *p = text;
        size_t len;

        for (unsigned i = 1; i < number && p; i++) {
                p = strchr(p, '\n');
                if (p)
                        p++;
        }
        if (!p) {
                *ret_len = 0;
                return "";
        }
        if (number == 1 && strncmp(p, "\xef\xbb\xbf", 3) == 0)
                p += 3;
        len = strcspn(p, "\n");
        while (len > 0 && isspace((unsigned char)p[0])) {
                p++;
                len--;
        }
        while (len > 0 && isspace((unsigned char)p[len - 1]))
                len--;
        *ret_len = len;
        return p;
}

int config_parse_string(const char *text, const char *name, Config *c, char **ret_error)
{
        ParseContext ctx = {
                .config = c,
                .text = text,
                .section = SECTION_NONE,
        };
        const char *bad;
        size_t len;
        int line, r = 0;

        if (!text || !name || !c)
                return set_error(ret_error, -EINVAL, "invalid arguments");

        line = ini_parse_stream(config_reader, &ctx, config_handler, &ctx);
        if (line == -2 || ctx.oom)
                r = set_error(ret_error, -ENOMEM, NULL);
        else if (line > 0 && (!ctx.error_line || (unsigned)line <= ctx.error_line)) {
                bad = text_line(text, (unsigned)line, &len);
                if (bad[0] == '[')
                        r = set_error(ret_error, -EINVAL,
                                      "%s:%d: invalid section header '%.*s%s' (expected [Name])", name, line,
                                      (int)MIN(len, QUOTE_MAX), bad, len > QUOTE_MAX ? "..." : "");
                else
                        r = set_error(
                                ret_error, -EINVAL,
                                "%s:%d: expected 'Key=Value', a [Section] header or a comment, got '%.*s%s'",
                                name, line, (int)MIN(len, QUOTE_MAX), bad, len > QUOTE_MAX ? "..." : "");
        } else if (ctx.error_line)
                r = set_error(ret_error, -EINVAL, "%s:%u: %s", name, ctx.error_line, ctx.error);
        else if (line < 0)
                r = set_error(ret_error, -EIO, "%s: cannot be parsed", name);

        free(ctx.error);
        free(ctx.opened);
        return r;
}

static bool stat_is_dev_null(const struct stat *st)
{
        return S_ISCHR(st->st_mode) && st->st_rdev == makedev(1, 3);
}

static int read_text_file(const char *path, char **ret)
{
        _cleanup_fclose_ FILE *f = NULL;
        _cleanup_free_ char *data = NULL;
        size_t size = 0, allocated = 0, n;

        f = fopen(path, "re");
        if (!f)
                return negative_errno();
        for (;;) {
                if (allocated - size < 4096 + 1) {
                        char *grown;

                        if (allocated > CONFIG_FILE_MAX)
                                return -EFBIG;
                        grown = realloc(data, allocated + 16384);
                        if (!grown)
                                return -ENOMEM;
                        data = grown;
                        allocated += 16384;
                }
                errno = 0;
                n = fread(data + size, 1, allocated - size - 1, f);
                size += n;
                if (size > CONFIG_FILE_MAX)
                        return -EFBIG;
                if (n == 0) {
                        if (ferror(f))
                                return negative_errno();
                        break;
                }
        }
        if (memchr(data, '\0', size))
                return -EBADMSG;
        data[size] = '\0';
        *ret = TAKE_PTR(data);
        return 0;
}

static int load_file(const char *path, Config *c, bool missing_ok, char **ret_error)
{
        _cleanup_free_ char *text = NULL;
        int r;

        r = read_text_file(path, &text);
        if (r == -ENOENT && missing_ok)
                return 0;
        if (r == -ENOMEM)
                return set_error(ret_error, r, NULL);
        if (r == -EFBIG)
                return set_error(ret_error, r, "%s: file is larger than %d bytes", path, CONFIG_FILE_MAX);
        if (r == -EBADMSG)
                return set_error(ret_error, r, "%s: not a text file (it contains a NUL byte)", path);
        if (r < 0)
                return set_error(ret_error, r, "%s: cannot read: %s", path, STRERROR(r));
        return config_parse_string(text, path, c, ret_error);
}

int config_load_file(const char *path, Config *c, char **ret_error)
{
        if (!path || !c)
                return set_error(ret_error, -EINVAL, "invalid arguments");
        return load_file(path, c, false, ret_error);
}

typedef struct DropIn {
        char *name;
        char *path;
} DropIn;

typedef struct DropInList {
        DropIn *items;
        size_t n;
} DropInList;

static void dropin_list_done(DropInList *l)
{
        for (size_t i = 0; i < l->n; i++) {
                free(l->items[i].name);
                free(l->items[i].path);
        }
        free(l->items);
        *l = (DropInList){ 0 };
}

static int dropin_compare(const void *a, const void *b)
{
        const DropIn *x = a, *y = b;
        return strcmp(x->name, y->name);
}

static bool dropin_list_has(const DropInList *l, const char *name)
{
        for (size_t i = 0; i < l->n; i++)
                if (streq(l->items[i].name, name))
                        return true;
        return false;
}

static bool is_dropin_name(const char *name)
{
        size_t n = strlen(name);
        return name[0] != '.' && n > strlen(".conf") && streq(name + n - strlen(".conf"), ".conf");
}

static int dropin_list_add_dir(DropInList *l, const char *dir, char **ret_error)
{
        DIR *d;
        struct dirent *de;
        int r = 0;

        d = opendir(dir);
        if (!d) {
                r = negative_errno();
                if (r == -ENOENT || r == -ENOTDIR)
                        return 0;
                return set_error(ret_error, r, "%s: cannot read directory: %s", dir, STRERROR(r));
        }
        for (;;) {
                _cleanup_free_ char *path = NULL, *name = NULL;
                struct stat st;
                DropIn *grown;

                errno = 0;
                de = readdir(d);
                if (!de) {
                        if (errno != 0) {
                                r = negative_errno();
                                r = set_error(ret_error, r, "%s: cannot read directory: %s", dir,
                                              STRERROR(r));
                        }
                        break;
                }
                if (!is_dropin_name(de->d_name) || dropin_list_has(l, de->d_name))
                        continue; /* not a drop-in, or masked by a directory of higher priority */
                if (asprintf(&path, "%s/%s", dir, de->d_name) < 0) {
                        r = set_error(ret_error, -ENOMEM, NULL);
                        break;
                }
                if (stat(path, &st) < 0) {
                        r = negative_errno();
                        if (r == -ENOENT) { /* dangling symlink */
                                r = 0;
                                continue;
                        }
                        r = set_error(ret_error, r, "%s: cannot read: %s", path, STRERROR(r));
                        break;
                }
                /* A symlink to /dev/null is read as an empty file: it masks. */
                if (!S_ISREG(st.st_mode) && !stat_is_dev_null(&st))
                        continue;
                name = strdup(de->d_name);
                grown = reallocarray(l->items, l->n + 1, sizeof(*grown));
                if (!name || !grown) {
                        if (grown)
                                l->items = grown;
                        r = set_error(ret_error, -ENOMEM, NULL);
                        break;
                }
                l->items = grown;
                l->items[l->n++] = (DropIn){ .name = TAKE_PTR(name), .path = TAKE_PTR(path) };
        }
        closedir(d);
        return r;
}

static const char *root_prefix(const char *root)
{
        return !root || !root[0] || streq(root, "/") ? "" : root;
}

int config_load(const char *root, const char *explicit_path, Config **ret, char **ret_error)
{
        _cleanup_(config_freep) Config *c = NULL;
        _cleanup_(dropin_list_done) DropInList dropins = { 0 };
        _cleanup_free_ char *main_path = NULL;
        const char *prefix = root_prefix(root);
        int r;

        if (!ret)
                return set_error(ret_error, -EINVAL, "invalid arguments");
        r = config_new(&c);
        if (r < 0)
                return set_error(ret_error, r, NULL);

        if (explicit_path) {
                r = load_file(explicit_path, c, false, ret_error);
                if (r < 0)
                        return r;
                *ret = TAKE_PTR(c);
                return 0;
        }

        if (asprintf(&main_path, "%s%s/%s", prefix, UMSRESTORE_SYSCONFDIR, CONFIG_MAIN_FILE) < 0)
                return set_error(ret_error, -ENOMEM, NULL);
        r = load_file(main_path, c, true, ret_error);
        if (r < 0)
                return r;

        for (size_t i = 0; i < ELEMENTSOF(dropin_dirs); i++) {
                _cleanup_free_ char *dir = NULL;

                if (asprintf(&dir, "%s%s/%s", prefix, dropin_dirs[i], CONFIG_DROPIN_DIR) < 0)
                        return set_error(ret_error, -ENOMEM, NULL);
                r = dropin_list_add_dir(&dropins, dir, ret_error);
                if (r < 0)
                        return r;
        }
        if (dropins.n > 0)
                qsort(dropins.items, dropins.n, sizeof(dropins.items[0]), dropin_compare);
        for (size_t i = 0; i < dropins.n; i++) {
                r = load_file(dropins.items[i].path, c, false, ret_error);
                if (r < 0)
                        return r;
        }
        *ret = TAKE_PTR(c);
        return 0;
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
        char deadline[32], level[16], id[DEVICE_MATCH_STRING_MAX];
        uint64_t frac = c->save_deadline_usec % 1000000;
        int r, n;

        n = snprintf(deadline, sizeof(deadline), "%" PRIu64, c->save_deadline_usec / 1000000);
        if (frac > 0 && n > 0 && (size_t)n < sizeof(deadline)) {
                snprintf(deadline + n, sizeof(deadline) - (size_t)n, ".%06" PRIu64, frac);
                for (size_t len = strlen(deadline); deadline[len - 1] == '0'; len--)
                        deadline[len - 1] = '\0';
        }
        if (c->log_level >= 0 && (size_t)c->log_level < ELEMENTSOF(level_names))
                snprintf(level, sizeof(level), "%s", level_names[c->log_level]);
        else
                snprintf(level, sizeof(level), "%d", c->log_level);

        r = buffer_printf(out, "[General]\n");
        if (r >= 0)
                r = format_methods(out, general_keys[GENERAL_METHODS], c->methods, c->n_methods);
        if (r >= 0)
                r = buffer_printf(out, "%s=%s\n%s=%s\n%s=%s\n", general_keys[GENERAL_CONSOLE_SWITCH],
                                  yes_no(c->console_switch), general_keys[GENERAL_VBE_POST],
                                  yes_no(c->vbe_post), general_keys[GENERAL_SAVE_DEADLINE], deadline);
        if (r >= 0)
                r = format_device_list(out, general_keys[GENERAL_INCLUDE], c->include, c->n_include);
        if (r >= 0)
                r = format_device_list(out, general_keys[GENERAL_EXCLUDE], c->exclude, c->n_exclude);
        if (r >= 0)
                r = buffer_printf(out, "%s=%s\n", general_keys[GENERAL_LOG_LEVEL], level);

        for (size_t i = 0; i < c->n_devices && r >= 0; i++) {
                const ConfigDevice *dev = &c->devices[i];

                device_match_format(&dev->match, false, id);
                r = buffer_printf(out, "\n[Device %s]\n%s=%s\n", id, device_keys[DEVICE_MANAGE],
                                  dev->manage < 0 ? "" : yes_no(dev->manage > 0));
                if (r >= 0)
                        r = format_methods(out, device_keys[DEVICE_METHODS], dev->methods, dev->n_methods);
        }
        return r < 0 ? r : 0;
}
