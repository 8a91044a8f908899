/* SPDX-License-Identifier: MIT */
/* Owns the process-wide log level and the stderr log sink.
 * The "<N>" prefix is added when stderr is connected to the journal ($JOURNAL_STREAM). */
#include <stdarg.h>
#include <sys/stat.h>

#include "log.h"

static int max_level = LOG_INFO;
static int prefix_mode = -1;

void log_set_max_level(int level)
{
        max_level = level;
}

int log_get_max_level(void)
{
        return max_level;
}

void log_set_prefix_mode(int mode)
{
        prefix_mode = mode;
}

static bool stderr_is_journal(void)
{
        const char *e = getenv("JOURNAL_STREAM");
        unsigned long long dev, ino;
        struct stat st;

        if (!e || sscanf(e, "%llu:%llu", &dev, &ino) != 2)
                return false;
        if (fstat(STDERR_FILENO, &st) < 0)
                return false;
        return (unsigned long long)st.st_dev == dev && (unsigned long long)st.st_ino == ino;
}

int log_internal(int level, int error, const char *file, int line, const char *fmt, ...)
{
        int saved_errno = errno;
        int r = error == 0 ? 0 : -abs(error);
        va_list ap;

        if (level > max_level)
                return r;

        if (prefix_mode < 0)
                prefix_mode = stderr_is_journal();

        char buf[2048];
        va_start(ap, fmt);
        vsnprintf(buf, sizeof(buf), fmt, ap);
        va_end(ap);

        if (prefix_mode)
                fprintf(stderr, "<%d>%s\n", level, buf);
        else if (max_level >= LOG_DEBUG)
                fprintf(stderr, "umsrestored: %s (%s:%d)\n", buf, file, line);
        else
                fprintf(stderr, "umsrestored: %s\n", buf);

        errno = saved_errno;
        return r;
}

int log_level_from_string(const char *s)
{
        static const char *const names[] = { "emerg", "alert", "crit", "err", "warning", "notice", "info", "debug" };

        if (!s)
                return -EINVAL;
        for (size_t i = 0; i < ELEMENTSOF(names); i++)
                if (streq(s, names[i]))
                        return (int)i;
        if (streq(s, "error"))
                return LOG_ERR;
        if (s[0] >= '0' && s[0] <= '7' && s[1] == '\0')
                return s[0] - '0';
        return -EINVAL;
}
