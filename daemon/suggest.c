/* SPDX-License-Identifier: MIT */
/* Owns the edit distance behind every "did you mean" message, and the choice of the
 * closest known name; callers supply the names (keys, sections, methods). */
#include <ctype.h>
#include <limits.h>

#include "suggest.h"

static unsigned fold(char c)
{
        return (unsigned)tolower((unsigned char)c);
}

unsigned suggest_distance(const char *word, size_t n, const char *name)
{
        unsigned rows[3][SUGGEST_LEN_MAX + 1];
        unsigned *before = rows[0], *prev = rows[1], *cur = rows[2], *t;
        size_t m = strlen(name);

        if (n > SUGGEST_LEN_MAX || m > SUGGEST_LEN_MAX)
                return UINT_MAX;
        for (size_t j = 0; j <= m; j++)
                prev[j] = (unsigned)j;
        for (size_t i = 1; i <= n; i++) {
                cur[0] = (unsigned)i;
                for (size_t j = 1; j <= m; j++) {
                        unsigned a = fold(word[i - 1]), b = fold(name[j - 1]);
                        unsigned v = MIN(prev[j] + 1, cur[j - 1] + 1);

                        v = MIN(v, prev[j - 1] + (a != b));
                        if (i > 1 && j > 1 && a == fold(name[j - 2]) && fold(word[i - 2]) == b)
                                v = MIN(v, before[j - 2] + 1);
                        cur[j] = v;
                }
                t = before;
                before = prev;
                prev = cur;
                cur = t;
        }
        return prev[m];
}

const char *suggest_closest(const char *word, size_t n, const char *const *names, size_t n_names)
{
        const char *best = NULL;
        unsigned best_distance = SUGGEST_DISTANCE_MAX + 1;

        for (size_t i = 0; i < n_names; i++) {
                unsigned d;

                if (!names[i])
                        continue;
                d = suggest_distance(word, n, names[i]);
                if (d < best_distance) {
                        best = names[i];
                        best_distance = d;
                }
        }
        return best;
}
