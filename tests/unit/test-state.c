/* SPDX-License-Identifier: MIT */
/* Unit tests for state.c: CRC-32C, format round trip, every refusal of a bad file, atomic
 * writes with .prev, file-safety checks, a power loss mid-write and two concurrent writers. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include <dirent.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "rundir.h"
#include "state.h"

#define HEADER_SIZE 152u
#define OFF_FORMAT_VERSION 8u
#define OFF_FILE_SIZE 12u
#define OFF_TIME 16u
#define OFF_SLOT 24u
#define OFF_N_SECTIONS 49u
#define OFF_KERNEL_RELEASE 50u
#define OFF_BOOT_ID 115u

static const char sample_boot_id[] = "0f5d1c7e-2b4a-4e37-9b8f-6a1d2c3e4f50";

/* ---- sample states ---------------------------------------------------------------- */

/* Payload storage for one sample state. */
typedef struct Payloads {
        uint8_t data[STATE_SECTIONS_MAX][700];
} Payloads;

/* A state for writer w, generation gen, with n sections of varying length and content,
 * so that any two (w, gen) pairs give different files. */
static void make_state(StateFile *s, Payloads *p, unsigned w, unsigned gen, size_t n)
{
        *s = (StateFile){ 0 };
        snprintf(s->identity.slot, sizeof(s->identity.slot), "0000:00:02.0");
        s->identity.vendor_id = 0x8086;
        s->identity.device_id = 0x27ae;
        s->identity.subvendor_id = 0x1462;
        s->identity.subdevice_id = 0x0110;
        s->identity.revision = 0x03;
        snprintf(s->kernel_release, sizeof(s->kernel_release), "6.1.0-18-amd64");
        snprintf(s->boot_id, sizeof(s->boot_id), "%s", sample_boot_id);
        s->time_usec = (uint64_t)w << 32 | gen;
        s->n_sections = n;
        for (size_t i = 0; i < n; i++) {
                size_t len = (gen * 37u + i * 101u + w * 13u) % sizeof(p->data[i]);

                for (size_t j = 0; j < len; j++)
                        p->data[i][j] = (uint8_t)(j * 7u + i * 3u + gen + w * 91u);
                s->sections[i] = (StateSection){
                        .method_id = (uint16_t)(i + 1),
                        .method_version = (uint16_t)(1 + i % 3),
                        .len = (uint32_t)len,
                        .payload = len > 0 ? p->data[i] : NULL,
                };
        }
}

/* Serializes a sample state into a malloc'ed block of exactly its size. */
static uint8_t *sample_file(size_t n_sections, size_t *ret_len)
{
        static Payloads p;
        Buffer b = { 0 };
        StateFile s;
        uint8_t *copy;

        make_state(&s, &p, 1, 5, n_sections);
        assert_int_equal(state_serialize(&s, &b), 0);
        copy = malloc(b.size);
        assert_non_null(copy);
        memcpy(copy, b.data, b.size);
        *ret_len = b.size;
        buffer_done(&b);
        return copy;
}

static void put_le32(uint8_t *p, uint32_t v)
{
        p[0] = (uint8_t)v;
        p[1] = (uint8_t)(v >> 8);
        p[2] = (uint8_t)(v >> 16);
        p[3] = (uint8_t)(v >> 24);
}

/* After a deliberate structural change: fix the file size field and the checksum, so that
 * the parser gets past them and must find the structural fault itself. */
static void reseal(uint8_t *p, size_t len)
{
        put_le32(p + OFF_FILE_SIZE, (uint32_t)len);
        put_le32(p + len - 4, state_crc32c(p, len - 4));
}

static int parse_copy(const uint8_t *data, size_t len)
{
        /* An exact-size copy, so that ASan sees any read past the end. */
        uint8_t *copy = malloc(len > 0 ? len : 1);
        StateFile *s = NULL;
        int r;

        assert_non_null(copy);
        if (len > 0)
                memcpy(copy, data, len);
        r = state_parse(copy, len, &s);
        if (r < 0)
                assert_null(s);
        else
                assert_non_null(s);
        state_file_free(s);
        free(copy);
        return r;
}

/* ---- temp directories ------------------------------------------------------------- */

static int rm_one(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
        (void)st;
        (void)type;
        (void)ftw;
        return remove(path);
}

static char *make_temp_dir(void)
{
        const char *base = getenv("TMPDIR");
        char *t;

        assert_true(asprintf(&t, "%s/test-state-XXXXXX", base && *base ? base : "/tmp") > 0);
        assert_non_null(mkdtemp(t));
        return t;
}

static void remove_temp_dir(char *t)
{
        assert_int_equal(nftw(t, rm_one, 16, FTW_DEPTH | FTW_PHYS), 0);
        free(t);
}

static char *join(const char *a, const char *b)
{
        char *p;
        assert_true(asprintf(&p, "%s/%s", a, b) > 0);
        return p;
}

