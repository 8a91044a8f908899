/* SPDX-License-Identifier: MIT */
/* The state file format: serializing, parsing and validating it, its CRC-32C, loading it
 * safely from disk and writing it atomically (temp file, fsync, keep .prev, rename). */

/*
 * State file format, version 1
 * ============================
 *
 * One file per managed device, "<dir>/<slot>.state" (normally /run/umsrestore/, the
 * directory 0700 root, the file 0600 root). All integers are little-endian, all offsets
 * and sizes in bytes; there is no padding and no alignment between fields.
 *
 * Header (152 bytes):
 *
 *   offset  size  field
 *        0     8  magic "UMSRSTAT" (no NUL)
 *        8     4  format version, u32, 1
 *       12     4  file size, u32: the whole file including the checksum
 *       16     8  time saved, u64, microseconds since the epoch (CLOCK_REALTIME)
 *       24    16  PCI slot "dddd:bb:dd.f", text field (see below)
 *       40     2  PCI vendor id
 *       42     2  PCI device id
 *       44     2  PCI subsystem vendor id
 *       46     2  PCI subsystem device id
 *       48     1  PCI revision
 *       49     1  number of sections, u8, 0..16
 *       50    65  kernel release (uname -r) when saved, text field
 *      115    37  boot id (/proc/sys/kernel/random/boot_id) when saved, text field
 *
 * Then the sections, one per method, in save order, each:
 *
 *        0     2  method id, u16 (unique within the file)
 *        2     2  method payload version, u16
 *        4     4  payload length, u32
 *        8     n  payload (method-defined; the method validates it before any restore)
 *
 * Then the checksum, the last 4 bytes of the file:
 *
 *        0     4  CRC-32C (Castagnoli) of every byte before it, u32
 *
 * A text field holds printable ASCII (0x20-0x7e), ends with a NUL inside the field, and
 * every byte after that NUL is also NUL. The file is canonical: one state has exactly one
 * byte image.
 *
 * A reader checks, in this order, and refuses with:
 *   magic (or the part of it present) differs     -EMEDIUMTYPE
 *   shorter than magic + version                   -ENODATA
 *   format version is not 1                        -EPROTONOSUPPORT
 *   shorter than the file size field, or than a
 *   header + checksum                              -ENODATA
 *   longer than the file size field                -EUCLEAN
 *   checksum                                       -EBADMSG
 *   text fields                                    -EILSEQ
 *   more than 16 sections                          -E2BIG
 *   a section header or payload past the checksum  -EOVERFLOW
 *   a method id seen twice                         -ENOTUNIQ
 *   bytes between the last section and checksum    -EUCLEAN
 * and, anything larger than 4 MiB, -EFBIG before reading it.
 */

#include <fcntl.h>
#include <inttypes.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>

#include "fileio.h"
#include "log.h"
#include "rundir.h"
#include "state.h"

#define STATE_HEADER_SIZE 152u
#define STATE_SECTION_HEADER_SIZE 8u
#define STATE_CHECKSUM_SIZE 4u
#define STATE_MAGIC_SIZE 8u

enum {
        OFF_MAGIC = 0,
        OFF_FORMAT_VERSION = 8,
        OFF_FILE_SIZE = 12,
        OFF_TIME = 16,
        OFF_SLOT = 24,
        OFF_VENDOR = 40,
        OFF_DEVICE = 42,
        OFF_SUBVENDOR = 44,
        OFF_SUBDEVICE = 46,
        OFF_REVISION = 48,
        OFF_N_SECTIONS = 49,
        OFF_KERNEL_RELEASE = 50,
        OFF_BOOT_ID = 115,
};

#define SLOT_FIELD_SIZE 16u
#define KERNEL_RELEASE_FIELD_SIZE 65u
#define BOOT_ID_FIELD_SIZE 37u

/* The in-memory fields are exactly as large as the on-disk ones. */
_Static_assert(sizeof(((StateIdentity *)NULL)->slot) == SLOT_FIELD_SIZE, "slot field size");
_Static_assert(sizeof(((StateFile *)NULL)->kernel_release) == KERNEL_RELEASE_FIELD_SIZE, "kernel field size");
_Static_assert(sizeof(((StateFile *)NULL)->boot_id) == BOOT_ID_FIELD_SIZE, "boot id field size");
_Static_assert(OFF_BOOT_ID + BOOT_ID_FIELD_SIZE == STATE_HEADER_SIZE, "header layout");
_Static_assert(OFF_KERNEL_RELEASE + KERNEL_RELEASE_FIELD_SIZE == OFF_BOOT_ID, "header layout");
_Static_assert(OFF_SLOT + SLOT_FIELD_SIZE == OFF_VENDOR, "header layout");
_Static_assert(STATE_SECTIONS_MAX <= UINT8_MAX, "section count is a u8");
_Static_assert(sizeof(STATE_MAGIC) - 1 == STATE_MAGIC_SIZE, "magic size");

/* ---- CRC-32C ----------------------------------------------------------------------- */

