/* SPDX-License-Identifier: MIT */
/* Owns the meaning of Match* lines (glob, regular expression, string order, PCI ID, driver),
 * which sections apply to which device, and how the attributes of several sections merge. */
#include <fnmatch.h>

#include "quirks-match.h"
#include "textmatch.h"

/* Attributes that ask for the video BIOS or the kernel's wakeup BIOS call, and the method
 * each one needs by name. The names are data: a method not built in is reported, not fatal. */
static const struct {
        QuirkAttr attr;
        bool bios_help; /* cancelled by ResumesUnaided=yes */
        const char *method;
} attr_info[] = {
        { QUIRK_VBE_POST, true, "vbe" },       { QUIRK_VBE_MODE, true, "vbe" },
        { QUIRK_VBE_STATE, true, "vbe" },      { QUIRK_RADEON_LIGHT, true, "radeon" },
        { QUIRK_ACPI_VIDEO_FLAGS, true, NULL }, { QUIRK_DPMS_ON, true, NULL },
        { QUIRK_DPMS_SUSPEND, true, NULL },    { QUIRK_BACKLIGHT_RESET, true, NULL },
};

const char *quirk_attr_implied_method(QuirkAttr a)
{
        for (size_t i = 0; i < ELEMENTSOF(attr_info); i++)
                if (attr_info[i].attr == a)
                        return attr_info[i].method;
        return NULL;
}

static bool attr_is_bios_help(QuirkAttr a)
{
        for (size_t i = 0; i < ELEMENTSOF(attr_info); i++)
                if (attr_info[i].attr == a)
                        return attr_info[i].bios_help;
        return false;
}

static bool string_op(QuirkOp op, const char *value, const char *pattern)
{
        int c = strcmp(value, pattern);

        switch (op) {
        case QUIRK_OP_EQ:
                return c == 0;
        case QUIRK_OP_NE:
                return c != 0;
        case QUIRK_OP_LT:
                return c < 0;
        case QUIRK_OP_LE:
                return c <= 0;
        case QUIRK_OP_GT:
                return c > 0;
        case QUIRK_OP_GE:
                return c >= 0;
        default:
                return false;
        }
}

bool quirk_match_test(const QuirkMatch *m, const DmiInfo *dmi, const DisplayDevice *d)
{
        const uint16_t ids[4] = { d ? d->vendor_id : 0, d ? d->device_id : 0, d ? d->subvendor_id : 0,
                                  d ? d->subdevice_id : 0 };
        const char *value;
        bool hit;

        switch (m->kind) {
        case QUIRK_MATCH_MODALIAS:
                return dmi->present && fnmatch(m->pattern, dmi->modalias, 0) == 0;
        case QUIRK_MATCH_DMI:
                value = dmi->fields[m->field];
                if (m->text_only)
                        hit = textmatch_match(m->pattern, value, m->op == QUIRK_OP_REGEX_ICASE);
                else if (m->has_regex)
                        hit = regexec(&m->regex, value, 0, NULL, 0) == 0;
                else
                        return string_op(m->op, value, m->pattern);
                return m->op == QUIRK_OP_NOT_REGEX ? !hit : hit;
        case QUIRK_MATCH_PCI_ID:
                if (!d)
                        return false;
                for (unsigned i = 0; i < 4; i++)
                        if (!(m->pci_any & (1u << i)) && m->pci_id[i] != ids[i])
                                return false;
                return true;
        case QUIRK_MATCH_DRIVER:
                return d && streq(d->driver, m->pattern);
        }
        return false;
}

void quirk_match_subject(const QuirkMatch *m, const DmiInfo *dmi, const DisplayDevice *d, char *buf, size_t size)
{
        switch (m->kind) {
        case QUIRK_MATCH_MODALIAS:
                snprintf(buf, size, "%s", dmi->modalias);
                return;
        case QUIRK_MATCH_DMI:
                snprintf(buf, size, "%s", dmi->fields[m->field]);
                return;
        case QUIRK_MATCH_PCI_ID:
                if (d)
                        snprintf(buf, size, "%04x:%04x:%04x:%04x", d->vendor_id, d->device_id, d->subvendor_id,
                                 d->subdevice_id);
                else
                        snprintf(buf, size, "%s", "");
                return;
        case QUIRK_MATCH_DRIVER:
                snprintf(buf, size, "%s", d ? d->driver : "");
                return;
        }
        snprintf(buf, size, "%s", "");
}