static void write_bytes(const char *path, const uint8_t *data, size_t len, mode_t mode)
{
        int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);
        assert_true(fd >= 0);
        assert_int_equal(write(fd, data, len), (ssize_t)len);
        assert_int_equal(fchmod(fd, mode), 0);
        assert_int_equal(close(fd), 0);
}

/* Names in dir, sorted, joined with ' '. */
static char *list_dir(const char *dir)
{
        struct dirent **list;
        Buffer b = { 0 };
        int n = scandir(dir, &list, NULL, alphasort);
        char *ret;

        assert_true(n >= 0);
        for (int i = 0; i < n; i++) {
                if (!streq(list[i]->d_name, ".") && !streq(list[i]->d_name, ".."))
                        assert_int_equal(buffer_printf(&b, "%s%s", b.size > 0 ? " " : "", list[i]->d_name), 0);
                free(list[i]);
        }
        free(list);
        ret = strdup(buffer_str(&b));
        buffer_done(&b);
        return ret;
}

/* The file API takes the run directory's fd; these keep the tests in paths. */
static int state_load_file(const char *path, uid_t uid, StateFile **ret)
{
        return state_load_at(AT_FDCWD, path, uid, ret);
}

static int write_in(const char *dir, const StateFile *s, const StateWriteHook *hook)
{
        RunDir *rd = NULL;
        int r;

        r = rundir_open(dir, geteuid(), true, &rd, NULL);
        if (r < 0)
                return r;
        r = state_write(rd->fd, s, hook);
        rundir_free(rd);
        return r;
}

static void assert_loads_equal(const char *path, const StateFile *expected)
{
        StateFile *s = NULL;
        assert_int_equal(state_load_file(path, geteuid(), &s), 0);
        assert_true(state_file_equal(s, expected));
        state_file_free(s);
}

/* ---- CRC --------------------------------------------------------------------------- */

static void test_crc32c(void **state)
{
        uint8_t v[32];
        (void)state;

        assert_int_equal(state_crc32c("123456789", 9), 0xE3069283u); /* the standard check value */
        assert_int_equal(state_crc32c("", 0), 0);
        /* RFC 3720 B.4 vectors. */
        memset(v, 0, sizeof(v));
        assert_int_equal(state_crc32c(v, sizeof(v)), 0x8A9136AAu);
        memset(v, 0xff, sizeof(v));
        assert_int_equal(state_crc32c(v, sizeof(v)), 0x62A8AB43u);
        for (size_t i = 0; i < sizeof(v); i++)
                v[i] = (uint8_t)i;
        assert_int_equal(state_crc32c(v, sizeof(v)), 0x46DD794Eu);
}

/* ---- format ------------------------------------------------------------------------ */

static void test_roundtrip(void **state)
{
        static const size_t counts[] = { 0, 1, 3, STATE_SECTIONS_MAX };
        (void)state;

        for (size_t c = 0; c < ELEMENTSOF(counts); c++) {
                static Payloads p;
                Buffer b = { 0 }, again = { 0 };
                StateFile s, *parsed = NULL;
                size_t expected_size = HEADER_SIZE + 4;

                make_state(&s, &p, 2, 7, counts[c]);
                for (size_t i = 0; i < s.n_sections; i++)
                        expected_size += 8 + s.sections[i].len;

                /* Serializing appends: put something in front to prove it. */
                assert_int_equal(buffer_append(&b, "xyz", 3), 0);
                assert_int_equal(state_serialize(&s, &b), 0);
                assert_int_equal(b.size, 3 + expected_size);
                assert_memory_equal(b.data + 3, STATE_MAGIC, 8);

                assert_int_equal(state_parse(b.data + 3, b.size - 3, &parsed), 0);
                assert_true(state_file_equal(parsed, &s));
                assert_int_equal(parsed->n_sections, counts[c]);
                assert_string_equal(parsed->identity.slot, "0000:00:02.0");
                assert_string_equal(parsed->kernel_release, "6.1.0-18-amd64");
                assert_string_equal(parsed->boot_id, sample_boot_id);
                assert_int_equal(parsed->identity.revision, 3);

                /* Canonical: serializing the parsed state gives the same bytes. */
                assert_int_equal(state_serialize(parsed, &again), 0);
                assert_int_equal(again.size, expected_size);
                assert_memory_equal(again.data, b.data + 3, expected_size);

                /* And a different state is not equal. */
                parsed->time_usec++;
                assert_false(state_file_equal(parsed, &s));
                parsed->time_usec--;
                if (counts[c] > 0) {
                        StateSection *last = &parsed->sections[counts[c] - 1];

                        assert_true(last->len > 0);
                        parsed->blob[last->payload - parsed->blob + last->len - 1] ^= 1;
                        assert_false(state_file_equal(parsed, &s));
                        parsed->blob[last->payload - parsed->blob + last->len - 1] ^= 1;
                        last->method_version++;
                        assert_false(state_file_equal(parsed, &s));
                }

                state_file_free(parsed);
                buffer_done(&b);
                buffer_done(&again);
        }
}