/* Byte-wise table for the reflected polynomial 0x82F63B78: entry i is the CRC register
 * after shifting the byte value i through eight rounds. */
static const uint32_t crc32c_table[256] = {
        0x00000000u, 0xf26b8303u, 0xe13b70f7u, 0x1350f3f4u, 0xc79a971fu, 0x35f1141cu,
        0x26a1e7e8u, 0xd4ca64ebu, 0x8ad958cfu, 0x78b2dbccu, 0x6be22838u, 0x9989ab3bu,
        0x4d43cfd0u, 0xbf284cd3u, 0xac78bf27u, 0x5e133c24u, 0x105ec76fu, 0xe235446cu,
        0xf165b798u, 0x030e349bu, 0xd7c45070u, 0x25afd373u, 0x36ff2087u, 0xc494a384u,
        0x9a879fa0u, 0x68ec1ca3u, 0x7bbcef57u, 0x89d76c54u, 0x5d1d08bfu, 0xaf768bbcu,
        0xbc267848u, 0x4e4dfb4bu, 0x20bd8edeu, 0xd2d60dddu, 0xc186fe29u, 0x33ed7d2au,
        0xe72719c1u, 0x154c9ac2u, 0x061c6936u, 0xf477ea35u, 0xaa64d611u, 0x580f5512u,
        0x4b5fa6e6u, 0xb93425e5u, 0x6dfe410eu, 0x9f95c20du, 0x8cc531f9u, 0x7eaeb2fau,
        0x30e349b1u, 0xc288cab2u, 0xd1d83946u, 0x23b3ba45u, 0xf779deaeu, 0x05125dadu,
        0x1642ae59u, 0xe4292d5au, 0xba3a117eu, 0x4851927du, 0x5b016189u, 0xa96ae28au,
        0x7da08661u, 0x8fcb0562u, 0x9c9bf696u, 0x6ef07595u, 0x417b1dbcu, 0xb3109ebfu,
        0xa0406d4bu, 0x522bee48u, 0x86e18aa3u, 0x748a09a0u, 0x67dafa54u, 0x95b17957u,
        0xcba24573u, 0x39c9c670u, 0x2a993584u, 0xd8f2b687u, 0x0c38d26cu, 0xfe53516fu,
        0xed03a29bu, 0x1f682198u, 0x5125dad3u, 0xa34e59d0u, 0xb01eaa24u, 0x42752927u,
        0x96bf4dccu, 0x64d4cecfu, 0x77843d3bu, 0x85efbe38u, 0xdbfc821cu, 0x2997011fu,
        0x3ac7f2ebu, 0xc8ac71e8u, 0x1c661503u, 0xee0d9600u, 0xfd5d65f4u, 0x0f36e6f7u,
        0x61c69362u, 0x93ad1061u, 0x80fde395u, 0x72966096u, 0xa65c047du, 0x5437877eu,
        0x4767748au, 0xb50cf789u, 0xeb1fcbadu, 0x197448aeu, 0x0a24bb5au, 0xf84f3859u,
        0x2c855cb2u, 0xdeeedfb1u, 0xcdbe2c45u, 0x3fd5af46u, 0x7198540du, 0x83f3d70eu,
        0x90a324fau, 0x62c8a7f9u, 0xb602c312u, 0x44694011u, 0x5739b3e5u, 0xa55230e6u,
        0xfb410cc2u, 0x092a8fc1u, 0x1a7a7c35u, 0xe811ff36u, 0x3cdb9bddu, 0xceb018deu,
        0xdde0eb2au, 0x2f8b6829u, 0x82f63b78u, 0x709db87bu, 0x63cd4b8fu, 0x91a6c88cu,
        0x456cac67u, 0xb7072f64u, 0xa457dc90u, 0x563c5f93u, 0x082f63b7u, 0xfa44e0b4u,
        0xe9141340u, 0x1b7f9043u, 0xcfb5f4a8u, 0x3dde77abu, 0x2e8e845fu, 0xdce5075cu,
        0x92a8fc17u, 0x60c37f14u, 0x73938ce0u, 0x81f80fe3u, 0x55326b08u, 0xa759e80bu,
        0xb4091bffu, 0x466298fcu, 0x1871a4d8u, 0xea1a27dbu, 0xf94ad42fu, 0x0b21572cu,
        0xdfeb33c7u, 0x2d80b0c4u, 0x3ed04330u, 0xccbbc033u, 0xa24bb5a6u, 0x502036a5u,
        0x4370c551u, 0xb11b4652u, 0x65d122b9u, 0x97baa1bau, 0x84ea524eu, 0x7681d14du,
        0x2892ed69u, 0xdaf96e6au, 0xc9a99d9eu, 0x3bc21e9du, 0xef087a76u, 0x1d63f975u,
        0x0e330a81u, 0xfc588982u, 0xb21572c9u, 0x407ef1cau, 0x532e023eu, 0xa145813du,
        0x758fe5d6u, 0x87e466d5u, 0x94b49521u, 0x66df1622u, 0x38cc2a06u, 0xcaa7a905u,
        0xd9f75af1u, 0x2b9cd9f2u, 0xff56bd19u, 0x0d3d3e1au, 0x1e6dcdeeu, 0xec064eedu,
        0xc38d26c4u, 0x31e6a5c7u, 0x22b65633u, 0xd0ddd530u, 0x0417b1dbu, 0xf67c32d8u,
        0xe52cc12cu, 0x1747422fu, 0x49547e0bu, 0xbb3ffd08u, 0xa86f0efcu, 0x5a048dffu,
        0x8ecee914u, 0x7ca56a17u, 0x6ff599e3u, 0x9d9e1ae0u, 0xd3d3e1abu, 0x21b862a8u,
        0x32e8915cu, 0xc083125fu, 0x144976b4u, 0xe622f5b7u, 0xf5720643u, 0x07198540u,
        0x590ab964u, 0xab613a67u, 0xb831c993u, 0x4a5a4a90u, 0x9e902e7bu, 0x6cfbad78u,
        0x7fab5e8cu, 0x8dc0dd8fu, 0xe330a81au, 0x115b2b19u, 0x020bd8edu, 0xf0605beeu,
        0x24aa3f05u, 0xd6c1bc06u, 0xc5914ff2u, 0x37faccf1u, 0x69e9f0d5u, 0x9b8273d6u,
        0x88d28022u, 0x7ab90321u, 0xae7367cau, 0x5c18e4c9u, 0x4f48173du, 0xbd23943eu,
        0xf36e6f75u, 0x0105ec76u, 0x12551f82u, 0xe03e9c81u, 0x34f4f86au, 0xc69f7b69u,
        0xd5cf889du, 0x27a40b9eu, 0x79b737bau, 0x8bdcb4b9u, 0x988c474du, 0x6ae7c44eu,
        0xbe2da0a5u, 0x4c4623a6u, 0x5f16d052u, 0xad7d5351u,
};