bool quirk_section_names_device(const QuirkSection *s)
{
        for (size_t i = 0; i < s->n_matches; i++)
                if (s->matches[i].kind == QUIRK_MATCH_PCI_ID || s->matches[i].kind == QUIRK_MATCH_DRIVER)
                        return true;
        return false;
}

bool quirk_section_applies(const QuirkSection *s, const DmiInfo *dmi, const DisplayDevice *d, bool primary)
{
        if (!quirk_section_names_device(s) && !primary)
                return false;
        for (size_t i = 0; i < s->n_matches; i++)
                if (!quirk_match_test(&s->matches[i], dmi, d))
                        return false;
        return true;
}

/* Moves name into list (if not there) and out of other. */
static void method_list_move(const char *name, const char **list, size_t *n, const char **other, size_t *n_other)
{
        bool there = false;

        for (size_t i = 0; i < *n_other; i++)
                if (streq(other[i], name)) {
                        memmove(&other[i], &other[i + 1], (*n_other - i - 1) * sizeof(*other));
                        (*n_other)--;
                        break;
                }
        for (size_t i = 0; i < *n && !there; i++)
                there = streq(list[i], name);
        if (!there && *n < QUIRK_RESULT_METHODS_MAX)
                list[(*n)++] = name;
}

void quirk_resolve(const QuirkDb *db, const DmiInfo *dmi, const DisplayDevice *d, bool primary, QuirkResult *ret)
{
        *ret = (QuirkResult){ 0 };
        for (QuirkAttr a = 0; a < _QUIRK_ATTR_MAX; a++)
                ret->values[a] = -1;
        if (!db)
                return;

        for (size_t i = 0; i < db->n_sections; i++) {
                const QuirkSection *s = &db->sections[i];

                if (!quirk_section_applies(s, dmi, d, primary))
                        continue;
                if (ret->n_hits < QUIRK_HITS_MAX)
                        ret->hits[ret->n_hits++] = s;
                else
                        ret->n_hits_dropped++;
                if (s->attr_lines[QUIRK_RESUMES_UNAIDED] && s->values[QUIRK_RESUMES_UNAIDED] > 0)
                        ret->unaided_by = s;
                for (QuirkAttr a = 0; a < _QUIRK_ATTR_MAX; a++) {
                        if (!s->attr_lines[a] || a == QUIRK_ADD_METHODS || a == QUIRK_REMOVE_METHODS)
                                continue;
                        /* The kernel's flags add up, as pm-utils' --quirk-s3-bios and
                         * --quirk-s3-mode of two entries did; "none" clears them. */
                        if (a == QUIRK_ACPI_VIDEO_FLAGS && s->values[a] != 0 && ret->values[a] > 0)
                                ret->values[a] |= s->values[a];
                        else
                                ret->values[a] = s->values[a];
                        ret->from[a] = s;
                }
                for (size_t j = 0; j < s->n_add_methods; j++)
                        method_list_move(s->add_methods[j], ret->add_methods, &ret->n_add_methods,
                                         ret->remove_methods, &ret->n_remove_methods);
                for (size_t j = 0; j < s->n_remove_methods; j++)
                        method_list_move(s->remove_methods[j], ret->remove_methods, &ret->n_remove_methods,
                                         ret->add_methods, &ret->n_add_methods);
        }

        for (QuirkAttr a = 0; a < _QUIRK_ATTR_MAX; a++) {
                const char *implied;

                if (ret->unaided_by && attr_is_bios_help(a)) {
                        ret->values[a] = -1;
                        ret->from[a] = NULL;
                }
                implied = quirk_attr_implied_method(a);
                if (implied && ret->values[a] > 0)
                        method_list_move(implied, ret->add_methods, &ret->n_add_methods, ret->remove_methods,
                                         &ret->n_remove_methods);
        }
}
