/* SPDX-License-Identifier: MIT */
/* umsbench: the guest side of bench/run (built for the benchmark only, never installed): a
 * bounded timer that runs commands N times each, and the floor, the simplest loop through
 * daemon/hw/ that reads or writes the registers and plane bytes the vga method saves. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "hw/hw.h"
#include "methods/vga.h"
#include "survey.h"

#define FLOOR_SIZE (1u + VGA_SR_COUNT + VGA_CR_COUNT + VGA_GR_COUNT + VGA_AR_COUNT + 1u + VGA_PALETTE_SIZE + \
                    VGA_PAYLOAD_PLANES_SIZE)
#define ARGS_MAX 32

static uint64_t now_ns(void)
{
        struct timespec ts;
        clock_gettime(CLOCK_MONOTONIC, &ts);
        return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- the timer ------------------------------------------------------------------- */

/* Runs the space-separated command once (no shell: a word "<FILE" or ">FILE" redirects its
 * standard input or output, ">>FILE" appends both outputs to FILE; otherwise they go to
 * /dev/null), killing its process
 * group after timeout_ms. Returns the exit status (128 + signal), *ret_ms the wall time,
 * *ret_hung whether it had to be killed. */
static int run_once(const char *command, unsigned timeout_ms, double *ret_ms, bool *ret_hung)
{
        char buf[1024], *argv[ARGS_MAX + 1], *save = NULL, *in = NULL, *out = NULL, *both = NULL;
        sigset_t chld, old_mask;
        uint64_t t0, deadline;
        int status = 0, n = 0;
        pid_t pid;

        snprintf(buf, sizeof(buf), "%s", command);
        for (char *w = strtok_r(buf, " ", &save); w && n < ARGS_MAX; w = strtok_r(NULL, " ", &save))
                if (w[0] == '<')
                        in = w + 1;
                else if (w[0] == '>' && w[1] == '>')
                        both = w + 2;
                else if (w[0] == '>')
                        out = w + 1;
                else
                        argv[n++] = w;
        argv[n] = NULL;
        if (n == 0)
                return -EINVAL;

        *ret_hung = false;
        /* The wait sleeps until SIGCHLD or the deadline: a polling parent would take CPU
         * time from the command it times (in a one-CPU TCG guest, half of it). */
        sigemptyset(&chld);
        sigaddset(&chld, SIGCHLD);
        if (sigprocmask(SIG_BLOCK, &chld, &old_mask) < 0)
                return -errno;
        t0 = now_ns();
        pid = fork();
        if (pid < 0) {
                int e = -errno;
                (void)sigprocmask(SIG_SETMASK, &old_mask, NULL);
                return e;
        }
        if (pid == 0) {
                int null = open("/dev/null", O_RDWR);
                int fd_in = in ? open(in, O_RDONLY) : null;
                int fd_log = both ? open(both, O_WRONLY | O_CREAT | O_APPEND, 0600) : null;
                int fd_out = out ? open(out, O_WRONLY | O_CREAT | O_TRUNC, 0600) : fd_log;
                (void)setpgid(0, 0);
                (void)sigprocmask(SIG_SETMASK, &old_mask, NULL);
                if (null < 0 || fd_in < 0 || fd_out < 0 || fd_log < 0)
                        _exit(126);
                (void)dup2(fd_in, STDIN_FILENO);
                (void)dup2(fd_out, STDOUT_FILENO);
                (void)dup2(fd_log, STDERR_FILENO);
                execvp(argv[0], argv);
                _exit(127);
        }
        deadline = t0 + (uint64_t)timeout_ms * 1000000u;
        for (;;) {
                pid_t w = waitpid(pid, &status, *ret_hung ? 0 : WNOHANG);
                uint64_t now;

                if (w == pid)
                        break;
                if (w < 0 && errno != EINTR) {
                        int e = -errno;
                        (void)sigprocmask(SIG_SETMASK, &old_mask, NULL);
                        return e;
                }
                if (w < 0 || *ret_hung)
                        continue;
                now = now_ns();
                if (now >= deadline) {
                        *ret_hung = true;
                        (void)kill(-pid, SIGKILL);
                        (void)kill(pid, SIGKILL);
                        continue;
                }
                struct timespec ts = { .tv_sec = (time_t)((deadline - now) / 1000000000u),
                                       .tv_nsec = (long)((deadline - now) % 1000000000u) };
                (void)sigtimedwait(&chld, NULL, &ts);
        }
        (void)sigprocmask(SIG_SETMASK, &old_mask, NULL);
        *ret_ms = (double)(now_ns() - t0) / 1e6;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* time N TIMEOUT-MS LABEL COMMAND [LABEL COMMAND ...]: N rounds, each running every command
 * once in the order given; one JSON object per run on stdout. */
static int cmd_time(int argc, char **argv)
{
        unsigned n, timeout_ms;

        if (argc < 4 || (argc - 2) % 2 != 0) {
                fprintf(stderr, "usage: umsbench time N TIMEOUT-MS LABEL COMMAND [LABEL COMMAND ...]\n");
                return 2;
        }
        n = (unsigned)strtoul(argv[0], NULL, 10);
        timeout_ms = (unsigned)strtoul(argv[1], NULL, 10);
        for (unsigned i = 0; i < n; i++)
                for (int k = 2; k + 1 < argc; k += 2) {
                        double ms = 0;
                        bool hung = false;
                        int rc = run_once(argv[k + 1], timeout_ms, &ms, &hung);
                        printf("{\"label\": \"%s\", \"run\": %u, \"ms\": %.3f, \"rc\": %d, \"hung\": %s}\n", argv[k], i,
                               ms, rc, hung ? "true" : "false");
                        fflush(stdout);
                }
        return 0;
}

/* ---- the floor ------------------------------------------------------------------- */

/* Opens the first managed boot VGA device; *ret_t0: when the survey was done. */
static int open_boot_vga(Survey **ret_survey, Hw **ret_hw, uint64_t *ret_t0)
{
        SurveyConfig c = {
                .pci_source = pci_source_pciaccess,
                .classify_env = classify_env_default(NULL),
        };
        Survey *s = NULL;
        int r;

        r = survey_run(&c, &s);
        if (r < 0)
                return r;
        *ret_t0 = now_ns();
        for (size_t i = 0; i < s->n; i++)
                if (s->devices[i].role == SURVEY_MANAGED && s->devices[i].device.boot_vga) {
                        r = hw_open_pciaccess(&s->devices[i].device, ret_hw);
                        if (r < 0) {
                                survey_free(s);
                                return r;
                        }
                        *ret_survey = s;
                        return 0;
                }
        survey_free(s);
        return -ENODEV;
}

/* Remembers the first failure of a sequence that goes on regardless (macro.h's MIN would
 * evaluate the access twice). */
static void keep_first_error(int *r, int q)
{
        if (q < 0 && *r >= 0)
                *r = q;
}

/* One direction of the floor: every register and plane byte read into buf, or written from
 * it, in the plainest order that works; no checks, no verification, no state file format. */
static int floor_pass(Hw *hw, uint8_t *buf, bool restore)
{
        uint8_t *p = buf, *misc, *sr, *cr, *gr, *ar, *mask, *pal, *planes;
        uint8_t dummy;
        int r = 0;

        misc = p++;
        sr = p, p += VGA_SR_COUNT;
        cr = p, p += VGA_CR_COUNT;
        gr = p, p += VGA_GR_COUNT;
        ar = p, p += VGA_AR_COUNT;
        mask = p++;
        pal = p, p += VGA_PALETTE_SIZE;
        planes = p;

        if (restore) {
                keep_first_error(&r, hw_outb(hw, 0x3C2, *misc));
                keep_first_error(&r, hw_write_indexed(hw, 0x3C4, 0, 0x01));
                for (uint8_t i = 1; i < VGA_SR_COUNT; i++)
                        keep_first_error(&r, hw_write_indexed(hw, 0x3C4, i, sr[i]));
                keep_first_error(&r, hw_write_indexed(hw, 0x3C4, 0, sr[0]));
                keep_first_error(&r, hw_write_indexed(hw, 0x3D4, 0x11, cr[0x11] & 0x7F));
                for (uint8_t i = 0; i < VGA_CR_COUNT; i++)
                        keep_first_error(&r, hw_write_indexed(hw, 0x3D4, i, cr[i]));
                for (uint8_t i = 0; i < VGA_GR_COUNT; i++)
                        keep_first_error(&r, hw_write_indexed(hw, 0x3CE, i, gr[i]));
                keep_first_error(&r, hw_inb(hw, 0x3DA, &dummy));
                for (uint8_t i = 0; i < VGA_AR_COUNT; i++) {
                        keep_first_error(&r, hw_outb(hw, 0x3C0, i));
                        keep_first_error(&r, hw_outb(hw, 0x3C0, ar[i]));
                }
                if (*mask)
                        keep_first_error(&r, hw_outb(hw, 0x3C6, *mask));
                keep_first_error(&r, hw_outb(hw, 0x3C8, 0));
                for (size_t i = 0; i < VGA_PALETTE_SIZE; i++)
                        keep_first_error(&r, hw_outb(hw, 0x3C9, pal[i]));
        } else {
                keep_first_error(&r, hw_inb(hw, 0x3CC, misc));
                for (uint8_t i = 0; i < VGA_SR_COUNT; i++)
                        keep_first_error(&r, hw_read_indexed(hw, 0x3C4, i, &sr[i]));
                for (uint8_t i = 0; i < VGA_CR_COUNT; i++)
                        keep_first_error(&r, hw_read_indexed(hw, 0x3D4, i, &cr[i]));
                for (uint8_t i = 0; i < VGA_GR_COUNT; i++)
                        keep_first_error(&r, hw_read_indexed(hw, 0x3CE, i, &gr[i]));
                for (uint8_t i = 0; i < VGA_AR_COUNT; i++) {
                        keep_first_error(&r, hw_inb(hw, 0x3DA, &dummy));
                        keep_first_error(&r, hw_outb(hw, 0x3C0, i));
                        keep_first_error(&r, hw_inb(hw, 0x3C1, &ar[i]));
                }
                keep_first_error(&r, hw_inb(hw, 0x3C6, mask));
                keep_first_error(&r, hw_outb(hw, 0x3C7, 0));
                for (size_t i = 0; i < VGA_PALETTE_SIZE; i++)
                        keep_first_error(&r, hw_inb(hw, 0x3C9, &pal[i]));
        }

        /* The planes: plain planar access to 0xA0000, one plane at a time. */
        keep_first_error(&r, hw_write_indexed(hw, 0x3C4, 0x04, 0x06));
        keep_first_error(&r, hw_write_indexed(hw, 0x3CE, 0x05, 0x00));
        keep_first_error(&r, hw_write_indexed(hw, 0x3CE, 0x06, 0x05));
        keep_first_error(&r, hw_write_indexed(hw, 0x3CE, 0x08, 0xFF));
        for (uint8_t pl = 0; pl < VGA_PLANE_COUNT; pl++) {
                uint8_t *data = planes + pl * VGA_PLANE_SIZE;
                if (restore) {
                        keep_first_error(&r, hw_write_indexed(hw, 0x3C4, 0x02, (uint8_t)(1u << pl)));
                        keep_first_error(&r, hw_vga_mem_write(hw, 0, data, VGA_PLANE_SIZE));
                } else {
                        keep_first_error(&r, hw_write_indexed(hw, 0x3CE, 0x04, pl));
                        keep_first_error(&r, hw_vga_mem_read(hw, 0, data, VGA_PLANE_SIZE));
                }
        }
        keep_first_error(&r, hw_write_indexed(hw, 0x3C4, 0x02, sr[2]));
        keep_first_error(&r, hw_write_indexed(hw, 0x3C4, 0x04, sr[4]));
        for (uint8_t i = 4; i <= 8; i++)
                keep_first_error(&r, hw_write_indexed(hw, 0x3CE, i, gr[i]));
        keep_first_error(&r, hw_inb(hw, 0x3DA, &dummy));
        keep_first_error(&r, hw_outb(hw, 0x3C0, 0x20));
        return r;
}

/* floor save FILE | floor restore FILE */
static int cmd_floor(int argc, char **argv)
{
        _cleanup_(survey_freep) Survey *s = NULL;
        _cleanup_(hw_freep) Hw *hw = NULL;
        _cleanup_free_ uint8_t *buf = NULL;
        uint64_t t0;
        bool restore;
        int fd, r;

        if (argc != 2 || (!streq(argv[0], "save") && !streq(argv[0], "restore"))) {
                fprintf(stderr, "usage: umsbench floor save|restore FILE\n");
                return 2;
        }
        restore = streq(argv[0], "restore");
        buf = calloc(1, FLOOR_SIZE);
        if (!buf)
                return 1;
        if (restore) {
                fd = open(argv[1], O_RDONLY | O_CLOEXEC);
                if (fd < 0 || read(fd, buf, FLOOR_SIZE) != (ssize_t)FLOOR_SIZE) {
                        fprintf(stderr, "umsbench: cannot read %u bytes from '%s'\n", FLOOR_SIZE, argv[1]);
                        return 1;
                }
                close(fd);
        }
        r = open_boot_vga(&s, &hw, &t0);
        if (r < 0) {
                fprintf(stderr, "umsbench: no managed boot VGA device to open: %s\n", strerror(-r));
                return 1;
        }
        r = hw_vga_lock(hw);
        if (r >= 0) {
                r = floor_pass(hw, buf, restore);
                (void)hw_vga_unlock(hw);
        }
        if (r < 0) {
                fprintf(stderr, "umsbench: register access failed: %s\n", strerror(-r));
                return 1;
        }
        if (!restore) {
                fd = open(argv[1], O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
                if (fd < 0 || write(fd, buf, FLOOR_SIZE) != (ssize_t)FLOOR_SIZE) {
                        fprintf(stderr, "umsbench: cannot write '%s'\n", argv[1]);
                        return 1;
                }
                close(fd);
        }
        /* From the device's open to the last register (and the write of the saved bytes): what
         * the engine's per-device time covers. */
        printf("floor %s in %.1f ms.\n", argv[0], (double)(now_ns() - t0) / 1e6);
        return 0;
}

int main(int argc, char **argv)
{
        if (argc >= 2 && streq(argv[1], "time"))
                return cmd_time(argc - 2, argv + 2);
        if (argc >= 2 && streq(argv[1], "floor"))
                return cmd_floor(argc - 2, argv + 2);
        fprintf(stderr, "usage: umsbench time N TIMEOUT-MS LABEL COMMAND ... | umsbench floor save|restore FILE\n");
        return 2;
}