static void test_serialize_refuses(void **state)
{
        static Payloads p;
        Buffer b = { 0 };
        StateFile s;
        (void)state;

        assert_int_equal(buffer_append(&b, "keep", 4), 0);

        make_state(&s, &p, 1, 1, 3);
        s.sections[2].method_id = s.sections[0].method_id;
        assert_int_equal(state_serialize(&s, &b), -EINVAL);

        make_state(&s, &p, 1, 1, 3);
        s.n_sections = STATE_SECTIONS_MAX + 1;
        assert_int_equal(state_serialize(&s, &b), -E2BIG);

        make_state(&s, &p, 1, 1, 1);
        s.sections[0].len = 10;
        s.sections[0].payload = NULL;
        assert_int_equal(state_serialize(&s, &b), -EINVAL);

        make_state(&s, &p, 1, 1, 1);
        s.sections[0].len = STATE_FILE_MAX;
        assert_int_equal(state_serialize(&s, &b), -EFBIG);

        make_state(&s, &p, 1, 1, 0);
        memset(s.identity.slot, 'a', sizeof(s.identity.slot));
        assert_int_equal(state_serialize(&s, &b), -EINVAL);

        make_state(&s, &p, 1, 1, 0);
        s.kernel_release[3] = '\n';
        assert_int_equal(state_serialize(&s, &b), -EINVAL);

        make_state(&s, &p, 1, 1, 0);
        memset(s.boot_id, '1', sizeof(s.boot_id));
        assert_int_equal(state_serialize(&s, &b), -EINVAL);

        /* Nothing was appended by the failures. */
        assert_int_equal(b.size, 4);
        assert_string_equal(buffer_str(&b), "keep");

        /* Junk after the NUL in a struct field is not written: the file stays canonical. */
        make_state(&s, &p, 1, 1, 0);
        s.kernel_release[60] = 'x';
        assert_int_equal(state_serialize(&s, &b), 0);
        for (size_t i = strlen(s.kernel_release); i < 65; i++)
                assert_int_equal(b.data[4 + OFF_KERNEL_RELEASE + i], 0);
        buffer_done(&b);
}

static void test_truncated_at_every_length(void **state)
{
        size_t len;
        uint8_t *f = sample_file(3, &len);
        (void)state;

        for (size_t n = 0; n < len; n++)
                assert_int_equal(parse_copy(f, n), -ENODATA);
        assert_int_equal(parse_copy(f, len), 0);
        free(f);
}

static void test_every_byte_flip_fails(void **state)
{
        static const uint8_t flips[] = { 0x01, 0x10, 0x80, 0xff };
        size_t len;
        uint8_t *f = sample_file(3, &len);
        (void)state;

        for (size_t pos = 0; pos < len; pos++)
                for (size_t k = 0; k < ELEMENTSOF(flips); k++) {
                        int r;

                        f[pos] ^= flips[k];
                        r = parse_copy(f, len);
                        f[pos] ^= flips[k];

                        if (pos < 8)
                                assert_int_equal(r, -EMEDIUMTYPE);
                        else if (pos < 12)
                                assert_int_equal(r, -EPROTONOSUPPORT);
                        else if (pos < 16)
                                assert_true(r == -ENODATA || r == -EUCLEAN);
                        else
                                assert_int_equal(r, -EBADMSG);
                }
        assert_int_equal(parse_copy(f, len), 0);
        free(f);
}

