/* SPDX-License-Identifier: MIT */
#include <string.h>

#include "textmatch.h"

/* Characters that make a pattern a real regular expression (besides '^', '$', '(', ')' and
 * '|' where the simple shape allows them). '.' stays: it is any one character. */
static bool is_special(char c)
{
        return c != '\0' && strchr("[](){}*+?\\|^$", c) != NULL;
}

/* ASCII only, as regexec() with REG_ICASE in the C locale. */
static char fold(char c)
{
        return c >= 'A' && c <= 'Z' ? (char)(c - 'A' + 'a') : c;
}

typedef struct Alt {
        const char *text; /* literal text, '.' any character */
        size_t len;
        bool start; /* anchored at the start of the value */
        bool end;   /* at its end */
} Alt;

/* The group form: "^(a|b)$", '^' and '$' optional, nothing else outside the parentheses.
 * Sets *ret_inner to the alternatives between the parentheses. */
static bool group_form(const char *p, size_t n, const char **ret_inner, size_t *ret_len, bool *ret_start,
                       bool *ret_end)
{
        bool start = n > 0 && p[0] == '^';
        size_t i = start ? 1 : 0;
        bool end = n > i && p[n - 1] == '$';
        size_t last = end ? n - 1 : n;

        if (last < i + 2 || p[i] != '(' || p[last - 1] != ')')
                return false;
        *ret_inner = p + i + 1;
        *ret_len = last - i - 2;
        *ret_start = start;
        *ret_end = end;
        return true;
}

/* Calls f on each alternative; false when the pattern is not simple (or f says stop). */
static bool for_each_alt(const char *p, bool (*f)(const Alt *a, void *userdata), void *userdata)
{
        size_t n = strlen(p), len = n;
        bool group_start = false, group_end = false, group = group_form(p, n, &p, &len, &group_start, &group_end);

        for (size_t i = 0; i <= len;) {
                size_t j = i;
                Alt a = { .start = group_start, .end = group_end };

                if (!group && j < len && p[j] == '^') {
                        a.start = true;
                        j++;
                }
                a.text = p + j;
                while (j < len && !is_special(p[j]))
                        j++;
                a.len = (size_t)(p + j - a.text);
                if (!group && j < len && p[j] == '$') {
                        a.end = true;
                        j++;
                }
                if (a.len == 0 || (j < len && p[j] != '|'))
                        return false; /* an empty alternative or a special character: not simple */
                if (!f(&a, userdata))
                        return false;
                i = j + 1;
        }
        return true;
}

static bool accept_all(const Alt *a, void *userdata)
{
        (void)a;
        (void)userdata;
        return true;
}

bool textmatch_simple(const char *pattern)
{
        return pattern && pattern[0] != '\0' && for_each_alt(pattern, accept_all, NULL);
}

typedef struct Subject {
        const char *value;
        size_t len;
        bool icase;
        bool hit;
} Subject;

static bool equal_at(const Alt *a, const Subject *s, size_t at)
{
        for (size_t k = 0; k < a->len; k++) {
                char pc = a->text[k], vc = s->value[at + k];

                if (pc == '.')
                        continue;
                if (s->icase ? fold(pc) != fold(vc) : pc != vc)
                        return false;
        }
        return true;
}

/* Stops the walk (returns false) at the first alternative that matches. */
static bool try_alt(const Alt *a, void *userdata)
{
        Subject *s = userdata;

        if (a->len > s->len)
                return true;
        if (a->start && a->end)
                s->hit = a->len == s->len && equal_at(a, s, 0);
        else if (a->start)
                s->hit = equal_at(a, s, 0);
        else if (a->end)
                s->hit = equal_at(a, s, s->len - a->len);
        else
                for (size_t at = 0; !s->hit && at + a->len <= s->len; at++)
                        s->hit = equal_at(a, s, at);
        return !s->hit;
}

bool textmatch_match(const char *pattern, const char *value, bool icase)
{
        Subject s = { .value = value, .len = strlen(value), .icase = icase };

        (void)for_each_alt(pattern, try_alt, &s);
        return s.hit;
}
