/* SPDX-License-Identifier: MIT */
/* Root-prefixed path joining and small sysfs readers: first line, u32, symlink basename,
 * existence. Pure file access; no hardware, no logging. */
#include <ctype.h>
#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>

#include "fileio.h"
#include "sysfs.h"

/* Longest first line we accept: sysfs attributes are at most one page. */
#define SYSFS_LINE_MAX 4096

bool root_is_real(const char *root)
{
        struct stat a, b;

        if (!root || root[strspn(root, "/")] == '\0')
                return true;
        /* "/.", "/usr/..", a symlink to "/": the same directory as "/" is the real root. A
         * root that does not exist is not (its files are simply missing). */
        if (stat(root, &a) < 0 || stat("/", &b) < 0)
                return false;
        return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

int sysfs_path(const char *root, const char *path, char **ret)
{
        size_t rlen;
        char *p;

        if (!path || !ret)
                return -EINVAL;
        path += strspn(path, "/");
        if (*path == '\0')
                return -EINVAL;

        if (root_is_real(root)) {
                if (asprintf(&p, "/%s", path) < 0)
                        return -ENOMEM;
        } else {
                rlen = strlen(root);
                while (rlen > 1 && root[rlen - 1] == '/')
                        rlen--;
                if (rlen > INT_MAX)
                        return -EINVAL;
                if (asprintf(&p, "%.*s/%s", (int)rlen, root, path) < 0)
                        return -ENOMEM;
        }
        *ret = p;
        return 0;
}

int sysfs_read_line(const char *root, const char *path, char **ret)
{
        _cleanup_free_ char *full = NULL, *buf = NULL;
        _cleanup_close_ int fd = -EBADF;
        size_t n = 0, len;
        const char *nl;
        int r;

        if (!ret)
                return -EINVAL;
        r = sysfs_path(root, path, &full);
        if (r < 0)
                return r;

        /* Attributes are regular files; under a --root tree a FIFO must not hang a read. */
        fd = open_regular_at(AT_FDCWD, full, O_RDONLY, 0);
        if (fd < 0)
                return fd;

        /* One byte more than the limit tells a too-long line from one that just fits. */
        buf = malloc(SYSFS_LINE_MAX + 2);
        if (!buf)
                return -ENOMEM;

        /* sysfs hands out the whole attribute in one read, but regular files (tests)
         * may come in pieces: read until a newline, EOF or past the limit. */
        while (n <= SYSFS_LINE_MAX) {
                ssize_t k = read(fd, buf + n, SYSFS_LINE_MAX + 1 - n);
                if (k < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (k == 0)
                        break;
                n += (size_t)k;
                if (memchr(buf + n - (size_t)k, '\n', (size_t)k))
                        break;
        }

        nl = memchr(buf, '\n', n);
        len = nl ? (size_t)(nl - buf) : n;
        if (len > SYSFS_LINE_MAX)
                return -E2BIG;
        if (memchr(buf, '\0', len))
                return -EBADMSG; /* binary attribute, not a text line */
        buf[len] = '\0';

        *ret = TAKE_PTR(buf);
        return 0;
}

int sysfs_read_u32(const char *root, const char *path, uint32_t *ret)
{
        _cleanup_free_ char *line = NULL;
        const char *s;
        char *end;
        unsigned long long v;
        int base = 10, r;

        if (!ret)
                return -EINVAL;
        r = sysfs_read_line(root, path, &line);
        if (r < 0)
                return r;

        s = line + strspn(line, " \t");
        if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
                base = 16;
                s += 2;
        }
        /* strtoull accepts a sign and leading blanks; we do not. */
        if (!(base == 16 ? isxdigit((unsigned char)*s) : isdigit((unsigned char)*s)))
                return -EINVAL;

        errno = 0;
        v = strtoull(s, &end, base);
        if (errno == ERANGE)
                return -ERANGE;
        if (errno != 0)
                return -EINVAL;
        end += strspn(end, " \t\r");
        if (*end != '\0')
                return -EINVAL;
        if (v > UINT32_MAX)
                return -ERANGE;

        *ret = (uint32_t)v;
        return 0;
}

int sysfs_readlink_basename(const char *root, const char *path, char **ret)
{
        _cleanup_free_ char *full = NULL;
        char target[PATH_MAX];
        const char *base;
        ssize_t n;
        char *p;
        int r;

        if (!ret)
                return -EINVAL;
        r = sysfs_path(root, path, &full);
        if (r < 0)
                return r;

        n = readlink(full, target, sizeof(target));
        if (n < 0)
                return negative_errno();
        if ((size_t)n >= sizeof(target))
                return -ENAMETOOLONG;
        target[n] = '\0';

        /* Strip trailing slashes, then take the last component. */
        while (n > 1 && target[n - 1] == '/')
                target[--n] = '\0';
        base = strrchr(target, '/');
        base = base ? base + 1 : target;
        if (*base == '\0' || streq(base, ".") || streq(base, ".."))
                return -EINVAL;

        p = strdup(base);
        if (!p)
                return -ENOMEM;
        *ret = p;
        return 0;
}

bool sysfs_exists(const char *root, const char *path)
{
        _cleanup_free_ char *full = NULL;

        if (sysfs_path(root, path, &full) < 0)
                return false;
        return access(full, F_OK) == 0;
}