static void test_refusals(void **state)
{
        StateFile *s = NULL;
        /* Mutations are built in a fixed scratch area; parse_copy() hands the parser an
         * exact-size copy so that ASan still catches reads past the end. */
        static uint8_t g[STATE_SECTIONS_MAX * (sizeof(((Payloads *)NULL)->data[0]) + 8) + 512];
        uint8_t *f;
        size_t len;
        (void)state;

        f = sample_file(3, &len);
        assert_true(len + 64 <= sizeof(g));

        /* Bad magic, resealed so nothing else is wrong. */
        memcpy(g, f, len);
        memcpy(g, "UMSRSTAX", 8);
        reseal(g, len);
        assert_int_equal(parse_copy(g, len), -EMEDIUMTYPE);
        assert_int_equal(parse_copy((const uint8_t *)"GIF89a", 6), -EMEDIUMTYPE);
        assert_int_equal(parse_copy((const uint8_t *)"UMS", 3), -ENODATA);

        /* Unknown format versions. */
        memcpy(g, f, len);
        put_le32(g + OFF_FORMAT_VERSION, 2);
        reseal(g, len);
        assert_int_equal(parse_copy(g, len), -EPROTONOSUPPORT);
        put_le32(g + OFF_FORMAT_VERSION, 0);
        reseal(g, len);
        assert_int_equal(parse_copy(g, len), -EPROTONOSUPPORT);

        /* Bad checksum. */
        memcpy(g, f, len);
        g[len - 1] ^= 0x55;
        assert_int_equal(parse_copy(g, len), -EBADMSG);

        /* Trailing garbage after the checksum ... */
        memcpy(g, f, len);
        memset(g + len, 0, 5);
        assert_int_equal(parse_copy(g, len + 5), -EUCLEAN);
        /* ... and between the last section and the checksum, with a valid checksum. */
        memcpy(g, f, len - 4);
        memset(g + len - 4, 0xaa, 5);
        reseal(g, len + 5);
        assert_int_equal(parse_copy(g, len + 5), -EUCLEAN);
        /* A file size field smaller than any state file. */
        memcpy(g, f, HEADER_SIZE + 4);
        reseal(g, HEADER_SIZE + 4);
        put_le32(g + OFF_FILE_SIZE, 20);
        assert_int_equal(parse_copy(g, 20), -ENODATA);

        /* A section whose length runs past the end. */
        memcpy(g, f, len);
        put_le32(g + HEADER_SIZE + 4, 0xfffffff0u);
        reseal(g, len);
        assert_int_equal(parse_copy(g, len), -EOVERFLOW);
        memcpy(g, f, len);
        put_le32(g + HEADER_SIZE + 4, (uint32_t)(len - HEADER_SIZE - 8 - 4 + 1));
        reseal(g, len);
        assert_int_equal(parse_copy(g, len), -EOVERFLOW);
        /* One section more than present: its header does not fit. */
        memcpy(g, f, len);
        g[OFF_N_SECTIONS] = 4;
        reseal(g, len);
        assert_int_equal(parse_copy(g, len), -EOVERFLOW);

        /* Fewer sections than present: the rest is garbage. */
        memcpy(g, f, len);
        g[OFF_N_SECTIONS] = 2;
        reseal(g, len);
        assert_int_equal(parse_copy(g, len), -EUCLEAN);

        /* Duplicate method ids. */
        memcpy(g, f, len);
        {
                /* Second section header: after the first section's header and payload. */
                uint32_t len0 = read_le32(f + HEADER_SIZE + 4);
                size_t off1 = HEADER_SIZE + 8 + len0;

                g[off1] = f[HEADER_SIZE];
                g[off1 + 1] = f[HEADER_SIZE + 1];
        }
        reseal(g, len);
        assert_int_equal(parse_copy(g, len), -ENOTUNIQ);

        /* Text fields: not NUL-terminated, not printable, junk after the NUL. */
        memcpy(g, f, len);
        memset(g + OFF_SLOT, 'A', 16);
        reseal(g, len);
        assert_int_equal(parse_copy(g, len), -EILSEQ);
        memcpy(g, f, len);
        memset(g + OFF_KERNEL_RELEASE, 'k', 65);
        reseal(g, len);
        assert_int_equal(parse_copy(g, len), -EILSEQ);
        memcpy(g, f, len);
        memset(g + OFF_BOOT_ID, 'b', 37);
        reseal(g, len);
        assert_int_equal(parse_copy(g, len), -EILSEQ);
        memcpy(g, f, len);
        g[OFF_KERNEL_RELEASE + 2] = 0x1b; /* ESC: would reach a terminal in --dump */
        reseal(g, len);
        assert_int_equal(parse_copy(g, len), -EILSEQ);
        memcpy(g, f, len);
        g[OFF_BOOT_ID + 36] = 'x'; /* after the NUL of a 36-character id: not NUL-padded */
        g[OFF_BOOT_ID + 35] = '\0';
        reseal(g, len);
        assert_int_equal(parse_copy(g, len), -EILSEQ);
        memcpy(g, f, len);
        g[OFF_SLOT + 15] = 0x80;
        reseal(g, len);
        assert_int_equal(parse_copy(g, len), -EILSEQ);
        /* Just fitting is fine: 15 characters + NUL. */
        memcpy(g, f, len);
        memset(g + OFF_SLOT, 'A', 15);
        g[OFF_SLOT + 15] = '\0';
        reseal(g, len);
        assert_int_equal(state_parse(g, len, &s), 0);
        assert_string_equal(s->identity.slot, "AAAAAAAAAAAAAAA");
        s = state_file_free(s);

        /* Too large, before anything else is looked at. */
        {
                uint8_t *big = calloc(1, STATE_FILE_MAX + 1);
                assert_non_null(big);
                memcpy(big, f, len);
                assert_int_equal(state_parse(big, STATE_FILE_MAX + 1, &s), -EFBIG);
                assert_null(s);
                free(big);
        }

        free(f);

        /* More than STATE_SECTIONS_MAX sections: 16 valid ones plus one more. */
        f = sample_file(STATE_SECTIONS_MAX, &len);
        assert_true(len + 8 <= sizeof(g));
        memcpy(g, f, len - 4);
        memset(g + len - 4, 0, 8); /* method 0, version 0, length 0 */
        g[len - 4] = 0x77;
        g[OFF_N_SECTIONS] = STATE_SECTIONS_MAX + 1;
        reseal(g, len + 8);
        assert_int_equal(parse_copy(g, len + 8), -E2BIG);
        g[OFF_N_SECTIONS] = 255;
        reseal(g, len + 8);
        assert_int_equal(parse_copy(g, len + 8), -E2BIG);
        free(f);

        assert_int_equal(state_parse(NULL, 0, &s), -ENODATA);
        assert_int_equal(state_parse(NULL, 10, &s), -EINVAL);
        assert_null(s);
}

