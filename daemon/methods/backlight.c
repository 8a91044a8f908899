/* SPDX-License-Identifier: MIT */
/* The "backlight" method: saves name, brightness and max_brightness of each backlight; on
 * restore writes the brightness only of the same-named, same-max one, and only if it differs
 * (or BacklightReset= asks for the write anyway). */
#include <inttypes.h>

#include "log.h"
#include "methods/backlight.h"

typedef struct BacklightEntry {
        char name[HW_BACKLIGHT_NAME_MAX + 1];
        uint32_t brightness, max;
} BacklightEntry;

typedef struct BacklightSet {
        size_t n;
        BacklightEntry entries[BACKLIGHT_MAX];
} BacklightSet;

/* Parses and validates a payload; every caller goes through here first. */
static int backlight_parse(const uint8_t *payload, size_t len, BacklightSet *ret)
{
        size_t pos = 1, count;

        if (!payload || len < 1)
                return -EBADMSG;
        count = payload[0];
        if (count > BACKLIGHT_MAX)
                return -EBADMSG;

        for (size_t i = 0; i < count; i++) {
                BacklightEntry *e = &ret->entries[i];
                size_t name_len;

                if (len - pos < 1)
                        return -EBADMSG;
                name_len = payload[pos++];
                if (name_len < 1 || name_len > HW_BACKLIGHT_NAME_MAX || len - pos < name_len + 8)
                        return -EBADMSG;
                memcpy(e->name, payload + pos, name_len);
                e->name[name_len] = '\0';
                pos += name_len;
                /* A NUL inside the name shortens it: the validity check then sees a different
                 * length than the one stored, and refuses. */
                if (strlen(e->name) != name_len || !hw_backlight_name_is_valid(e->name))
                        return -EBADMSG;
                e->brightness = read_le32(payload + pos);
                e->max = read_le32(payload + pos + 4);
                pos += 8;
                if (e->max < 1 || e->brightness > e->max)
                        return -EBADMSG;
                for (size_t j = 0; j < i; j++)
                        if (streq(ret->entries[j].name, e->name))
                                return -EBADMSG;
        }
        if (pos != len)
                return -EBADMSG;
        ret->n = count;
        return 0;
}

static int backlight_check(const uint8_t *payload, size_t len)
{
        BacklightSet set;
        return backlight_parse(payload, len, &set);
}

/* Backlights go with the display the kernel console is on: the boot VGA device, or the
 * only display device there is. */
static bool backlight_device_is_primary(const DisplayDevice *d)
{
        return d->boot_vga || !d->needs_vga_arbiter;
}

static int backlight_probe(Hw *hw, const DisplayDevice *d)
{
        int r;

        if (!d)
                return -EINVAL;
        if (!backlight_device_is_primary(d))
                return 0;
        r = hw_backlight_list(hw, NULL, 0);
        if (r < 0)
                return r;
        return r > 0 ? 1 : 0;
}

static int backlight_save(Hw *hw, const DisplayDevice *d, Buffer *out)
{
        HwBacklightName names[BACKLIGHT_MAX];
        BacklightSet set = { 0 };
        size_t n, size = 1;
        int r;

        if (!out)
                return -EINVAL;
        r = hw_backlight_list(hw, names, BACKLIGHT_MAX);
        if (r < 0)
                return r;
        if ((size_t)r > BACKLIGHT_MAX)
                log_debug("%s: %d backlights, saving the first %u.", d ? d->slot : "?", r, BACKLIGHT_MAX);
        n = MIN((size_t)r, (size_t)BACKLIGHT_MAX);

        for (size_t i = 0; i < n; i++) {
                BacklightEntry *e = &set.entries[set.n];

                r = hw_backlight_read(hw, names[i].name, &e->brightness, &e->max);
                if (r == -ENOENT)
                        continue; /* gone since the listing */
                if (r < 0)
                        return r;
                if (e->max < 1 || e->brightness > e->max) {
                        log_debug("backlight '%s': brightness %" PRIu32 " of max %" PRIu32
                                  " makes no sense, not saved.",
                                  names[i].name, e->brightness, e->max);
                        continue;
                }
                memcpy(e->name, names[i].name, sizeof(e->name));
                size += BACKLIGHT_ENTRY_FIXED_SIZE + strlen(e->name);
                set.n++;
        }

        r = buffer_reserve(out, size);
        if (r < 0)
                return r;
        (void)buffer_append_u8(out, (uint8_t)set.n);
        for (size_t i = 0; i < set.n; i++) {
                const BacklightEntry *e = &set.entries[i];
                size_t name_len = strlen(e->name);

                (void)buffer_append_u8(out, (uint8_t)name_len);
                (void)buffer_append(out, e->name, name_len);
                (void)buffer_append_le32(out, e->brightness);
                (void)buffer_append_le32(out, e->max);
        }
        return 0;
}

