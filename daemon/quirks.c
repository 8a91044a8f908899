/* SPDX-License-Identifier: MIT */
/* Owns the quirk files: which keys exist, what values they take, the shape of a section
 * (Match* keys first, then at least one attribute), and loading the shipped set and the
 * local overrides. Every mistake is refused with FILE:LINE and, for a typo, a suggestion. */
#include <ctype.h>
#include <dirent.h>
#include <stdarg.h>

#include "conf-reader.h"
#include "conf-values.h"
#include "conf.h"
#include "log.h"
#include "quirks.h"
#include "suggest.h"
#include "sysfs.h"
#include "textmatch.h"
#include "version.h"

#define QUIRK_SUFFIX ".quirks"
#define QUIRK_LOCAL_DIR "/umsrestore/quirks.d"

typedef struct MatchKey {
        const char *key;
        QuirkMatchKind kind;
        DmiField field;
} MatchKey;

static const MatchKey match_keys[] = {
        { "MatchDMIModalias", QUIRK_MATCH_MODALIAS, 0 },
        { "MatchSysVendor", QUIRK_MATCH_DMI, DMI_SYS_VENDOR },
        { "MatchProductName", QUIRK_MATCH_DMI, DMI_PRODUCT_NAME },
        { "MatchProductVersion", QUIRK_MATCH_DMI, DMI_PRODUCT_VERSION },
        { "MatchBoardVendor", QUIRK_MATCH_DMI, DMI_BOARD_VENDOR },
        { "MatchBoardName", QUIRK_MATCH_DMI, DMI_BOARD_NAME },
        { "MatchBoardVersion", QUIRK_MATCH_DMI, DMI_BOARD_VERSION },
        { "MatchBIOSVendor", QUIRK_MATCH_DMI, DMI_BIOS_VENDOR },
        { "MatchBIOSVersion", QUIRK_MATCH_DMI, DMI_BIOS_VERSION },
        { "MatchBIOSDate", QUIRK_MATCH_DMI, DMI_BIOS_DATE },
        { "MatchPCIID", QUIRK_MATCH_PCI_ID, 0 },
        { "MatchDriver", QUIRK_MATCH_DRIVER, 0 },
};

static const char *const attr_keys[_QUIRK_ATTR_MAX] = {
        [QUIRK_ADD_METHODS] = "AddMethods",         [QUIRK_REMOVE_METHODS] = "RemoveMethods",
        [QUIRK_VBE_POST] = "VBEPost",               [QUIRK_VBE_MODE] = "VBEMode",
        [QUIRK_VBE_STATE] = "VBEState",             [QUIRK_ACPI_VIDEO_FLAGS] = "ACPIVideoFlags",
        [QUIRK_CONSOLE_SWITCH] = "ConsoleSwitch",   [QUIRK_DPMS_ON] = "DPMSOn",
        [QUIRK_DPMS_SUSPEND] = "DPMSSuspend",       [QUIRK_BACKLIGHT_RESET] = "BacklightReset",
        [QUIRK_RADEON_LIGHT] = "RadeonLight",       [QUIRK_RESUMES_UNAIDED] = "ResumesUnaided",
};

static const char *const op_names[_QUIRK_OP_MAX] = {
        [QUIRK_OP_REGEX] = "regex", [QUIRK_OP_REGEX_ICASE] = "regex-icase", [QUIRK_OP_NOT_REGEX] = "not-regex",
        [QUIRK_OP_EQ] = "eq",       [QUIRK_OP_NE] = "ne",                   [QUIRK_OP_LT] = "lt",
        [QUIRK_OP_LE] = "le",       [QUIRK_OP_GT] = "gt",                   [QUIRK_OP_GE] = "ge",
};

/* ACPIVideoFlags= words, by value. */
static const char *const acpi_flag_names[] = { "none", "s3_bios", "s3_mode", "both" };

const char *quirk_attr_to_string(QuirkAttr a)
{
        return a >= 0 && a < _QUIRK_ATTR_MAX ? attr_keys[a] : NULL;
}

