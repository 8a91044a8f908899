/* SPDX-License-Identifier: MIT */
/* Owns the line syntax of umsrestore.conf: splitting text into numbered lines, comments,
 * [Section] headers and Key=Value, and the refusal of everything else with its line.
 *
 * Our own reader, not libinih. With inih we could not tell the two comment characters apart
 * after a value: its build strips "; ..." inline comments (so "Methods=vga ; pci-config"
 * silently became "Methods=vga") but not "# ...". It also reports no line numbers for the
 * errors found in its callback (we fed it line by line to count), reports sections only
 * together with their first key (we re-parsed every header through a second inih call to
 * learn its name), splits lines longer than its buffer in two, and takes an indented line
 * for a continuation. What we need is about a hundred lines of C with one rule per case,
 * and one library less in a privileged daemon. */
#include <ctype.h>
#include <stdarg.h>

#include "conf-reader.h"

#define QUOTE_MAX 60 /* characters of a bad line quoted in an error */
#define UTF8_BOM "\xef\xbb\xbf"

int conf_reader_error(char **ret_error, const char *fmt, ...)
{
        va_list ap;
        int n;

        va_start(ap, fmt);
        n = vasprintf(ret_error, fmt, ap);
        va_end(ap);
        if (n < 0) {
                *ret_error = NULL;
                return -ENOMEM;
        }
        return -EINVAL;
}

static bool is_comment_char(char c)
{
        return c == '#' || c == ';';
}

static char *strip(char *s)
{
        size_t n;

        while (isspace((unsigned char)*s))
                s++;
        n = strlen(s);
        while (n > 0 && isspace((unsigned char)s[n - 1]))
                s[--n] = '\0';
        return s;
}

void conf_reader_init(ConfReader *r, const char *text)
{
        *r = (ConfReader){ .next = text, .line_max = CONF_LINE_MAX };
}

void conf_reader_init_raw(ConfReader *r, const char *text)
{
        *r = (ConfReader){ .next = text, .line_max = CONF_RAW_LINE_MAX, .raw = true };
}

/* Copies the next line, without its newline and surrounding whitespace, into r->buf.
 * Returns its length, or -1 when it does not fit. */
static int next_line(ConfReader *r)
{
        const char *p = r->next, *eol = strchr(p, '\n');
        size_t len = eol ? (size_t)(eol - p) : strlen(p);

        r->next = eol ? eol + 1 : p + len;
        r->number++;
        if (r->number == 1 && len >= strlen(UTF8_BOM) && memcmp(p, UTF8_BOM, strlen(UTF8_BOM)) == 0) {
                p += strlen(UTF8_BOM);
                len -= strlen(UTF8_BOM);
        }
        while (len > 0 && isspace((unsigned char)*p)) {
                p++;
                len--;
        }
        while (len > 0 && isspace((unsigned char)p[len - 1]))
                len--;
        if (len > r->line_max)
                return -1;
        memcpy(r->buf, p, len);
        r->buf[len] = '\0';
        return (int)len;
}

static int section_line(char *line, ConfLine *ret, char **ret_error)
{
        char *close = strchr(line, ']'), *rest;

        if (!close)
                return conf_reader_error(ret_error, "invalid section header '%.*s%s' (expected [Name])",
                                         QUOTE_MAX, line, strlen(line) > QUOTE_MAX ? "..." : "");
        *close = '\0';
        rest = strip(close + 1);
        if (*rest)
                return conf_reader_error(ret_error, "unexpected text after [%s]: '%s'%s", line + 1, rest,
                                         is_comment_char(*rest) ? " (comments go on their own line)" : "");
        ret->type = CONF_LINE_SECTION;
        ret->section = line + 1;
        return 1;
}

static int assignment_line(char *line, bool raw, ConfLine *ret, char **ret_error)
{
        char *eq = strchr(line, '='), *value;
        size_t bad;

        if (!eq)
                return conf_reader_error(
                        ret_error, "expected 'Key=Value', a [Section] header or a comment, got '%.*s%s'",
                        QUOTE_MAX, line, strlen(line) > QUOTE_MAX ? "..." : "");
        *eq = '\0';
        value = strip(eq + 1);
        line = strip(line);
        /* A comment has a line of its own. Inside a value, '#' and ';' are refused rather
         * than guessed at: no value has a use for them, and "vga ; pci-config" must not
         * quietly mean "vga". */
        bad = strcspn(value, "#;");
        if (!raw && line[0] && value[bad])
                return conf_reader_error(
                        ret_error, "unexpected '%c' in the value of %s= (comments go on their own line)",
                        value[bad], line);
        ret->type = CONF_LINE_ASSIGNMENT;
        ret->key = line;
        ret->value = value;
        return 1;
}

int conf_reader_next(ConfReader *r, ConfLine *ret, char **ret_error)
{
        *ret_error = NULL;
        while (*r->next) {
                int len = next_line(r);

                if (len < 0)
                        return conf_reader_error(ret_error, "line is longer than %zu characters",
                                                 r->line_max);
                if (len == 0 || is_comment_char(r->buf[0]))
                        continue;
                *ret = (ConfLine){ .number = r->number };
                if (r->buf[0] == '[')
                        return section_line(r->buf, ret, ret_error);
                return assignment_line(r->buf, r->raw, ret, ret_error);
        }
        return 0;
}