uint32_t state_crc32c(const void *data, size_t len)
{
        const uint8_t *p = data;
        uint32_t crc = 0xffffffffu;

        for (size_t i = 0; i < len; i++)
                crc = crc32c_table[(crc ^ p[i]) & 0xffu] ^ (crc >> 8);
        return crc ^ 0xffffffffu;
}

/* ---- helpers ----------------------------------------------------------------------- */

static void call_write_hook(const StateWriteHook *hook, const char *point)
{
        if (hook && hook->func)
                hook->func(point, hook->userdata);
}

/* A text field: printable ASCII, a NUL inside the field, only NULs after it. */
static bool text_field_valid(const char *p, size_t size, bool check_padding)
{
        size_t n = strnlen(p, size);

        if (n == size)
                return false;
        for (size_t i = 0; i < n; i++)
                if ((unsigned char)p[i] < 0x20 || (unsigned char)p[i] > 0x7e)
                        return false;
        if (check_padding)
                for (size_t i = n; i < size; i++)
                        if (p[i] != '\0')
                                return false;
        return true;
}

static int append_text_field(Buffer *b, const char *s, size_t size)
{
        static const uint8_t zeros[KERNEL_RELEASE_FIELD_SIZE];
        size_t n = strnlen(s, size);
        int r;

        _Static_assert(KERNEL_RELEASE_FIELD_SIZE >= SLOT_FIELD_SIZE && KERNEL_RELEASE_FIELD_SIZE >= BOOT_ID_FIELD_SIZE,
                       "zeros is large enough for every text field");
        r = buffer_append(b, s, n);
        if (r < 0)
                return r;
        return buffer_append(b, zeros, size - n);
}

/* A slot usable as a file name component: non-empty, no '/', not "." or "..". */
static bool slot_is_file_name(const char *slot)
{
        return slot[0] != '\0' && !strchr(slot, '/') && !streq(slot, ".") && !streq(slot, "..") &&
               strnlen(slot, SLOT_MAX) < SLOT_MAX;
}

/* ---- object ------------------------------------------------------------------------ */

StateFile *state_file_free(StateFile *s)
{
        if (!s)
                return NULL;
        free(s->blob);
        free(s);
        return NULL;
}

void state_identity_from_device(StateIdentity *id, const DisplayDevice *d)
{
        *id = (StateIdentity){
                .vendor_id = d->vendor_id,
                .device_id = d->device_id,
                .subvendor_id = d->subvendor_id,
                .subdevice_id = d->subdevice_id,
                .revision = d->revision,
        };
        memcpy(id->slot, d->slot, strnlen(d->slot, sizeof(id->slot) - 1));
}

