/* SPDX-License-Identifier: MIT */
/* Writes a seed corpus of valid state files for fuzz-state into a directory: no, one and
 * several sections, empty and longer payloads, shortest and longest text fields. */
#include <errno.h>
#include <sys/stat.h>

#include "state.h"

static int write_seed(const char *dir, unsigned index, const StateFile *s)
{
        Buffer b = { 0 };
        char path[4096];
        FILE *f;
        int r;

        r = state_serialize(s, &b);
        if (r < 0) {
                fprintf(stderr, "gen-seeds: seed %u does not serialize: %s\n", index, strerror(-r));
                return r;
        }
        snprintf(path, sizeof(path), "%s/seed-%02u.state", dir, index);
        f = fopen(path, "we");
        if (!f) {
                r = -errno;
                fprintf(stderr, "gen-seeds: cannot create '%s': %s\n", path, strerror(errno));
                buffer_done(&b);
                return r;
        }
        if (fwrite(b.data, 1, b.size, f) != b.size)
                r = -EIO;
        if (fclose(f) != 0 && r == 0)
                r = -EIO;
        buffer_done(&b);
        if (r < 0)
                fprintf(stderr, "gen-seeds: cannot write '%s'\n", path);
        return r;
}

static void base_state(StateFile *s)
{
        *s = (StateFile){ 0 };
        snprintf(s->identity.slot, sizeof(s->identity.slot), "0000:00:02.0");
        s->identity.vendor_id = 0x8086;
        s->identity.device_id = 0x27ae;
        s->identity.subvendor_id = 0x1462;
        s->identity.subdevice_id = 0x0110;
        s->identity.revision = 0x03;
        snprintf(s->kernel_release, sizeof(s->kernel_release), "6.1.0-18-686-pae");
        snprintf(s->boot_id, sizeof(s->boot_id), "3c2f0e1a-7d64-4b8e-a1f5-9e0d2c4b6a81");
        s->time_usec = UINT64_C(1714560000000000);
}

int main(int argc, char **argv)
{
        static uint8_t payload[STATE_SECTIONS_MAX][256];
        unsigned index = 0;
        StateFile s;
        int r = 0;

        if (argc != 2) {
                fprintf(stderr, "usage: %s DIRECTORY\n", argv[0]);
                return 2;
        }
        if (mkdir(argv[1], 0700) < 0 && errno != EEXIST) {
                fprintf(stderr, "gen-seeds: cannot create '%s': %s\n", argv[1], strerror(errno));
                return 1;
        }
        for (size_t i = 0; i < STATE_SECTIONS_MAX; i++)
                for (size_t j = 0; j < sizeof(payload[i]); j++)
                        payload[i][j] = (uint8_t)(i * 31u + j);

        /* No sections. */
        base_state(&s);
        if (r >= 0)
                r = write_seed(argv[1], index++, &s);

        /* One section, like pci-config (64 bytes). */
        base_state(&s);
        s.n_sections = 1;
        s.sections[0] = (StateSection){ .method_id = 1, .method_version = 1, .len = 64, .payload = payload[0] };
        if (r >= 0)
                r = write_seed(argv[1], index++, &s);

        /* One empty section. */
        base_state(&s);
        s.n_sections = 1;
        s.sections[0] = (StateSection){ .method_id = 5, .method_version = 2, .len = 0, .payload = NULL };
        if (r >= 0)
                r = write_seed(argv[1], index++, &s);

        /* Several sections of different sizes, a second device. */
        base_state(&s);
        snprintf(s.identity.slot, sizeof(s.identity.slot), "0000:01:00.0");
        s.identity.vendor_id = 0x1234;
        s.identity.device_id = 0x1111;
        s.n_sections = 4;
        for (size_t i = 0; i < s.n_sections; i++)
                s.sections[i] = (StateSection){
                        .method_id = (uint16_t)(i + 1),
                        .method_version = 1,
                        .len = (uint32_t)(i * 80u),
                        .payload = payload[i],
                };
        if (r >= 0)
                r = write_seed(argv[1], index++, &s);

        /* The most sections, short payloads; shortest strings; extreme time. */
        base_state(&s);
        s.identity.slot[0] = '\0';
        s.kernel_release[0] = '\0';
        s.boot_id[0] = '\0';
        s.time_usec = UINT64_MAX;
        s.n_sections = STATE_SECTIONS_MAX;
        for (size_t i = 0; i < s.n_sections; i++)
                s.sections[i] = (StateSection){
                        .method_id = (uint16_t)(0xffffu - i),
                        .method_version = (uint16_t)i,
                        .len = (uint32_t)(i % 5),
                        .payload = payload[i],
                };
        if (r >= 0)
                r = write_seed(argv[1], index++, &s);

        /* Longest strings, characters that need JSON escaping. */
        base_state(&s);
        memset(s.identity.slot, '9', sizeof(s.identity.slot) - 1);
        memset(s.kernel_release, 'k', sizeof(s.kernel_release) - 1);
        s.kernel_release[10] = '"';
        s.kernel_release[11] = '\\';
        memset(s.boot_id, 'f', sizeof(s.boot_id) - 1);
        s.n_sections = 2;
        s.sections[0] = (StateSection){ .method_id = 2, .method_version = 1, .len = 256, .payload = payload[1] };
        s.sections[1] = (StateSection){ .method_id = 3, .method_version = 7, .len = 17, .payload = payload[2] };
        if (r >= 0)
                r = write_seed(argv[1], index++, &s);

        if (r < 0)
                return 1;
        printf("gen-seeds: %u seeds in '%s'\n", index, argv[1]);
        return 0;
}
