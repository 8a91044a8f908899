/* SPDX-License-Identifier: MIT */
/* Owns the runtime lock file: flock with a bounded wait, polled every 20 ms.
 * The lock lives as long as the returned fd (and its duplicates) stays open. */
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>

#include "lock.h"

/* mkdir -p; the last component gets 0700, parents 0755. */
static int mkdir_parents(const char *dir)
{
        char buf[512];
        size_t len = strlen(dir);

        if (len == 0 || len >= sizeof(buf))
                return -ENAMETOOLONG;
        memcpy(buf, dir, len + 1);
        for (char *p = buf + 1; *p; p++) {
                if (*p != '/')
                        continue;
                *p = '\0';
                if (mkdir(buf, 0755) < 0 && errno != EEXIST)
                        return negative_errno();
                *p = '/';
        }
        if (mkdir(buf, 0700) < 0 && errno != EEXIST)
                return negative_errno();
        return 0;
}

static int open_lock_file_named(const char *state_dir, const char *name)
{
        char path[512];
        int n;

        n = mkdir_parents(state_dir);
        if (n < 0)
                return n;
        n = snprintf(path, sizeof(path), "%s/%s", state_dir, name);
        if (n < 0 || (size_t)n >= sizeof(path))
                return -ENAMETOOLONG;
        n = open(path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0600);
        return n < 0 ? negative_errno() : n;
}

int run_lock_acquire(const char *state_dir, uint64_t timeout_usec)
{
        _cleanup_close_ int fd = open_lock_file_named(state_dir, "lock");
        uint64_t waited = 0;
        const uint64_t step = 20000;

        if (fd < 0)
                return fd;
        for (;;) {
                if (flock(fd, LOCK_EX | LOCK_NB) >= 0)
                        return TAKE_FD(fd);
                if (errno != EWOULDBLOCK && errno != EINTR)
                        return negative_errno();
                if (waited >= timeout_usec)
                        return -EBUSY;
                struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)step * 1000 };
                nanosleep(&ts, NULL);
                waited += step;
        }
}

int run_lock_is_held(const char *state_dir)
{
        _cleanup_close_ int fd = -EBADF;
        char path[512];

        snprintf(path, sizeof(path), "%s/lock", state_dir);
        fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
        if (fd < 0)
                return errno == ENOENT ? 0 : negative_errno();
        if (flock(fd, LOCK_SH | LOCK_NB) >= 0) {
                (void)flock(fd, LOCK_UN);
                return 0;
        }
        return errno == EWOULDBLOCK ? 1 : negative_errno();
}

int daemon_lock_acquire(const char *state_dir)
{
        _cleanup_close_ int fd = open_lock_file_named(state_dir, "daemon.lock");

        if (fd < 0)
                return fd;
        if (flock(fd, LOCK_EX | LOCK_NB) < 0)
                return errno == EWOULDBLOCK ? -EBUSY : negative_errno();
        return TAKE_FD(fd);
}
