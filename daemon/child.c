/* SPDX-License-Identifier: MIT */
/* Owns running a function in a child process with a deadline: fork with only the fds it
 * needs, wait on a pidfd with a timeout, SIGKILL and reap on overrun. */
#include <dirent.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/pidfd.h>
#include <sys/wait.h>
#include <time.h>

#include "child.h"

static void close_fds_above_2_except(int keep)
{
        /* close_range() with first > last is EINVAL: the range below keep exists only when
         * keep > 3. The fallback loop is slow (every possible fd): only for old kernels. */
        if (keep > 2) {
                if ((keep == 3 || close_range(3, (unsigned)keep - 1, 0) >= 0) &&
                    close_range((unsigned)keep + 1, ~0u, 0) >= 0)
                        return;
        } else if (close_range(3, ~0u, 0) >= 0)
                return;
        for (long fd = 3, max = sysconf(_SC_OPEN_MAX); fd < max; fd++)
                if (fd != keep)
                        (void)close((int)fd);
}

int child_spawn(ChildFunc func, void *userdata, int keep_fd, pid_t *ret_pid)
{
        pid_t pid;

        if (!func || !ret_pid)
                return -EINVAL;
        fflush(stdout);
        fflush(stderr);
        pid = fork();
        if (pid < 0)
                return negative_errno();
        if (pid == 0) {
                sigset_t none;

                close_fds_above_2_except(keep_fd);
                sigemptyset(&none);
                (void)sigprocmask(SIG_SETMASK, &none, NULL);
                (void)signal(SIGTERM, SIG_DFL);
                (void)signal(SIGINT, SIG_DFL);
                (void)signal(SIGHUP, SIG_DFL);
                (void)signal(SIGCHLD, SIG_DFL);
                int code = func(userdata);
                fflush(stdout);
                fflush(stderr);
                _exit(code);
        }
        *ret_pid = pid;
        return 0;
}

static int exit_code_of(int status)
{
        if (WIFEXITED(status))
                return WEXITSTATUS(status);
        if (WIFSIGNALED(status))
                return 128 + WTERMSIG(status);
        return 128;
}

int child_wait(pid_t pid, uint64_t timeout_usec)
{
        _cleanup_close_ int pidfd = pidfd_open(pid, 0);
        uint64_t end = clock_usec(CLOCK_MONOTONIC) + timeout_usec;
        int status;

        if (pidfd < 0)
                return negative_errno();
        for (;;) {
                uint64_t now = clock_usec(CLOCK_MONOTONIC);
                struct pollfd p = { .fd = pidfd, .events = POLLIN };
                int r;

                if (now >= end)
                        break;
                r = poll(&p, 1, (int)MIN((end - now + 999) / 1000, (uint64_t)INT32_MAX));
                if (r < 0 && errno != EINTR)
                        return negative_errno();
                if (r > 0)
                        break;
        }
        if (waitpid(pid, &status, WNOHANG) == pid)
                return exit_code_of(status);
        (void)kill(pid, SIGKILL);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
                ;
        return -ETIMEDOUT;
}

int child_run_bounded(ChildFunc func, void *userdata, int keep_fd, uint64_t timeout_usec)
{
        pid_t pid;
        int r;

        r = child_spawn(func, userdata, keep_fd, &pid);
        if (r < 0)
                return r;
        return child_wait(pid, timeout_usec);
}
