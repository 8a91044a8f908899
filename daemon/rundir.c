/* SPDX-License-Identifier: MIT */
/* Owns /run/umsrestore: created and checked once, the locks in it (flock with a bounded
 * wait), the sweep of unfinished writes, and non-blocking opens of the files in it. */
#include <dirent.h>
#include <stdarg.h>
#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>

#include "fileio.h"
#include "log.h"
#include "rundir.h"

#define LOCK_POLL_USEC 20000u

RunDir *rundir_free(RunDir *d)
{
        if (!d)
                return NULL;
        safe_close(d->fd);
        free(d->path);
        free(d);
        return NULL;
}

/* mkdir -p of the parents of path (0755); the last component is left to the caller. */
static int mkdir_parents(const char *path)
{
        _cleanup_free_ char *buf = strdup(path);

        if (!buf)
                return -ENOMEM;
        for (char *p = buf + 1; *p; p++) {
                if (*p != '/')
                        continue;
                *p = '\0';
                if (mkdir(buf, 0755) < 0 && errno != EEXIST)
                        return negative_errno();
                *p = '/';
        }
        return 0;
}

static int refuse(char **ret_error, int r, const char *fmt, ...) _printf_(3, 4);
static int refuse(char **ret_error, int r, const char *fmt, ...)
{
        va_list ap;

        if (ret_error) {
                va_start(ap, fmt);
                if (vasprintf(ret_error, fmt, ap) < 0)
                        *ret_error = NULL;
                va_end(ap);
        }
        return r;
}

int rundir_open(const char *path, uid_t uid, bool create, RunDir **ret, char **ret_error)
{
        _cleanup_(rundir_freep) RunDir *d = NULL;
        bool created = false;
        struct stat st;
        int r;

        if (!path || !path[0] || !ret)
                return -EINVAL;
        if (ret_error)
                *ret_error = NULL;

        if (create) {
                r = mkdir_parents(path);
                if (r < 0)
                        return refuse(ret_error, r, "Cannot create the parents of '%s': %s.", path, STRERROR(r));
                if (mkdir(path, 0700) >= 0)
                        created = true;
                else if (errno != EEXIST) {
                        r = negative_errno();
                        return refuse(ret_error, r, "Cannot create '%s': %s.", path, STRERROR(r));
                }
        }

        d = calloc(1, sizeof(*d));
        if (!d)
                return -ENOMEM;
        d->fd = -EBADF;
        d->uid = uid;
        d->path = strdup(path);
        if (!d->path)
                return -ENOMEM;

        d->fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (d->fd < 0) {
                r = negative_errno();
                if (r == -ELOOP || r == -ENOTDIR)
                        return refuse(ret_error, -ENOTDIR,
                                      "'%s' is a symlink or not a directory; refusing it. Remove it, and "
                                      "umsrestored creates the directory again.",
                                      path);
                return refuse(ret_error, r, "Cannot open '%s': %s.", path, STRERROR(r));
        }
        /* A directory we created went through the umask; set its mode exactly. */
        if (created && fchmod(d->fd, 0700) < 0) {
                r = negative_errno();
                return refuse(ret_error, r, "Cannot set the mode of '%s': %s.", path, STRERROR(r));
        }
        if (fstat(d->fd, &st) < 0)
                return negative_errno();
        if (st.st_uid != uid)
                return refuse(ret_error, -EPERM,
                              "'%s' is owned by uid %u, not %u; refusing it (its files could be planted). "
                              "Remove it, and umsrestored creates it again.",
                              path, (unsigned)st.st_uid, (unsigned)uid);
        if (st.st_mode & (S_IWGRP | S_IWOTH))
                return refuse(ret_error, -EACCES,
                              "'%s' may be written by group or others (mode %04o); refusing it. Run "
                              "'chmod 0700 %s' or remove it.",
                              path, (unsigned)(st.st_mode & 07777), path);

        *ret = TAKE_PTR(d);
        return 0;
}

static int open_lock_file(const RunDir *d, const char *name)
{
        return open_regular_at(d->fd, name, O_RDWR | O_CREAT, 0600);
}

int rundir_lock(const RunDir *d, uint64_t timeout_usec)
{
        _cleanup_close_ int fd = -EBADF;
        uint64_t waited = 0;

        if (!d)
                return -EINVAL;
        fd = open_lock_file(d, "lock");
        if (fd < 0)
                return fd;
        for (;;) {
                if (flock(fd, LOCK_EX | LOCK_NB) >= 0)
                        return TAKE_FD(fd);
                if (errno != EWOULDBLOCK && errno != EINTR)
                        return negative_errno();
                if (waited >= timeout_usec)
                        return -EBUSY;
                struct timespec ts = { .tv_sec = 0, .tv_nsec = (long)LOCK_POLL_USEC * 1000 };
                nanosleep(&ts, NULL);
                waited += LOCK_POLL_USEC;
        }
}

static int lock_is_held(const RunDir *d, const char *name)
{
        _cleanup_close_ int fd = -EBADF;
        int r;

        if (!d)
                return -EINVAL;
        r = rundir_open_regular(d, name, &fd);
        if (r < 0)
                return r == -ENOENT ? 0 : r;
        if (flock(fd, LOCK_SH | LOCK_NB) >= 0) {
                (void)flock(fd, LOCK_UN);
                return 0;
        }
        return errno == EWOULDBLOCK ? 1 : negative_errno();
}

int rundir_lock_is_held(const RunDir *d)
{
        return lock_is_held(d, "lock");
}

int rundir_daemon_lock_is_held(const RunDir *d)
{
        return lock_is_held(d, "daemon.lock");
}

int rundir_daemon_lock(const RunDir *d)
{
        _cleanup_close_ int fd = -EBADF;

        if (!d)
                return -EINVAL;
        fd = open_lock_file(d, "daemon.lock");
        if (fd < 0)
                return fd;
        if (flock(fd, LOCK_EX | LOCK_NB) < 0)
                return errno == EWOULDBLOCK ? -EBUSY : negative_errno();
        return TAKE_FD(fd);
}

/* "NAME.tmp-" followed by exactly 16 lower-case hex digits. */
static bool is_temp_name(const char *name)
{
        const char *t = strstr(name, ".tmp-");

        if (!t || t == name)
                return false;
        t += 5;
        if (strlen(t) != 16)
                return false;
        for (; *t; t++)
                if (!((*t >= '0' && *t <= '9') || (*t >= 'a' && *t <= 'f')))
                        return false;
        return true;
}

int rundir_sweep_temp(const RunDir *d)
{
        _cleanup_close_ int fd = -EBADF;
        struct dirent *de;
        DIR *dir;
        int n = 0;

        if (!d)
                return -EINVAL;
        /* A second handle: readdir() moves the offset of the fd it reads. */
        fd = openat(d->fd, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (fd < 0)
                return negative_errno();
        dir = fdopendir(fd);
        if (!dir)
                return negative_errno();
        fd = -EBADF;
        while ((de = readdir(dir))) {
                if (!is_temp_name(de->d_name))
                        continue;
                if (unlinkat(d->fd, de->d_name, 0) >= 0)
                        n++;
        }
        closedir(dir);
        return n;
}

int rundir_open_regular(const RunDir *d, const char *name, int *ret_fd)
{
        int fd;

        if (!d || !name || !ret_fd)
                return -EINVAL;
        fd = open_regular_at(d->fd, name, O_RDONLY, 0);
        if (fd < 0)
                return fd;
        *ret_fd = fd;
        return 0;
}