const char *quirk_op_to_string(QuirkOp op)
{
        return op >= 0 && op < _QUIRK_OP_MAX ? op_names[op] : NULL;
}

const char *quirk_acpi_flags_to_string(unsigned flags)
{
        return flags < ELEMENTSOF(acpi_flag_names) ? acpi_flag_names[flags] : NULL;
}

void quirk_section_format_attr(const QuirkSection *s, QuirkAttr a, char *buf, size_t size)
{
        const char *const *list = a == QUIRK_ADD_METHODS ? s->add_methods : s->remove_methods;
        size_t n = a == QUIRK_ADD_METHODS ? s->n_add_methods : s->n_remove_methods, len = 0;

        buf[0] = '\0';
        if (a < 0 || a >= _QUIRK_ATTR_MAX || !s->attr_lines[a])
                return;
        switch (a) {
        case QUIRK_ADD_METHODS:
        case QUIRK_REMOVE_METHODS:
                for (size_t i = 0; i < n && len < size; i++)
                        len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? " " : "", list[i]);
                return;
        case QUIRK_ACPI_VIDEO_FLAGS:
                snprintf(buf, size, "%s", quirk_acpi_flags_to_string((unsigned)s->values[a]));
                return;
        default:
                snprintf(buf, size, "%s", s->values[a] ? "yes" : "no");
        }
}

static void section_done(QuirkSection *s)
{
        for (size_t i = 0; i < s->n_matches; i++) {
                if (s->matches[i].has_regex)
                        regfree(&s->matches[i].regex);
        }
        free(s->matches);
        *s = (QuirkSection){ 0 }; /* its strings are the database's (db_strdup) */
}

/* The sections' strings (file and section names, patterns) are kept in chunks freed with the
 * database, not one malloc each: ~1600 of them for the shipped files, at every start. */
struct QuirkStrings {
        QuirkStrings *next;
        size_t used, size;
        char data[];
};

#define QUIRK_STRINGS_CHUNK 16384u

static char *db_strdup(QuirkDb *db, const char *str)
{
        size_t n = strlen(str) + 1;
        QuirkStrings *c = db->strings;
        char *copy;

        if (!c || c->size - c->used < n) {
                size_t size = MAX(n, (size_t)QUIRK_STRINGS_CHUNK);

                c = malloc(sizeof(*c) + size);
                if (!c)
                        return NULL;
                c->next = db->strings;
                c->used = 0;
                c->size = size;
                db->strings = c;
        }
        copy = memcpy(c->data + c->used, str, n);
        c->used += n;
        return copy;
}

int quirk_db_new(QuirkDb **ret)
{
        QuirkDb *db = calloc(1, sizeof(*db));

        if (!db)
                return -ENOMEM;
        *ret = db;
        return 0;
}

/* Drops the sections from index n on. */
static void db_truncate(QuirkDb *db, size_t n)
{
        while (db->n_sections > n)
                section_done(&db->sections[--db->n_sections]);
}

QuirkDb *quirk_db_free(QuirkDb *db)
{
        if (!db)
                return NULL;
        db_truncate(db, 0);
        free(db->sections);
        while (db->strings) {
                QuirkStrings *next = db->strings->next;
                free(db->strings);
                db->strings = next;
        }
        free(db);
        return NULL;
}

/* "did you mean" for word among names, as " (did you mean 'X'?)" or "". */
static const char *suggestion(const char *word, size_t n, const char *const *names, size_t n_names, char *buf,
                              size_t size)
{
        const char *s = suggest_closest(word, n, names, n_names);

        if (!s)
                return "";
        snprintf(buf, size, " (did you mean '%s'?)", s);
        return buf;
}

