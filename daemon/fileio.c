/* SPDX-License-Identifier: MIT */
/* Owns open_regular_at(): open without following a link or blocking, then check the type. */
#include <sys/stat.h>

#include "fileio.h"

int open_regular_at(int dir_fd, const char *name, int flags, mode_t mode)
{
        _cleanup_close_ int fd = -EBADF;
        struct stat st;

        fd = openat(dir_fd, name, flags | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY | O_NONBLOCK, mode);
        if (fd < 0)
                return negative_errno();
        if (fstat(fd, &st) < 0)
                return negative_errno();
        if (!S_ISREG(st.st_mode))
                return -EBADFD;
        return TAKE_FD(fd);
}