bool state_file_equal(const StateFile *a, const StateFile *b)
{
        if (a == b)
                return true;
        if (!a || !b)
                return false;
        if (strncmp(a->identity.slot, b->identity.slot, sizeof(a->identity.slot)) != 0 ||
            a->identity.vendor_id != b->identity.vendor_id || a->identity.device_id != b->identity.device_id ||
            a->identity.subvendor_id != b->identity.subvendor_id ||
            a->identity.subdevice_id != b->identity.subdevice_id || a->identity.revision != b->identity.revision)
                return false;
        if (strncmp(a->kernel_release, b->kernel_release, sizeof(a->kernel_release)) != 0 ||
            strncmp(a->boot_id, b->boot_id, sizeof(a->boot_id)) != 0 || a->time_usec != b->time_usec ||
            a->n_sections != b->n_sections)
                return false;
        if (a->n_sections > STATE_SECTIONS_MAX)
                return false;
        for (size_t i = 0; i < a->n_sections; i++) {
                const StateSection *x = &a->sections[i], *y = &b->sections[i];

                if (x->method_id != y->method_id || x->method_version != y->method_version || x->len != y->len)
                        return false;
                if (x->len > 0 && memcmp(x->payload, y->payload, x->len) != 0)
                        return false;
        }
        return true;
}

int state_check_identity(const StateFile *s, const DisplayDevice *d)
{
        const StateIdentity *id = &s->identity;

        if (strncmp(id->slot, d->slot, sizeof(id->slot)) != 0 || id->vendor_id != d->vendor_id ||
            id->device_id != d->device_id || id->subvendor_id != d->subvendor_id ||
            id->subdevice_id != d->subdevice_id || id->revision != d->revision)
                return -EXDEV;
        return 0;
}

const char *state_error_to_string(int r)
{
        switch (abs(r)) {
        case ENOENT:
                return "no state file";
        case ENODATA:
                return "file truncated";
        case EMEDIUMTYPE:
                return "not an umsrestore state file (bad magic)";
        case EPROTONOSUPPORT:
                return "unknown state file format version";
        case EBADMSG:
                return "checksum mismatch (file corrupted or tampered)";
        case EFBIG:
                return "file too large to be a state file";
        case EUCLEAN:
                return "trailing garbage after the end of the state data";
        case EOVERFLOW:
                return "a section runs past the end of the file";
        case E2BIG:
                return "too many sections";
        case EILSEQ:
                return "a text field is not NUL-terminated printable ASCII";
        case ENOTUNIQ:
                return "the same method appears twice";
        case ELOOP:
                return "the state file is a symbolic link";
        case EBADFD:
                return "the state file is not a regular file";
        case EPERM:
                return "unsafe ownership or mode (a state file must be owned by root, mode 0600)";
        case EXDEV:
                return "the state file belongs to another device";
        default:
                return STRERROR(r);
        }
}

/* ---- serialize / parse ------------------------------------------------------------- */

static int state_validate(const StateFile *s, size_t *ret_size)
{
        size_t size = STATE_HEADER_SIZE + STATE_CHECKSUM_SIZE;

        if (!text_field_valid(s->identity.slot, sizeof(s->identity.slot), false) ||
            !text_field_valid(s->kernel_release, sizeof(s->kernel_release), false) ||
            !text_field_valid(s->boot_id, sizeof(s->boot_id), false))
                return -EINVAL;
        if (s->n_sections > STATE_SECTIONS_MAX)
                return -E2BIG;
        for (size_t i = 0; i < s->n_sections; i++) {
                const StateSection *sec = &s->sections[i];

                if (sec->len > 0 && !sec->payload)
                        return -EINVAL;
                for (size_t j = 0; j < i; j++)
                        if (s->sections[j].method_id == sec->method_id)
                                return -EINVAL;
                if (sec->len > STATE_FILE_MAX - size ||
                    STATE_SECTION_HEADER_SIZE > STATE_FILE_MAX - size - sec->len)
                        return -EFBIG;
                size += STATE_SECTION_HEADER_SIZE + sec->len;
        }
        *ret_size = size;
        return 0;
}

static int serialize_into(const StateFile *s, size_t size, Buffer *out)
{
        size_t start = out->size;
        int r;

        r = buffer_reserve(out, size);
        if (r < 0)
                return r;

        r = buffer_append(out, STATE_MAGIC, STATE_MAGIC_SIZE);
        if (r >= 0)
                r = buffer_append_le32(out, STATE_FORMAT_VERSION);
        if (r >= 0)
                r = buffer_append_le32(out, (uint32_t)size);
        if (r >= 0)
                r = buffer_append_le64(out, s->time_usec);
        if (r >= 0)
                r = append_text_field(out, s->identity.slot, SLOT_FIELD_SIZE);
        if (r >= 0)
                r = buffer_append_le16(out, s->identity.vendor_id);
        if (r >= 0)
                r = buffer_append_le16(out, s->identity.device_id);
        if (r >= 0)
                r = buffer_append_le16(out, s->identity.subvendor_id);
        if (r >= 0)
                r = buffer_append_le16(out, s->identity.subdevice_id);
        if (r >= 0)
                r = buffer_append_u8(out, s->identity.revision);
        if (r >= 0)
                r = buffer_append_u8(out, (uint8_t)s->n_sections);
        if (r >= 0)
                r = append_text_field(out, s->kernel_release, KERNEL_RELEASE_FIELD_SIZE);
        if (r >= 0)
                r = append_text_field(out, s->boot_id, BOOT_ID_FIELD_SIZE);

        for (size_t i = 0; r >= 0 && i < s->n_sections; i++) {
                const StateSection *sec = &s->sections[i];

                r = buffer_append_le16(out, sec->method_id);
                if (r >= 0)
                        r = buffer_append_le16(out, sec->method_version);
                if (r >= 0)
                        r = buffer_append_le32(out, sec->len);
                if (r >= 0 && sec->len > 0)
                        r = buffer_append(out, sec->payload, sec->len);
        }
        if (r >= 0)
                r = buffer_append_le32(out, state_crc32c(out->data + start, out->size - start));
        if (r < 0)
                return r;

        if (out->size - start != size) /* the layout above and state_validate() disagree */
                return -EIO;
        return 0;
}