static void test_error_strings(void **state)
{
        static const int errors[] = {
                ENOENT, ENODATA, EMEDIUMTYPE, EPROTONOSUPPORT, EBADMSG, EFBIG, EUCLEAN, EOVERFLOW,
                E2BIG,  EILSEQ,  ENOTUNIQ,    ELOOP,           EBADFD,  EPERM, EXDEV,
        };
        (void)state;

        assert_string_equal(state_error_to_string(-EBADMSG), "checksum mismatch (file corrupted or tampered)");
        assert_string_equal(state_error_to_string(-ENODATA), "file truncated");
        assert_string_equal(state_error_to_string(-EXDEV), "the state file belongs to another device");
        for (size_t i = 0; i < ELEMENTSOF(errors); i++) {
                const char *a = state_error_to_string(-errors[i]);

                assert_non_null(a);
                assert_true(strlen(a) > 5);
                assert_null(strchr(a, '\n'));
                assert_string_equal(a, state_error_to_string(errors[i]));
                /* Our own wording, not strerror()'s. */
                assert_string_not_equal(a, strerror(errors[i]));
                for (size_t j = 0; j < i; j++)
                        assert_string_not_equal(a, state_error_to_string(-errors[j]));
        }
        assert_string_equal(state_error_to_string(-ENOMEM), strerror(ENOMEM));
}

static void test_identity(void **state)
{
        DisplayDevice d = {
                .slot = "0000:00:02.0",
                .vendor_id = 0x8086,
                .device_id = 0x27ae,
                .subvendor_id = 0x1462,
                .subdevice_id = 0x0110,
                .revision = 0x03,
        };
        static Payloads p;
        StateFile s;
        DisplayDevice o;
        (void)state;

        make_state(&s, &p, 1, 1, 0);
        memset(&s.identity, 0x5a, sizeof(s.identity));
        state_identity_from_device(&s.identity, &d);
        assert_string_equal(s.identity.slot, "0000:00:02.0");
        for (size_t i = strlen(s.identity.slot); i < sizeof(s.identity.slot); i++)
                assert_int_equal(s.identity.slot[i], 0);
        assert_int_equal(state_check_identity(&s, &d), 0);

        o = d;
        snprintf(o.slot, sizeof(o.slot), "0000:01:00.0");
        assert_int_equal(state_check_identity(&s, &o), -EXDEV);
        o = d;
        o.vendor_id = 0x10de;
        assert_int_equal(state_check_identity(&s, &o), -EXDEV);
        o = d;
        o.device_id = 0x27a2;
        assert_int_equal(state_check_identity(&s, &o), -EXDEV);
        o = d;
        o.subvendor_id = 0x1463;
        assert_int_equal(state_check_identity(&s, &o), -EXDEV);
        o = d;
        o.subdevice_id = 0x0111;
        assert_int_equal(state_check_identity(&s, &o), -EXDEV);
        o = d;
        o.revision = 0x04;
        assert_int_equal(state_check_identity(&s, &o), -EXDEV);
        o = d;
        o.verdict = VERDICT_UMS; /* not part of the identity */
        snprintf(o.driver, sizeof(o.driver), "i915");
        assert_int_equal(state_check_identity(&s, &o), 0);
}

static void test_state_file_name(void **state)
{
        char name[STATE_NAME_MAX];
        (void)state;

        assert_int_equal(state_file_name("0000:00:02.0", STATE_SUFFIX, name), 0);
        assert_string_equal(name, "0000:00:02.0.state");
        assert_int_equal(state_file_name("0000:00:02.0", STATE_UNDO_SUFFIX, name), 0);
        assert_string_equal(name, "0000:00:02.0.undo");
        assert_int_equal(state_file_name("../etc", STATE_SUFFIX, name), -EINVAL);
        assert_int_equal(state_file_name("..", STATE_SUFFIX, name), -EINVAL);
        assert_int_equal(state_file_name("", STATE_SUFFIX, name), -EINVAL);
}

