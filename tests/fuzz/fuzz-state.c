/* SPDX-License-Identifier: MIT */
/* libFuzzer target for the state file parser: whatever state_parse() accepts must dump,
 * serialize back to the very same bytes and re-parse equal. Built by tools/fuzz-state. */
#include "state.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define FILE_SIZE_OFFSET 12u

static void put_le32(uint8_t *p, uint32_t v)
{
        p[0] = (uint8_t)v;
        p[1] = (uint8_t)(v >> 8);
        p[2] = (uint8_t)(v >> 16);
        p[3] = (uint8_t)(v >> 24);
}

static void check_dump(const StateFile *s, bool json)
{
        Buffer out = { 0 };

        if (state_dump_header(s, json, &out) < 0 || out.size == 0)
                abort();
        if (json && (out.data[0] != '{' || out.data[out.size - 1] != '}'))
                abort();
        if (strlen(buffer_str(&out)) != out.size) /* no NUL may sneak into text output */
                abort();
        buffer_done(&out);
}

static void check_one(const uint8_t *data, size_t size)
{
        StateFile *s = NULL, *again = NULL;
        DisplayDevice d = { 0 };
        Buffer out = { 0 };
        int r;

        r = state_parse(data, size, &s);
        if (r < 0) {
                if (s || !state_error_to_string(r))
                        abort();
                return;
        }
        if (!s || s->n_sections > STATE_SECTIONS_MAX)
                abort();

        check_dump(s, false);
        check_dump(s, true);

        /* The format is canonical: serializing gives back exactly the input. */
        if (state_serialize(s, &out) < 0)
                abort();
        if (out.size != size || memcmp(out.data, data, size) != 0)
                abort();
        if (state_parse(out.data, out.size, &again) < 0 || !state_file_equal(s, again))
                abort();

        /* A device built from the file's identity is the file's device. */
        memcpy(d.slot, s->identity.slot, sizeof(d.slot));
        d.vendor_id = s->identity.vendor_id;
        d.device_id = s->identity.device_id;
        d.subvendor_id = s->identity.subvendor_id;
        d.subdevice_id = s->identity.subdevice_id;
        d.revision = s->identity.revision;
        if (state_check_identity(s, &d) != 0)
                abort();

        buffer_done(&out);
        state_file_free(again);
        state_file_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
        uint8_t *copy;

        check_one(data, size);

        /* Most mutations only break the file size field or the checksum. Also parse a copy
         * with both made right, so that the structural checks behind them get fuzzed. */
        if (size < FILE_SIZE_OFFSET + 4 || size > STATE_FILE_MAX)
                return 0;
        copy = malloc(size);
        if (!copy)
                return 0;
        memcpy(copy, data, size);
        put_le32(copy + FILE_SIZE_OFFSET, (uint32_t)size);
        put_le32(copy + size - 4, state_crc32c(copy, size - 4));
        check_one(copy, size);
        free(copy);
        return 0;
}