int state_serialize(const StateFile *s, Buffer *out)
{
        size_t start = out->size, size;
        int r;

        r = state_validate(s, &size);
        if (r < 0)
                return r;

        r = serialize_into(s, size, out);
        if (r < 0) {
                /* Leave out as it was. */
                out->size = start;
                if (out->data)
                        out->data[start] = 0;
                return r;
        }
        return 0;
}

int state_parse(const uint8_t *data, size_t len, StateFile **ret)
{
        _cleanup_(state_file_freep) StateFile *s = NULL;
        uint32_t file_size;
        size_t pos, end, n;

        if (!ret || (!data && len > 0))
                return -EINVAL;
        if (len > STATE_FILE_MAX)
                return -EFBIG;
        if (len == 0)
                return -ENODATA;
        if (memcmp(data + OFF_MAGIC, STATE_MAGIC, MIN(len, (size_t)STATE_MAGIC_SIZE)) != 0)
                return -EMEDIUMTYPE;
        if (len < OFF_FORMAT_VERSION + 4)
                return -ENODATA;
        if (read_le32(data + OFF_FORMAT_VERSION) != STATE_FORMAT_VERSION)
                return -EPROTONOSUPPORT;
        if (len < OFF_FILE_SIZE + 4)
                return -ENODATA;
        file_size = read_le32(data + OFF_FILE_SIZE);
        if (len < file_size)
                return -ENODATA;
        if (len > file_size)
                return -EUCLEAN;
        if (len < STATE_HEADER_SIZE + STATE_CHECKSUM_SIZE)
                return -ENODATA;

        end = len - STATE_CHECKSUM_SIZE;
        if (state_crc32c(data, end) != read_le32(data + end))
                return -EBADMSG;

        if (!text_field_valid((const char *)data + OFF_SLOT, SLOT_FIELD_SIZE, true) ||
            !text_field_valid((const char *)data + OFF_KERNEL_RELEASE, KERNEL_RELEASE_FIELD_SIZE, true) ||
            !text_field_valid((const char *)data + OFF_BOOT_ID, BOOT_ID_FIELD_SIZE, true))
                return -EILSEQ;

        n = data[OFF_N_SECTIONS];
        if (n > STATE_SECTIONS_MAX)
                return -E2BIG;

        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        s->blob = malloc(len);
        if (!s->blob)
                return -ENOMEM;
        memcpy(s->blob, data, len);

        pos = STATE_HEADER_SIZE;
        for (size_t i = 0; i < n; i++) {
                StateSection *sec = &s->sections[i];

                if (end - pos < STATE_SECTION_HEADER_SIZE)
                        return -EOVERFLOW;
                sec->method_id = read_le16(s->blob + pos);
                sec->method_version = read_le16(s->blob + pos + 2);
                sec->len = read_le32(s->blob + pos + 4);
                pos += STATE_SECTION_HEADER_SIZE;
                if (sec->len > end - pos)
                        return -EOVERFLOW;
                sec->payload = s->blob + pos;
                pos += sec->len;
                for (size_t j = 0; j < i; j++)
                        if (s->sections[j].method_id == sec->method_id)
                                return -ENOTUNIQ;
        }
        if (pos != end)
                return -EUCLEAN;
        s->n_sections = n;

        s->time_usec = read_le64(data + OFF_TIME);
        memcpy(s->identity.slot, data + OFF_SLOT, SLOT_FIELD_SIZE);
        s->identity.vendor_id = read_le16(data + OFF_VENDOR);
        s->identity.device_id = read_le16(data + OFF_DEVICE);
        s->identity.subvendor_id = read_le16(data + OFF_SUBVENDOR);
        s->identity.subdevice_id = read_le16(data + OFF_SUBDEVICE);
        s->identity.revision = data[OFF_REVISION];
        memcpy(s->kernel_release, data + OFF_KERNEL_RELEASE, KERNEL_RELEASE_FIELD_SIZE);
        memcpy(s->boot_id, data + OFF_BOOT_ID, BOOT_ID_FIELD_SIZE);

        *ret = TAKE_PTR(s);
        return 0;
}