static void test_dump_header(void **state)
{
        static Payloads p;
        Buffer b = { 0 };
        StateFile s;
        (void)state;

        make_state(&s, &p, 0, 0, 2);
        s.time_usec = UINT64_C(1700000000123456);
        s.sections[0].len = 4;
        s.sections[1].len = 0;
        s.sections[1].method_id = 7;
        assert_int_equal(state_dump_header(&s, false, &b), 0);
        assert_string_equal(buffer_str(&b),
                            "Magic:          UMSRSTAT, format version 1\n"
                            "Device:         0000:00:02.0 [8086:27ae] subsystem [1462:0110] rev 03\n"
                            "Kernel release: 6.1.0-18-amd64\n"
                            "Boot ID:        0f5d1c7e-2b4a-4e37-9b8f-6a1d2c3e4f50\n"
                            "Saved:          2023-11-14T22:13:20.123456Z\n"
                            "Sections:       2\n"
                            "  method 1 version 1, 4 bytes\n"
                            "  method 7 version 2, 0 bytes\n");
        buffer_done(&b);

        snprintf(s.kernel_release, sizeof(s.kernel_release), "6.1\"\\x");
        assert_int_equal(state_dump_header(&s, true, &b), 0);
        assert_string_equal(buffer_str(&b),
                            "{\"magic\":\"UMSRSTAT\",\"format_version\":1,\"slot\":\"0000:00:02.0\","
                            "\"vendor_id\":32902,\"device_id\":10158,\"subvendor_id\":5218,\"subdevice_id\":272,"
                            "\"revision\":3,\"kernel_release\":\"6.1\\\"\\\\x\","
                            "\"boot_id\":\"0f5d1c7e-2b4a-4e37-9b8f-6a1d2c3e4f50\","
                            "\"time_usec\":1700000000123456,\"saved\":\"2023-11-14T22:13:20.123456Z\","
                            "\"n_sections\":2,\"sections\":[{\"method_id\":1,\"method_version\":1,\"length\":4},"
                            "{\"method_id\":7,\"method_version\":2,\"length\":0}]}");
        buffer_done(&b);

        /* No sections, epoch. */
        make_state(&s, &p, 0, 0, 0);
        assert_int_equal(state_dump_header(&s, true, &b), 0);
        assert_non_null(strstr(buffer_str(&b), "\"saved\":\"1970-01-01T00:00:00.000000Z\",\"n_sections\":0,\"sections\":[]}"));
        buffer_done(&b);
}

/* ---- files ------------------------------------------------------------------------- */

