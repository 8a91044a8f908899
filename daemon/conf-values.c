/* SPDX-License-Identifier: MIT */
/* Owns the value syntax of umsrestore.conf: each kind of value parsed strictly with a message
 * that says what was expected, and printed back in a form that parses to the same value. */
#include <ctype.h>
#include <inttypes.h>
#include <strings.h>
#include <syslog.h>

#include "conf-internal.h"
#include "conf-values.h"
#include "log.h"
#include "methods/method.h"

static const char *const level_names[] = {
        "emerg", "alert", "crit", "err", "warning", "notice", "info", "debug",
};

int conf_parse_boolean(const char *key, const char *value, char **ret_error)
{
        static const char *const yes[] = { "yes", "true", "on", "1" };
        static const char *const no[] = { "no", "false", "off", "0" };

        for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
                if (strcasecmp(value, yes[i]) == 0)
                        return 1;
                if (strcasecmp(value, no[i]) == 0)
                        return 0;
        }
        return conf_error(ret_error, -EINVAL,
                          "invalid boolean '%s' for %s= (use yes/no, true/false, on/off or 1/0)", value, key);
}

/* "0", or seconds with up to 6 decimals ("2.5"). -ERANGE past 10^9 s. */
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
                for (digits = 0; isdigit((unsigned char)*s); s++, digits++) {
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

int conf_parse_deadline(const char *key, const char *value, uint64_t *ret_usec, char **ret_error)
{
        uint64_t usec;
        int r;

        r = parse_seconds(value, &usec);
        if (r == -EINVAL)
                return conf_error(ret_error, r, "invalid number '%s' for %s= (seconds, e.g. 5 or 2.5)", value,
                                  key);
        if (r < 0 || (usec != 0 && (usec < CONFIG_DEADLINE_MIN_USEC || usec > CONFIG_DEADLINE_MAX_USEC)))
                return conf_error(ret_error, -EINVAL, "%s=%s is out of range (0, or 0.1 to 60 seconds)", key,
                                  value);
        *ret_usec = usec;
        return 0;
}

int conf_parse_log_level(const char *key, const char *value, int *ret_level, char **ret_error)
{
        int level = log_level_from_string(value);

        if (level < 0)
                return conf_error(ret_error, -EINVAL,
                                  "invalid log level '%s' for %s= (use debug, info, notice, warning or err)",
                                  value, key);
        *ret_level = level;
        return 0;
}

/* Next whitespace-separated word of *p; false at the end. */
static bool next_word(const char **p, const char **ret_word, size_t *ret_len)
{
        const char *s = *p, *e;

        while (*s && isspace((unsigned char)*s))
                s++;
        *p = s;
        if (!*s)
                return false;
        for (e = s; *e && !isspace((unsigned char)*e); e++)
                ;
        *ret_word = s;
        *ret_len = (size_t)(e - s);
        *p = e;
        return true;
}

static int unknown_method(const char *word, size_t n, char **ret_error)
{
        const char *suggestion;
        char known[256];

        if (memchr(word, ',', n))
                return conf_error(ret_error, -EINVAL, "unknown method '%.*s' (separate method names with spaces)",
                                  (int)n, word);
        suggestion = method_closest_name(word, n);
        if (suggestion)
                return conf_error(ret_error, -EINVAL, "unknown method '%.*s' (did you mean '%s'?)", (int)n, word,
                                  suggestion);
        method_names_join(known, sizeof(known));
        return conf_error(ret_error, -EINVAL, "unknown method '%.*s' (known methods: %s)", (int)n, word, known);
}

int conf_parse_methods(const char *key, const char *value, const char **ret_methods, size_t *ret_n,
                       char **ret_error)
{
        const char *list[CONFIG_METHODS_MAX], *p = value, *word;
        size_t n = 0, len;

        while (next_word(&p, &word, &len)) {
                const MethodOps *ops = method_by_name_len(word, len);

                if (!ops)
                        return unknown_method(word, len, ret_error);
                for (size_t i = 0; i < n; i++)
                        if (list[i] == ops->name)
                                return conf_error(ret_error, -EINVAL, "method '%s' is listed twice in %s=",
                                                  ops->name, key);
                if (n >= ELEMENTSOF(list))
                        return conf_error(ret_error, -EINVAL, "too many methods in %s= (at most %zu)", key,
                                          ELEMENTSOF(list));
                list[n++] = ops->name;
        }
        memcpy(ret_methods, list, n * sizeof(list[0]));
        *ret_n = n;
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

/* For messages: did a bad device string mean a slot or an ID? */
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

int conf_parse_device(const char *where, const char *s, size_t n, DeviceMatch *ret, char **ret_error)
{
        DeviceMatch m = { 0 };
        char slot[SLOT_MAX];

        if (n == 9 && s[4] == ':' && parse_hex16(s, 4, &m.vendor_id) && parse_hex16(s + 5, 4, &m.device_id)) {
                m.by_id = true;
                *ret = m;
                return 0;
        }
        /* A slot is pci_parse_slot()'s, the one strict syntax of the whole program. */
        if (n < sizeof(slot)) {
                memcpy(slot, s, n);
                slot[n] = '\0';
                if (pci_parse_slot(slot, &m.domain, &m.bus, &m.dev, &m.func) >= 0) {
                        *ret = m;
                        return 0;
                }
        }
        if (looks_like_slot(s, n))
                return conf_error(ret_error, -EINVAL,
                                  "invalid PCI slot '%.*s' in %s (expected 0000:00:02.0 or 00:02.0)", (int)n, s,
                                  where);
        return conf_error(ret_error, -EINVAL, "invalid PCI ID '%.*s' in %s (expected vendor:device, e.g. 8086:27ae)",
                          (int)n, s, where);
}

int conf_parse_devices(const char *key, const char *value, DeviceMatch **ret, size_t *ret_n, char **ret_error)
{
        _cleanup_free_ DeviceMatch *list = NULL;
        _cleanup_free_ char *where = NULL;
        const char *p = value, *word;
        size_t n = 0, len;
        int r;

        if (asprintf(&where, "%s=", key) < 0)
                return conf_error(ret_error, -ENOMEM, NULL);
        while (next_word(&p, &word, &len)) {
                DeviceMatch m, *grown;

                r = conf_parse_device(where, word, len, &m, ret_error);
                if (r < 0)
                        return r;
                grown = reallocarray(list, n + 1, sizeof(*list));
                if (!grown)
                        return conf_error(ret_error, -ENOMEM, NULL);
                list = grown;
                list[n++] = m;
        }
        *ret = TAKE_PTR(list);
        *ret_n = n;
        return 0;
}

bool device_match_equal(const DeviceMatch *a, const DeviceMatch *b)
{
        if (a->by_id != b->by_id)
                return false;
        if (a->by_id)
                return a->vendor_id == b->vendor_id && a->device_id == b->device_id;
        return a->domain == b->domain && a->bus == b->bus && a->dev == b->dev && a->func == b->func;
}

bool device_match_test(const DeviceMatch *m, const DisplayDevice *d)
{
        if (m->by_id)
                return m->vendor_id == d->vendor_id && m->device_id == d->device_id;
        return m->domain == d->domain && m->bus == d->bus && m->dev == d->dev && m->func == d->func;
}

void device_match_format(const DeviceMatch *m, bool short_slot, char buf[static DEVICE_MATCH_STRING_MAX])
{
        if (m->by_id)
                snprintf(buf, DEVICE_MATCH_STRING_MAX, "%04x:%04x", m->vendor_id, m->device_id);
        else if (short_slot && m->domain == 0)
                snprintf(buf, DEVICE_MATCH_STRING_MAX, "%02x:%02x.%u", m->bus, m->dev, (unsigned)m->func);
        else
                pci_format_slot(buf, m->domain, m->bus, m->dev, m->func);
}

void conf_format_seconds(uint64_t usec, char buf[static CONF_SECONDS_STRING_MAX])
{
        uint64_t frac = usec % 1000000;
        int n;

        n = snprintf(buf, CONF_SECONDS_STRING_MAX, "%" PRIu64, usec / 1000000);
        if (frac == 0 || n <= 0 || (size_t)n >= CONF_SECONDS_STRING_MAX)
                return;
        snprintf(buf + n, CONF_SECONDS_STRING_MAX - (size_t)n, ".%06" PRIu64, frac);
        for (size_t len = strlen(buf); buf[len - 1] == '0'; len--)
                buf[len - 1] = '\0';
}

const char *conf_log_level_name(int level)
{
        if (level < 0 || (size_t)level >= ELEMENTSOF(level_names))
                return NULL;
        return level_names[level];
}