/* ---- dump -------------------------------------------------------------------------- */

/* "2024-05-01T12:34:56.123456Z", or "(out of range)". */
static void format_time_usec(char buf[static 64], uint64_t usec)
{
        time_t sec = (time_t)(usec / 1000000u);
        struct tm tm;
        size_t n;

        if ((uint64_t)sec != usec / 1000000u || !gmtime_r(&sec, &tm)) {
                snprintf(buf, 64, "(out of range)");
                return;
        }
        n = strftime(buf, 64, "%Y-%m-%dT%H:%M:%S", &tm);
        if (n == 0) {
                snprintf(buf, 64, "(out of range)");
                return;
        }
        snprintf(buf + n, 64 - n, ".%06uZ", (unsigned)(usec % 1000000u));
}

static int dump_header_text(const StateFile *s, const char *saved, Buffer *out)
{
        int r;

        r = buffer_printf(out,
                          "Magic:          %s, format version %u\n"
                          "Device:         %s [%04x:%04x] subsystem [%04x:%04x] rev %02x\n"
                          "Kernel release: %s\n"
                          "Boot ID:        %s\n"
                          "Saved:          %s\n"
                          "Sections:       %zu\n",
                          STATE_MAGIC, (unsigned)STATE_FORMAT_VERSION, s->identity.slot, s->identity.vendor_id,
                          s->identity.device_id, s->identity.subvendor_id, s->identity.subdevice_id,
                          s->identity.revision, s->kernel_release, s->boot_id, saved, s->n_sections);
        for (size_t i = 0; r >= 0 && i < s->n_sections; i++)
                r = buffer_printf(out, "  method %u version %u, %" PRIu32 " bytes\n", s->sections[i].method_id,
                                  s->sections[i].method_version, s->sections[i].len);
        return r;
}

static int dump_header_json(const StateFile *s, const char *saved, Buffer *out)
{
        int r;

        r = buffer_printf(out, "{\"magic\":\"%s\",\"format_version\":%u,\"slot\":", STATE_MAGIC,
                          (unsigned)STATE_FORMAT_VERSION);
        if (r >= 0)
                r = buffer_append_json_string(out, s->identity.slot);
        if (r >= 0)
                r = buffer_printf(out,
                                  ",\"vendor_id\":%u,\"device_id\":%u,\"subvendor_id\":%u,\"subdevice_id\":%u"
                                  ",\"revision\":%u,\"kernel_release\":",
                                  s->identity.vendor_id, s->identity.device_id, s->identity.subvendor_id,
                                  s->identity.subdevice_id, s->identity.revision);
        if (r >= 0)
                r = buffer_append_json_string(out, s->kernel_release);
        if (r >= 0)
                r = buffer_printf(out, ",\"boot_id\":");
        if (r >= 0)
                r = buffer_append_json_string(out, s->boot_id);
        if (r >= 0)
                r = buffer_printf(out, ",\"time_usec\":%" PRIu64 ",\"saved\":", s->time_usec);
        if (r >= 0)
                r = buffer_append_json_string(out, saved);
        if (r >= 0)
                r = buffer_printf(out, ",\"n_sections\":%zu,\"sections\":[", s->n_sections);
        for (size_t i = 0; r >= 0 && i < s->n_sections; i++)
                r = buffer_printf(out, "%s{\"method_id\":%u,\"method_version\":%u,\"length\":%" PRIu32 "}",
                                  i > 0 ? "," : "", s->sections[i].method_id, s->sections[i].method_version,
                                  s->sections[i].len);
        if (r >= 0)
                r = buffer_printf(out, "]}");
        return r;
}

int state_dump_header(const StateFile *s, bool json, Buffer *out)
{
        size_t start = out->size;
        char saved[64];
        int r;

        if (s->n_sections > STATE_SECTIONS_MAX ||
            !text_field_valid(s->identity.slot, sizeof(s->identity.slot), false) ||
            !text_field_valid(s->kernel_release, sizeof(s->kernel_release), false) ||
            !text_field_valid(s->boot_id, sizeof(s->boot_id), false))
                return -EINVAL;

        format_time_usec(saved, s->time_usec);
        r = json ? dump_header_json(s, saved, out) : dump_header_text(s, saved, out);
        if (r < 0) {
                out->size = start;
                if (out->data)
                        out->data[start] = 0;
                return r;
        }
        return 0;
}

/* ---- files ------------------------------------------------------------------------- */

int state_file_name(const char *slot, const char *suffix, char buf[static STATE_NAME_MAX])
{
        int n;

        if (!slot || !suffix || !slot_is_file_name(slot))
                return -EINVAL;
        n = snprintf(buf, STATE_NAME_MAX, "%s%s", slot, suffix);
        return n < 0 || n >= STATE_NAME_MAX ? -ENAMETOOLONG : 0;
}

