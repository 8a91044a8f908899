/* SPDX-License-Identifier: MIT */
/* Owns kernel.acpi_video_flags around sleep: set from the quirks before, the machine's own
 * value back after, that value kept in the run directory between the two. */
#include <fcntl.h>
#include <unistd.h>

#include "hw/hw-system.h"
#include "sleep-flags.h"
#include "state.h"

/* The value recorded before an earlier sleep, 0 with *ret set; -ENOENT without a record. */
static int read_record(const RunDir *d, unsigned *ret)
{
        _cleanup_free_ char *line = NULL;
        unsigned v;
        int r;

        r = state_read_record(d->fd, SLEEP_FLAGS_RECORD, d->uid, 32, &line);
        if (r < 0)
                return r;
        if (sscanf(line, "%u", &v) != 1 || v > 0xff)
                return -EBADMSG;
        *ret = v;
        return 0;
}

void sleep_flags_apply(const char *root, const RunDir *d, unsigned flags, SleepFlagsResult *ret)
{
        char line[16];
        unsigned previous;
        int n, r;

        *ret = (SleepFlagsResult){ .value = flags };
        if (flags == 0 || !d)
                return;
        r = hw_system_acpi_video_flags_read(root, &previous);
        if (r < 0) {
                ret->r = r;
                return;
        }
        ret->previous = previous;
        if (read_record(d, &previous) < 0) {
                n = snprintf(line, sizeof(line), "%u\n", previous);
                r = state_write_record(d->fd, SLEEP_FLAGS_RECORD, line, (size_t)n);
                if (r < 0) {
                        ret->r = r; /* without the record nothing could put it back: not set */
                        return;
                }
        }
        ret->r = hw_system_acpi_video_flags_write(root, flags);
        ret->acted = ret->r >= 0;
}

void sleep_flags_reset(const char *root, const RunDir *d, SleepFlagsResult *ret)
{
        unsigned previous, now = 0;
        int r;

        *ret = (SleepFlagsResult){ 0 };
        if (!d)
                return;
        r = read_record(d, &previous);
        if (r == -ENOENT)
                return;
        if (r >= 0) {
                (void)hw_system_acpi_video_flags_read(root, &now);
                ret->previous = now;
                ret->value = previous;
                r = hw_system_acpi_video_flags_write(root, previous);
                ret->acted = r >= 0;
        }
        ret->r = r;
        /* A record that cannot be written back (no sysctl any more, garbage) would be retried
         * after every sleep: it goes either way. */
        if (unlinkat(d->fd, SLEEP_FLAGS_RECORD, 0) < 0 && errno != ENOENT && ret->r >= 0)
                ret->r = -errno;
}