static int parse_dmi_pattern(QuirkDb *db, QuirkMatch *m, const char *value, char **ret_error)
{
        const char *space = strchr(value, ' ');
        size_t n = space ? (size_t)(space - value) : strlen(value);
        const char *pattern = space ? space + 1 : "";
        char hint[96];
        int r, flags = REG_EXTENDED | REG_NOSUB;

        m->op = _QUIRK_OP_MAX;
        for (QuirkOp op = 0; op < _QUIRK_OP_MAX; op++)
                if (strlen(op_names[op]) == n && strncmp(value, op_names[op], n) == 0)
                        m->op = op;
        if (m->op == _QUIRK_OP_MAX)
                return conf_reader_error(
                        ret_error,
                        "unknown operator '%.*s' in %s= (expected one of regex, regex-icase, "
                        "not-regex, eq, ne, lt, le, gt, ge, then a space and the value)%s",
                        (int)n, value, m->key,
                        suggestion(value, n, op_names, _QUIRK_OP_MAX, hint, sizeof(hint)));
        if (pattern[0] == '\0')
                return conf_reader_error(ret_error, "%s=%s has no value after the operator", m->key,
                                         op_names[m->op]);
        m->pattern = db_strdup(db, pattern);
        if (!m->pattern)
                return -ENOMEM;
        if (m->op > QUIRK_OP_NOT_REGEX)
                return 0;
        /* Literal alternatives need no compiled expression (textmatch.h: the memory it saves). */
        if (textmatch_simple(m->pattern)) {
                m->text_only = true;
                return 0;
        }
        if (m->op == QUIRK_OP_REGEX_ICASE)
                flags |= REG_ICASE;
        r = regcomp(&m->regex, m->pattern, flags);
        if (r != 0) {
                char why[128];

                regerror(r, &m->regex, why, sizeof(why));
                return conf_reader_error(ret_error, "invalid regular expression '%s' in %s=: %s", m->pattern,
                                         m->key, why);
        }
        m->has_regex = true;
        return 0;
}

/* One field of MatchPCIID=: four hex digits or '*'. */
static int parse_pci_field(const char *s, size_t n, uint16_t *ret, bool *ret_any)
{
        unsigned v = 0;

        if (n == 1 && s[0] == '*') {
                *ret = 0;
                *ret_any = true;
                return 0;
        }
        if (n != 4)
                return -EINVAL;
        for (size_t i = 0; i < n; i++) {
                if (!isxdigit((unsigned char)s[i]))
                        return -EINVAL;
                v = v * 16 + (unsigned)(isdigit((unsigned char)s[i]) ? s[i] - '0' : (tolower((unsigned char)s[i]) - 'a' + 10));
        }
        *ret = (uint16_t)v;
        *ret_any = false;
        return 0;
}

static int parse_pci_id(QuirkDb *db, QuirkMatch *m, const char *value, char **ret_error)
{
        const char *p = value;
        size_t n_fields = 0;

        m->pci_any = 0xf;
        while (n_fields < 4) {
                size_t n = strcspn(p, ":");
                bool any;

                if (parse_pci_field(p, n, &m->pci_id[n_fields], &any) < 0)
                        break;
                if (!any)
                        m->pci_any &= ~(1u << n_fields);
                n_fields++;
                p += n;
                if (*p != ':')
                        break;
                p++;
        }
        if (*p || (n_fields != 2 && n_fields != 4))
                return conf_reader_error(
                        ret_error,
                        "invalid %s=%s (expected VENDOR:DEVICE or VENDOR:DEVICE:SUBVENDOR:SUBDEVICE, "
                        "four hex digits or '*' each, e.g. 8086:27ae)",
                        m->key, value);
        m->pattern = db_strdup(db, value);
        return m->pattern ? 0 : -ENOMEM;
}