/* Writes a saved brightness back where the same backlight (same name, same max) is there
 * and shows another value. A backlight gone or changed is left alone: verify reports it.
 * Every backlight is tried; the first write error is returned. */
static int backlight_restore(Hw *hw, const DisplayDevice *d, const uint8_t *payload, size_t len)
{
        BacklightSet set;
        int r, first_error = 0;

        r = backlight_parse(payload, len, &set);
        if (r < 0)
                return r;
        for (size_t i = 0; i < set.n; i++) {
                const BacklightEntry *e = &set.entries[i];
                uint32_t brightness, max;

                r = hw_backlight_read(hw, e->name, &brightness, &max);
                if (r == -ENOENT || (r >= 0 && max != e->max))
                        continue;
                /* BacklightReset= (a quirk): firmware that forgets the level it reports. */
                if (r >= 0 && (brightness != e->brightness || d->settings.backlight_reset))
                        r = hw_backlight_write(hw, e->name, e->brightness);
                if (r < 0 && first_error == 0)
                        first_error = r;
        }
        return first_error;
}

static int backlight_verify(Hw *hw, const DisplayDevice *d, const uint8_t *payload, size_t len,
                            Buffer *report)
{
        BacklightSet set;
        int r, mismatches = 0;

        r = backlight_parse(payload, len, &set);
        if (r < 0)
                return r;
        for (size_t i = 0; i < set.n; i++) {
                const BacklightEntry *e = &set.entries[i];
                uint32_t brightness, max;

                r = hw_backlight_read(hw, e->name, &brightness, &max);
                if (r < 0) {
                        if (report)
                                (void)buffer_printf(report, "backlight '%s': %s\n", e->name,
                                                    r == -ENOENT ? "gone" : STRERROR(r));
                } else if (max != e->max) {
                        if (report)
                                (void)buffer_printf(report,
                                                    "backlight '%s': max_brightness = %" PRIu32
                                                    ", was %" PRIu32 "; left alone\n",
                                                    e->name, max, e->max);
                } else if (brightness != e->brightness) {
                        if (report)
                                (void)buffer_printf(report,
                                                    "backlight '%s': brightness = %" PRIu32
                                                    ", expected %" PRIu32 "\n",
                                                    e->name, brightness, e->brightness);
                } else
                        continue;
                mismatches++;
        }
        return mismatches;
}

static int backlight_dump(const uint8_t *payload, size_t len, bool json, Buffer *out)
{
        BacklightSet set;
        int r;

        if (!out)
                return -EINVAL;
        r = backlight_parse(payload, len, &set);
        if (r < 0)
                return r;
        if (json) {
                r = buffer_printf(out, "{\"backlights\":[");
                for (size_t i = 0; r >= 0 && i < set.n; i++) {
                        r = buffer_printf(out, "%s{\"name\":", i ? "," : "");
                        if (r >= 0)
                                r = buffer_append_json_string(out, set.entries[i].name);
                        if (r >= 0)
                                r = buffer_printf(out, ",\"brightness\":%" PRIu32 ",\"max\":%" PRIu32 "}",
                                                  set.entries[i].brightness, set.entries[i].max);
                }
                if (r >= 0)
                        r = buffer_printf(out, "]}");
                return r;
        }
        r = buffer_printf(out, "backlight: %zu saved\n", set.n);
        for (size_t i = 0; r >= 0 && i < set.n; i++)
                r = buffer_printf(out, "backlight '%s': brightness %" PRIu32 " of %" PRIu32 "\n",
                                  set.entries[i].name, set.entries[i].brightness, set.entries[i].max);
        return r;
}

const MethodOps method_backlight = {
        .name = "backlight",
        .id = BACKLIGHT_METHOD_ID,
        .version = BACKLIGHT_METHOD_VERSION,
        .probe = backlight_probe,
        .save = backlight_save,
        .check = backlight_check,
        .restore = backlight_restore,
        .verify = backlight_verify,
        .dump = backlight_dump,
};