/* Reads fd to its end, at most max bytes (-EFBIG beyond). Reads until EOF rather than
 * st_size bytes: the file may change after fstat(). */
static int read_bounded(int fd, size_t max, Buffer *b)
{
        for (;;) {
                ssize_t n;
                int r;

                r = buffer_reserve(b, 65536);
                if (r < 0)
                        return r;
                n = read(fd, b->data + b->size, b->allocated - b->size - 1);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (n == 0)
                        return 0;
                b->size += (size_t)n;
                if (b->size > max)
                        return -EFBIG;
        }
}

/* O_NONBLOCK so that opening a FIFO planted under our name does not hang; then only a
 * regular file, of the right owner and mode when expected_uid is given, is read. */
static int open_checked(int dir_fd, const char *name, uid_t expected_uid, size_t max, int *ret_fd)
{
        _cleanup_close_ int fd = -EBADF;
        struct stat st;

        fd = open_regular_at(dir_fd, name, O_RDONLY, 0);
        if (fd < 0)
                return fd;
        if (fstat(fd, &st) < 0)
                return negative_errno();
        /* It may hold the console's text: readable by its owner only. */
        if (expected_uid != STATE_OWNER_ANY && (st.st_uid != expected_uid || (st.st_mode & 077)))
                return -EPERM;
        if (st.st_size > (off_t)max)
                return -EFBIG;
        *ret_fd = TAKE_FD(fd);
        return 0;
}

int state_load_at(int dir_fd, const char *name, uid_t expected_uid, StateFile **ret)
{
        _cleanup_(buffer_done) Buffer b = { 0 };
        _cleanup_close_ int fd = -EBADF;
        int r;

        if (!name || !ret)
                return -EINVAL;
        r = open_checked(dir_fd, name, expected_uid, STATE_FILE_MAX, &fd);
        if (r < 0)
                return r;
        r = read_bounded(fd, STATE_FILE_MAX, &b);
        if (r < 0)
                return r;
        return state_parse(b.data, b.size, ret);
}

int state_read_record(int dir_fd, const char *name, uid_t expected_uid, size_t max, char **ret)
{
        _cleanup_(buffer_done) Buffer b = { 0 };
        _cleanup_close_ int fd = -EBADF;
        int r;

        if (!name || !ret)
                return -EINVAL;
        r = open_checked(dir_fd, name, expected_uid, max, &fd);
        if (r < 0)
                return r;
        r = read_bounded(fd, max, &b);
        if (r < 0)
                return r;
        r = buffer_reserve(&b, 1);
        if (r < 0)
                return r;
        b.data[b.size] = '\0';
        *ret = (char *)TAKE_PTR(b.data);
        return 0;
}

static int write_all(int fd, const uint8_t *p, size_t len)
{
        while (len > 0) {
                ssize_t n = write(fd, p, len);
                if (n < 0) {
                        if (errno == EINTR)
                                continue;
                        return negative_errno();
                }
                if (n == 0)
                        return -EIO;
                p += n;
                len -= (size_t)n;
        }
        return 0;
}

/* "<prefix>.tmp-<16 hex digits>", created O_EXCL in dir_fd (rundir_sweep_temp() knows the
 * pattern). */
static int create_temp_file(int dir_fd, const char *prefix, char name[static 64], int *ret_fd)
{
        for (unsigned attempt = 0; attempt < 64; attempt++) {
                uint64_t rnd;
                int fd;

                if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd))
                        rnd = ((uint64_t)getpid() << 32) ^ (uint64_t)time(NULL) ^ ((uint64_t)attempt << 16);
                if (snprintf(name, 64, "%s.tmp-%016" PRIx64, prefix, rnd) >= 64)
                        return -ENAMETOOLONG;
                fd = openat(dir_fd, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY, 0600);
                if (fd >= 0) {
                        *ret_fd = fd;
                        return 0;
                }
                if (errno != EEXIST)
                        return negative_errno();
        }
        return -EEXIST;
}

static int write_temp_file(int dir_fd, const char *prefix, const void *data, size_t len, char tmp[static 64])
{
        _cleanup_close_ int fd = -EBADF;
        int r;

        r = create_temp_file(dir_fd, prefix, tmp, &fd);
        if (r < 0)
                return r;
        /* The mode given to open() went through the umask; set it exactly. */
        if (fchmod(fd, 0600) < 0)
                r = negative_errno();
        if (r >= 0)
                r = write_all(fd, data, len);
        if (r >= 0 && fsync(fd) < 0)
                r = negative_errno();
        if (r >= 0 && close(TAKE_FD(fd)) < 0)
                r = negative_errno();
        if (r < 0)
                (void)unlinkat(dir_fd, tmp, 0);
        return r;
}

/* If "<slot>.state" is a good state file, make it "<slot>.state.prev" too (a hard link,
 * so that "<slot>.state" never disappears). A missing or bad current file leaves .prev. */