static int parse_match(QuirkDb *db, QuirkMatch *m, const char *value, char **ret_error)
{
        switch (m->kind) {
        case QUIRK_MATCH_MODALIAS:
                if (strncmp(value, "dmi:", 4) != 0)
                        return conf_reader_error(ret_error,
                                                 "%s=%s does not start with 'dmi:' (a glob over "
                                                 "/sys/class/dmi/id/modalias, e.g. dmi:*:svnLENOVO:*)",
                                                 m->key, value);
                break;
        case QUIRK_MATCH_DMI:
                return parse_dmi_pattern(db, m, value, ret_error);
        case QUIRK_MATCH_PCI_ID:
                return parse_pci_id(db, m, value, ret_error);
        case QUIRK_MATCH_DRIVER:
                if (value[0] == '\0' || value[strspn(value, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-")])
                        return conf_reader_error(ret_error,
                                                 "invalid %s=%s (a kernel driver name such as i915)", m->key,
                                                 value);
                break;
        }
        m->pattern = db_strdup(db, value);
        return m->pattern ? 0 : -ENOMEM;
}

static int parse_methods(QuirkSection *s, QuirkAttr a, const char *value, const QuirkMethodNames *methods,
                         char **ret_error)
{
        const char **list = a == QUIRK_ADD_METHODS ? s->add_methods : s->remove_methods;
        size_t *n_list = a == QUIRK_ADD_METHODS ? &s->n_add_methods : &s->n_remove_methods;
        const char *p = value;

        while (*p) {
                size_t n = strcspn(p, " \t");
                const char *found = NULL;
                char hint[96];

                for (size_t i = 0; i < methods->n && !found; i++)
                        if (methods->names[i] && strlen(methods->names[i]) == n && strncmp(methods->names[i], p, n) == 0)
                                found = methods->names[i];
                if (!found)
                        return conf_reader_error(
                                ret_error, "unknown method '%.*s' in %s=%s", (int)n, p, attr_keys[a],
                                suggestion(p, n, methods->names, methods->n, hint, sizeof(hint)));
                for (size_t i = 0; i < *n_list; i++)
                        if (list[i] == found)
                                return conf_reader_error(ret_error,
                                                         "method '%s' is listed twice in %s=", found,
                                                         attr_keys[a]);
                if (*n_list >= QUIRK_METHODS_MAX)
                        return conf_reader_error(ret_error, "%s= lists more than %d methods", attr_keys[a],
                                                 QUIRK_METHODS_MAX);
                list[(*n_list)++] = found;
                p += n;
                p += strspn(p, " \t");
        }
        if (*n_list == 0)
                return conf_reader_error(ret_error, "%s= is empty (name at least one method)", attr_keys[a]);
        return 0;
}

static int parse_attr(QuirkSection *s, QuirkAttr a, const char *value, const QuirkMethodNames *methods,
                      char **ret_error)
{
        char hint[96];
        int r;

        switch (a) {
        case QUIRK_ADD_METHODS:
        case QUIRK_REMOVE_METHODS:
                return parse_methods(s, a, value, methods, ret_error);
        case QUIRK_ACPI_VIDEO_FLAGS:
                for (size_t i = 0; i < ELEMENTSOF(acpi_flag_names); i++)
                        if (streq(value, acpi_flag_names[i])) {
                                s->values[a] = (int)i;
                                return 0;
                        }
                return conf_reader_error(
                        ret_error, "invalid ACPIVideoFlags=%s (expected none, s3_bios, s3_mode or both)%s",
                        value,
                        suggestion(value, strlen(value), acpi_flag_names, ELEMENTSOF(acpi_flag_names), hint,
                                   sizeof(hint)));
        default:
                r = conf_parse_boolean(attr_keys[a], value, ret_error);
                if (r < 0)
                        return r;
                s->values[a] = r;
                return 0;
        }
}

typedef struct QuirkParse {
        QuirkDb *db;
        const char *name;
        bool local;
        const QuirkMethodNames *methods;
        QuirkSection *section; /* the open one, or NULL */
} QuirkParse;

static bool section_has_attrs(const QuirkSection *s)
{
        for (QuirkAttr a = 0; a < _QUIRK_ATTR_MAX; a++)
                if (s->attr_lines[a])
                        return true;
        return false;
}

/* Refuses an open section without a match or without an attribute. */
static int section_close(QuirkParse *p, char **ret_error)
{
        const QuirkSection *s = p->section;

        p->section = NULL;
        if (!s)
                return 0;
        if (s->n_matches == 0)
                return conf_reader_error(
                        ret_error, "%s:%u: section [%s] has no Match* key: it would apply to every machine",
                        p->name, s->line, s->name);
        if (!section_has_attrs(s))
                return conf_reader_error(ret_error, "%s:%u: section [%s] sets no attribute", p->name,
                                         s->line, s->name);
        return 0;
}

static int section_open(QuirkParse *p, const ConfLine *l, char **ret_error)
{
        QuirkDb *db = p->db;
        QuirkSection *grown;
        int r;

        r = section_close(p, ret_error);
        if (r < 0)
                return r;
        if (l->section[0] == '\0')
                return conf_reader_error(ret_error,
                                         "%s:%u: empty section name (name the machine: [Vendor Model])",
                                         p->name, l->number);
        /* Room doubles: one realloc per section copied the whole table each time (~340
         * sections of ~200 bytes, read at every start of every action). */
        if (db->n_sections == db->n_allocated) {
                size_t n = db->n_allocated ? db->n_allocated * 2 : 64;
                grown = reallocarray(db->sections, n, sizeof(QuirkSection));
                if (!grown)
                        return -ENOMEM;
                db->sections = grown;
                db->n_allocated = n;
        }
        p->section = &db->sections[db->n_sections++];
        *p->section = (QuirkSection){ .line = l->number, .local = p->local };
        p->section->file = db_strdup(db, p->name);
        p->section->name = db_strdup(db, l->section);
        if (!p->section->file || !p->section->name)
                return -ENOMEM;
        return 0;
}

static int assignment(QuirkParse *p, const ConfLine *l, char **ret_error)
{
        _cleanup_free_ char *error = NULL;
        QuirkSection *s = p->section;
        const char *known[ELEMENTSOF(match_keys) + _QUIRK_ATTR_MAX];
        char hint[96];
        size_t n_known = 0;
        int r;

        if (!s)
                return conf_reader_error(ret_error,
                                         "%s:%u: %s= outside a section (start one with [Vendor Model])",
                                         p->name, l->number, l->key);
        for (size_t i = 0; i < ELEMENTSOF(match_keys); i++) {
                QuirkMatch *grown, *m;

                known[n_known++] = match_keys[i].key;
                if (!streq(l->key, match_keys[i].key))
                        continue;
                if (section_has_attrs(s))
                        return conf_reader_error(
                                ret_error, "%s:%u: %s= after an attribute in [%s] (Match* keys come first)",
                                p->name, l->number, l->key, s->name);
                for (size_t j = 0; j < s->n_matches; j++)
                        if (streq(s->matches[j].key, l->key) && match_keys[i].kind != QUIRK_MATCH_DMI)
                                return conf_reader_error(
                                        ret_error,
                                        "%s:%u: duplicate key '%s' in [%s] (first set at line %u)", p->name,
                                        l->number, l->key, s->name, s->matches[j].line);
                grown = realloc(s->matches, (s->n_matches + 1) * sizeof(QuirkMatch));
                if (!grown)
                        return -ENOMEM;
                s->matches = grown;
                m = &s->matches[s->n_matches++];
                *m = (QuirkMatch){ .kind = match_keys[i].kind, .line = l->number, .key = match_keys[i].key,
                                   .field = match_keys[i].field };
                r = parse_match(p->db, m, l->value, &error);
                if (r == -EINVAL)
                        return conf_reader_error(ret_error, "%s:%u: %s", p->name, l->number, error);
                return r;
        }
        for (QuirkAttr a = 0; a < _QUIRK_ATTR_MAX; a++) {
                known[n_known++] = attr_keys[a];
                if (!streq(l->key, attr_keys[a]))
                        continue;
                if (s->attr_lines[a])
                        return conf_reader_error(ret_error,
                                                 "%s:%u: duplicate key '%s' in [%s] (first set at line %u)",
                                                 p->name, l->number, l->key, s->name, s->attr_lines[a]);
                s->attr_lines[a] = l->number;
                r = parse_attr(s, a, l->value, p->methods, &error);
                if (r == -EINVAL)
                        return conf_reader_error(ret_error, "%s:%u: %s", p->name, l->number,
                                                 error ? error : "invalid value");
                return r;
        }
        return conf_reader_error(ret_error, "%s:%u: unknown key '%s' in [%s]%s", p->name, l->number, l->key,
                                 s->name,
                                 suggestion(l->key, strlen(l->key), known, n_known, hint, sizeof(hint)));
}

int quirk_db_parse_string(QuirkDb *db, const char *text, const char *name, bool local,
                          const QuirkMethodNames *methods, char **ret_error)
{
        QuirkParse p = { .db = db, .name = name, .local = local, .methods = methods };
        size_t n_before = db->n_sections;
        ConfReader reader;
        ConfLine line;
        int r;

        *ret_error = NULL;
        conf_reader_init_raw(&reader, text);
        for (;;) {
                _cleanup_free_ char *error = NULL;

                r = conf_reader_next(&reader, &line, &error);
                if (r == -EINVAL)
                        r = conf_reader_error(ret_error, "%s:%u: %s", name, reader.number, error);
                if (r <= 0)
                        break;
                if (line.type == CONF_LINE_SECTION)
                        r = section_open(&p, &line, ret_error);
                else
                        r = assignment(&p, &line, ret_error);
                if (r < 0)
                        break;
        }
        if (r == 0)
                r = section_close(&p, ret_error);
        if (r < 0) {
                db_truncate(db, n_before);
                return r;
        }
        return 0;
}

static bool is_quirk_file_name(const char *name)
{
        size_t n = strlen(name);

        return name[0] != '.' && n > strlen(QUIRK_SUFFIX) && streq(name + n - strlen(QUIRK_SUFFIX), QUIRK_SUFFIX);
}

static int filter_quirk_file(const struct dirent *de)
{
        return is_quirk_file_name(de->d_name);
}

int quirk_db_load_dir(QuirkDb *db, const char *dir, bool local, const QuirkMethodNames *methods,
                      char **ret_error)
{
        struct dirent **names = NULL;
        size_t n_before = db->n_sections, n_files = 0;
        int n, r = 0;

        *ret_error = NULL;
        n = scandir(dir, &names, filter_quirk_file, alphasort);
        if (n < 0) {
                r = negative_errno();
                if (r == -ENOENT)
                        return 0;
                return conf_reader_error(ret_error, "%s: cannot read directory: %s", dir, STRERROR(r)), r;
        }
        for (int i = 0; i < n; i++) {
                _cleanup_free_ char *path = NULL, *text = NULL;

                if (r >= 0 && asprintf(&path, "%s/%s", dir, names[i]->d_name) < 0)
                        r = -ENOMEM;
                if (r >= 0)
                        r = config_read_text(path, false, &text, ret_error);
                if (r >= 0)
                        r = quirk_db_parse_string(db, text, path, local, methods, ret_error);
                if (r >= 0)
                        n_files++;
                free(names[i]);
        }
        free(names);
        if (r < 0) {
                db_truncate(db, n_before);
                return r;
        }
        db->n_files += n_files;
        if (local)
                db->n_local_files += n_files;
        return 0;
}

int quirk_local_dir(const char *root, char **ret)
{
        return sysfs_path(root, UMSRESTORE_SYSCONFDIR QUIRK_LOCAL_DIR, ret);
}

int quirk_db_load(const char *root, const char *shipped_dir, const QuirkMethodNames *methods, QuirkDb **ret,
                  char **ret_error, char **ret_local_error)
{
        _cleanup_(quirk_db_freep) QuirkDb *db = NULL;
        _cleanup_free_ char *local = NULL;
        int r;

        *ret_error = *ret_local_error = NULL;
        r = quirk_db_new(&db);
        if (r < 0)
                return r;
        if (shipped_dir) {
                r = quirk_db_load_dir(db, shipped_dir, false, methods, ret_error);
                if (r < 0)
                        return r;
        }
        r = quirk_local_dir(root, &local);
        if (r < 0)
                return r;
        r = quirk_db_load_dir(db, local, true, methods, ret_local_error);
        if (r == -ENOMEM)
                return r;
        *ret = TAKE_PTR(db);
        return 0;
}