static void test_write_and_load(void **state)
{
        static Payloads p1, p2, p3, p4;
        StateFile v1, v2, v3, v4, *s = NULL;
        char *top = make_temp_dir();
        char *dir = join(top, "run"); /* does not exist yet: state_write creates it */
        char *path = NULL, *prev, *names, name[STATE_NAME_MAX];
        struct stat st;
        mode_t old_umask;
        uint8_t junk;
        int fd;
        (void)state;

        make_state(&v1, &p1, 1, 1, 1);
        make_state(&v2, &p2, 1, 2, 2);
        make_state(&v3, &p3, 1, 3, 0);
        make_state(&v4, &p4, 1, 4, 5);
        assert_int_equal(state_file_name("0000:00:02.0", STATE_SUFFIX, name), 0);
        path = join(dir, name);
        assert_true(asprintf(&prev, "%s.prev", path) > 0);

        assert_int_equal(state_load_file(path, geteuid(), &s), -ENOENT);

        /* A restrictive umask must not change the modes: they are set explicitly. */
        old_umask = umask(0277);
        assert_int_equal(write_in(dir, &v1, NULL), 0);
        umask(old_umask);
        assert_int_equal(stat(dir, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0700);
        assert_int_equal(stat(path, &st), 0);
        assert_int_equal(st.st_mode & 07777, 0600);
        assert_true(S_ISREG(st.st_mode));

        assert_loads_equal(path, &v1);
        assert_int_equal(state_load_file(prev, geteuid(), &s), -ENOENT);

        assert_int_equal(write_in(dir, &v2, NULL), 0);
        assert_loads_equal(path, &v2);
        assert_loads_equal(prev, &v1);

        assert_int_equal(write_in(dir, &v3, NULL), 0);
        assert_loads_equal(path, &v3);
        assert_loads_equal(prev, &v2);

        names = list_dir(dir);
        assert_string_equal(names, "0000:00:02.0.state 0000:00:02.0.state.prev");
        free(names);

        /* A corrupt current file is replaced but not kept: .prev stays the last good one. */
        fd = open(path, O_RDWR | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(pread(fd, &junk, 1, 100), 1);
        junk ^= 0xff;
        assert_int_equal(pwrite(fd, &junk, 1, 100), 1);
        close(fd);
        assert_int_equal(state_load_file(path, geteuid(), &s), -EBADMSG);
        assert_int_equal(write_in(dir, &v4, NULL), 0);
        assert_loads_equal(path, &v4);
        assert_loads_equal(prev, &v2);

        /* A slot that is not a file name is refused before anything is written. */
        v4.identity.slot[0] = '\0';
        assert_int_equal(write_in(dir, &v4, NULL), -EINVAL);
        snprintf(v4.identity.slot, sizeof(v4.identity.slot), "../x");
        assert_int_equal(write_in(dir, &v4, NULL), -EINVAL);
        names = list_dir(dir);
        assert_string_equal(names, "0000:00:02.0.state 0000:00:02.0.state.prev");
        free(names);

        free(prev);
        free(path);
        free(dir);
        remove_temp_dir(top);
}

static void test_load_refusals(void **state)
{
        char *dir = make_temp_dir();
        char *good = join(dir, "good.state"), *p;
        StateFile *s = NULL;
        uint8_t *f;
        size_t len;
        int fd;
        (void)state;

        f = sample_file(2, &len);
        write_bytes(good, f, len, 0600);
        assert_int_equal(state_load_file(good, geteuid(), &s), 0);
        s = state_file_free(s);

        /* Not owned by the expected uid. */
        assert_int_equal(state_load_file(good, geteuid() + 1, &s), -EPERM);

        /* Group/other writable. */
        assert_int_equal(chmod(good, 0666), 0);
        assert_int_equal(state_load_file(good, geteuid(), &s), -EPERM);
        assert_int_equal(chmod(good, 0620), 0);
        assert_int_equal(state_load_file(good, geteuid(), &s), -EPERM);
        assert_int_equal(chmod(good, 0602), 0);
        assert_int_equal(state_load_file(good, geteuid(), &s), -EPERM);
        /* Readable by group or others is a refusal too: it holds the console's text. */
        assert_int_equal(chmod(good, 0604), 0);
        assert_int_equal(state_load_file(good, geteuid(), &s), -EPERM);
        assert_int_equal(chmod(good, 0640), 0);
        assert_int_equal(state_load_file(good, geteuid(), &s), -EPERM);
        assert_int_equal(chmod(good, 0400), 0);
        assert_int_equal(state_load_file(good, geteuid(), &s), 0);
        s = state_file_free(s);
        /* --dump of a copy: no owner or mode check, the same file checks otherwise. */
        assert_int_equal(chmod(good, 0666), 0);
        assert_int_equal(state_load_file(good, STATE_OWNER_ANY, &s), 0);
        s = state_file_free(s);
        assert_int_equal(chmod(good, 0600), 0);

        /* A symlink to a good file. */
        p = join(dir, "link.state");
        assert_int_equal(symlink(good, p), 0);
        assert_int_equal(state_load_file(p, geteuid(), &s), -ELOOP);
        free(p);

        /* Not regular files: a directory and a FIFO (which must not block). */
        p = join(dir, "dir.state");
        assert_int_equal(mkdir(p, 0700), 0);
        assert_int_equal(state_load_file(p, geteuid(), &s), -EBADFD);
        free(p);
        p = join(dir, "fifo.state");
        assert_int_equal(mkfifo(p, 0600), 0);
        assert_int_equal(state_load_file(p, geteuid(), &s), -EBADFD);
        free(p);

        /* Too large: refused from its size, without reading it. */
        p = join(dir, "big.state");
        write_bytes(p, f, len, 0600);
        fd = open(p, O_WRONLY | O_CLOEXEC);
        assert_true(fd >= 0);
        assert_int_equal(ftruncate(fd, (off_t)STATE_FILE_MAX + 1), 0);
        close(fd);
        assert_int_equal(state_load_file(p, geteuid(), &s), -EFBIG);
        free(p);

        /* Truncated and corrupted on disk. */
        p = join(dir, "short.state");
        write_bytes(p, f, len - 1, 0600);
        assert_int_equal(state_load_file(p, geteuid(), &s), -ENODATA);
        f[len / 2] ^= 1;
        write_bytes(p, f, len, 0600);
        assert_int_equal(state_load_file(p, geteuid(), &s), -EBADMSG);
        free(p);

        p = join(dir, "missing.state");
        assert_int_equal(state_load_file(p, geteuid(), &s), -ENOENT);
        free(p);
        assert_null(s);

        free(f);
        free(good);
        remove_temp_dir(dir);
}

/* ---- power loss and concurrency ---------------------------------------------------- */

static const char *crash_point;

static void crash_hook(const char *point, void *userdata)
{
        (void)userdata;
        if (streq(point, crash_point))
                _exit(42); /* no cleanup, no atexit: as if the power went */
}

static void test_power_loss_mid_write(void **state)
{
        static const struct {
                const char *point;
                bool new_in_place; /* "<slot>.state" is v3 afterwards */
                bool prev_rotated; /* "<slot>.state.prev" is v2 afterwards (else v1) */
        } cases[] = {
                { "temp-synced", false, false },
                { "prev-kept", false, true },
                { "renamed", true, true },
        };
        (void)state;

        for (size_t c = 0; c < ELEMENTSOF(cases); c++) {
                static Payloads p1, p2, p3, p4;
                StateFile v1, v2, v3, v4;
                char *dir = make_temp_dir();
                char *path = join(dir, "0000:00:02.0.state");
                char *prev = join(dir, "0000:00:02.0.state.prev");
                int status;
                pid_t pid;

                make_state(&v1, &p1, 3, 1, 2);
                make_state(&v2, &p2, 3, 2, 3);
                make_state(&v3, &p3, 3, 3, 4);
                make_state(&v4, &p4, 3, 4, 1);
                assert_int_equal(write_in(dir, &v1, NULL), 0);
                assert_int_equal(write_in(dir, &v2, NULL), 0);

                pid = fork();
                assert_true(pid >= 0);
                if (pid == 0) {
                        crash_point = cases[c].point;
                        (void)write_in(dir, &v3, &(StateWriteHook){ .func = crash_hook });
                        _exit(1); /* the hook did not fire */
                }
                assert_int_equal(waitpid(pid, &status, 0), pid);
                assert_true(WIFEXITED(status));
                assert_int_equal(WEXITSTATUS(status), 42);

                /* The file in place is whole and loadable: the old one or the new one. */
                assert_loads_equal(path, cases[c].new_in_place ? &v3 : &v2);
                assert_loads_equal(prev, cases[c].prev_rotated ? &v2 : &v1);

                /* And the next write works and cleans nothing it should not. */
                assert_int_equal(write_in(dir, &v4, NULL), 0);
                assert_loads_equal(path, &v4);
                assert_loads_equal(prev, cases[c].new_in_place ? &v3 : &v2);

                free(path);
                free(prev);
                remove_temp_dir(dir);
        }
}

#define WRITES_PER_WRITER 200

static int writer_child(const char *dir, unsigned w)
{
        static Payloads p;
        StateFile s;

        for (unsigned gen = 1; gen <= WRITES_PER_WRITER; gen++) {
                make_state(&s, &p, w, gen, 1 + gen % 4);
                if (write_in(dir, &s, NULL) < 0)
                        return 1;
        }
        return 0;
}

/* A loaded file must be exactly one that some writer wrote. */
static void assert_written_by_a_writer(const StateFile *s)
{
        static Payloads p;
        unsigned w = (unsigned)(s->time_usec >> 32), gen = (unsigned)(s->time_usec & 0xffffffffu);
        StateFile expected;

        assert_true(w == 1 || w == 2);
        assert_true(gen >= 1 && gen <= WRITES_PER_WRITER);
        make_state(&expected, &p, w, gen, 1 + gen % 4);
        assert_true(state_file_equal(s, &expected));
}

static void test_concurrent_writers(void **state)
{
        char *dir = make_temp_dir();
        char *path = join(dir, "0000:00:02.0.state");
        char *prev = join(dir, "0000:00:02.0.state.prev");
        bool seen_state = false, seen_prev = false;
        unsigned loads_ok = 0, running = 2;
        pid_t pids[2];
        char *names;
        (void)state;

        for (unsigned w = 0; w < 2; w++) {
                pids[w] = fork();
                assert_true(pids[w] >= 0);
                if (pids[w] == 0)
                        _exit(writer_child(dir, w + 1));
        }

        while (running > 0) {
                StateFile *s = NULL;
                int r, status;

                /* Every load in between succeeds, or finds no file before the first write. */
                r = state_load_file(path, geteuid(), &s);
                if (r == -ENOENT)
                        assert_false(seen_state);
                else {
                        assert_int_equal(r, 0);
                        assert_written_by_a_writer(s);
                        seen_state = true;
                        loads_ok++;
                        s = state_file_free(s);
                }
                r = state_load_file(prev, geteuid(), &s);
                if (r == -ENOENT)
                        assert_false(seen_prev);
                else {
                        assert_int_equal(r, 0);
                        assert_written_by_a_writer(s);
                        seen_prev = true;
                        s = state_file_free(s);
                }

                for (unsigned w = 0; w < 2; w++) {
                        if (pids[w] <= 0)
                                continue;
                        r = waitpid(pids[w], &status, WNOHANG);
                        assert_true(r >= 0);
                        if (r == pids[w]) {
                                assert_true(WIFEXITED(status));
                                assert_int_equal(WEXITSTATUS(status), 0);
                                pids[w] = 0;
                                running--;
                        }
                }
        }

        /* The end state is valid, and the last write of one of them. */
        {
                StateFile *s = NULL;
                assert_int_equal(state_load_file(path, geteuid(), &s), 0);
                assert_written_by_a_writer(s);
                assert_int_equal(s->time_usec & 0xffffffffu, WRITES_PER_WRITER);
                state_file_free(s);
                assert_int_equal(state_load_file(prev, geteuid(), &s), 0);
                assert_written_by_a_writer(s);
                state_file_free(s);
        }
        /* No temp files left behind. */
        names = list_dir(dir);
        assert_string_equal(names, "0000:00:02.0.state 0000:00:02.0.state.prev");
        free(names);
        print_message("concurrent writers: %u successful loads while writing\n", loads_ok);

        free(path);
        free(prev);
        remove_temp_dir(dir);
}

int main(void)
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_crc32c),
                cmocka_unit_test(test_roundtrip),
                cmocka_unit_test(test_serialize_refuses),
                cmocka_unit_test(test_truncated_at_every_length),
                cmocka_unit_test(test_every_byte_flip_fails),
                cmocka_unit_test(test_refusals),
                cmocka_unit_test(test_error_strings),
                cmocka_unit_test(test_identity),
                cmocka_unit_test(test_state_file_name),
                cmocka_unit_test(test_dump_header),
                cmocka_unit_test(test_write_and_load),
                cmocka_unit_test(test_load_refusals),
                cmocka_unit_test(test_power_loss_mid_write),
                cmocka_unit_test(test_concurrent_writers),
        };
        return cmocka_run_group_tests(tests, NULL, NULL);
}