static int keep_previous(int dir_fd, const char *name, const char *prev)
{
        _cleanup_(state_file_freep) StateFile *old = NULL;
        char link_tmp[64];
        int r;

        r = state_load_at(dir_fd, name, geteuid(), &old);
        if (r < 0)
                return 0;

        for (unsigned attempt = 0;; attempt++) {
                uint64_t rnd;

                if (getrandom(&rnd, sizeof(rnd), GRND_NONBLOCK) != (ssize_t)sizeof(rnd))
                        rnd = ((uint64_t)getpid() << 32) ^ (uint64_t)time(NULL) ^ ((uint64_t)attempt << 16);
                if (snprintf(link_tmp, sizeof(link_tmp), "%s.tmp-%016" PRIx64, prev, rnd) >= (int)sizeof(link_tmp))
                        return -ENAMETOOLONG;
                if (linkat(dir_fd, name, dir_fd, link_tmp, 0) >= 0)
                        break;
                if (errno == ENOENT) /* replaced or removed meanwhile: nothing to keep */
                        return 0;
                if (errno != EEXIST || attempt >= 64)
                        return negative_errno();
        }
        r = renameat(dir_fd, link_tmp, dir_fd, prev) < 0 ? negative_errno() : 0;
        /* rename() does nothing when both names are links to one file (a concurrent writer
         * just kept the same file), leaving link_tmp in place: always remove it. */
        (void)unlinkat(dir_fd, link_tmp, 0);
        return r;
}

/* Temp file, fsync, (keep the previous good copy as prev), rename over name, fsync the
 * directory. Readers see the old file or the new one, never a part. */
static int write_atomic(int dir_fd, const char *name, const char *prev, const void *data, size_t len,
                        const StateWriteHook *hook)
{
        char tmp[64];
        int r;

        r = write_temp_file(dir_fd, name, data, len, tmp);
        if (r < 0)
                return r;
        call_write_hook(hook, "temp-synced");

        if (prev) {
                r = keep_previous(dir_fd, name, prev);
                if (r < 0) {
                        (void)unlinkat(dir_fd, tmp, 0);
                        return r;
                }
                call_write_hook(hook, "prev-kept");
        }

        if (renameat(dir_fd, tmp, dir_fd, name) < 0) {
                r = negative_errno();
                (void)unlinkat(dir_fd, tmp, 0);
                return r;
        }
        call_write_hook(hook, "renamed");

        if (fsync(dir_fd) < 0)
                return negative_errno();
        return 0;
}

/* Serializes s and writes it as "<slot><suffix>" (keeping "<slot><prev_suffix>" if given). */
static int serialize_and_write(int dir_fd, const StateFile *s, const char *suffix, const char *prev_suffix,
                               const StateWriteHook *hook)
{
        _cleanup_(buffer_done) Buffer b = { 0 };
        char name[STATE_NAME_MAX], prev[STATE_NAME_MAX];
        int r;

        if (dir_fd < 0 || !s)
                return -EINVAL;
        r = state_file_name(s->identity.slot, suffix, name);
        if (r < 0)
                return r;
        if (prev_suffix) {
                r = state_file_name(s->identity.slot, prev_suffix, prev);
                if (r < 0)
                        return r;
        }
        r = state_serialize(s, &b);
        if (r < 0)
                return r;
        return write_atomic(dir_fd, name, prev_suffix ? prev : NULL, b.data, b.size, hook);
}

int state_write(int dir_fd, const StateFile *s, const StateWriteHook *hook)
{
        return serialize_and_write(dir_fd, s, STATE_SUFFIX, STATE_SUFFIX ".prev", hook);
}

int state_write_undo(int dir_fd, const StateFile *s)
{
        return serialize_and_write(dir_fd, s, STATE_UNDO_SUFFIX, NULL, NULL);
}

int state_write_record(int dir_fd, const char *name, const void *data, size_t len)
{
        if (dir_fd < 0 || !name || (!data && len > 0))
                return -EINVAL;
        return write_atomic(dir_fd, name, NULL, data, len, NULL);
}

int state_invalidate(int dir_fd, const char *slot)
{
        char name[STATE_NAME_MAX], prev[STATE_NAME_MAX];
        int r;

        r = state_file_name(slot, STATE_SUFFIX, name);
        if (r < 0)
                return r;
        r = state_file_name(slot, STATE_SUFFIX ".prev", prev);
        if (r < 0)
                return r;
        if (renameat(dir_fd, name, dir_fd, prev) < 0) {
                if (errno == ENOENT)
                        return 0;
                /* No .prev then, but never a restorable old file. */
                if (unlinkat(dir_fd, name, 0) < 0)
                        return errno == ENOENT ? 0 : negative_errno();
        }
        if (fsync(dir_fd) < 0)
                return negative_errno();
        return 1;
}

int state_remove(int dir_fd, const char *name)
{
        if (unlinkat(dir_fd, name, 0) < 0)
                return errno == ENOENT ? 0 : negative_errno();
        if (fsync(dir_fd) < 0)
                return negative_errno();
        return 1;
}
