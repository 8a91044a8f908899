/* SPDX-License-Identifier: MIT */
/* The quirk database: every key and value checked at load (FILE:LINE, "did you mean"), the
 * Match* operators, the merge of several sections, the shipped set and a broken local
 * override, the DMI reader and the survey on the fake MSI Wind U100. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>
#include <malloc.h>
#include <regex.h>
#include <sys/stat.h>

#include "dmi.h"
#include "methods/vbe-emu.h"
#include "quirks-match.h"
#include "quirks.h"
#include "survey.h"
#include "textmatch.h"

static const char *data_dir;
static const char *const test_methods[] = { "console", "dpms", "vga", "intel", "pci-config" };
static const QuirkMethodNames names = { .names = test_methods, .n = ELEMENTSOF(test_methods) };

static QuirkDb *parse_ok(const char *text)
{
        QuirkDb *db = NULL;
        char *error = NULL;

        assert_int_equal(quirk_db_new(&db), 0);
        if (quirk_db_parse_string(db, text, "t.quirks", false, &names, &error) < 0)
                fail_msg("unexpected error: %s", error);
        assert_null(error);
        return db;
}

static void expect_error(const char *text, const char *message)
{
        _cleanup_(quirk_db_freep) QuirkDb *db = parse_ok("[Before]\nMatchDriver=i915\nDPMSOn=yes\n");
        _cleanup_free_ char *error = NULL;

        assert_int_equal(quirk_db_parse_string(db, text, "t.quirks", false, &names, &error), -EINVAL);
        assert_non_null(error);
        if (!streq(error, message))
                fail_msg("for:\n%s\ngot:      %s\nexpected: %s", text, error, message);
        /* A refused file adds nothing: the section of before is all there is. */
        assert_int_equal(db->n_sections, 1);
        assert_string_equal(db->sections[0].name, "Before");
}

static void test_parse(void **state)
{
        _cleanup_(quirk_db_freep) QuirkDb *db = NULL;
        const QuirkSection *s;

        (void)state;
        db = parse_ok("# a comment\n"
                      "[Some Laptop]\n"
                      "MatchSysVendor=regex-icase ^micro-star\n"
                      "MatchProductName=regex ^(MS-1057|U-100)$\n"
                      "MatchBIOSVersion=lt A12\n"
                      "MatchBIOSVersion=ge A05\n"
                      "MatchPCIID=8086:*\n"
                      "AddMethods=intel vga\n"
                      "RemoveMethods=console\n"
                      "VBEPost=yes\n"
                      "ACPIVideoFlags=both\n"
                      "DPMSOn=no\n"
                      "\n"
                      "[Other]\n"
                      "MatchDMIModalias=dmi:*:svnFOO:*\n"
                      "MatchProductVersion=not-regex Ver #2; rev\n"
                      "ResumesUnaided=yes\n");
        assert_int_equal(db->n_sections, 2);
        s = &db->sections[0];
        assert_string_equal(s->name, "Some Laptop");
        assert_string_equal(s->file, "t.quirks");
        assert_int_equal(s->line, 2);
        assert_int_equal(s->n_matches, 5);
        assert_int_equal(s->matches[0].op, QUIRK_OP_REGEX_ICASE);
        assert_int_equal(s->matches[0].field, DMI_SYS_VENDOR);
        assert_string_equal(s->matches[1].pattern, "^(MS-1057|U-100)$");
        assert_int_equal(s->matches[2].op, QUIRK_OP_LT);
        assert_int_equal(s->matches[3].line, 6);
        assert_int_equal(s->matches[4].pci_id[0], 0x8086);
        assert_int_equal(s->matches[4].pci_any, 0xe);
        assert_int_equal(s->n_add_methods, 2);
        assert_string_equal(s->add_methods[0], "intel");
        assert_string_equal(s->remove_methods[0], "console");
        assert_int_equal(s->values[QUIRK_VBE_POST], 1);
        assert_int_equal(s->attr_lines[QUIRK_VBE_POST], 10);
        assert_int_equal(s->values[QUIRK_ACPI_VIDEO_FLAGS], QUIRK_ACPI_S3_BIOS | QUIRK_ACPI_S3_MODE);
        assert_int_equal(s->values[QUIRK_DPMS_ON], 0);
        assert_int_equal(s->attr_lines[QUIRK_VBE_MODE], 0);
        /* '#' and ';' belong to the pattern: a quirk value is taken as written. */
        assert_string_equal(db->sections[1].matches[1].pattern, "Ver #2; rev");
}

/* Typos and mistakes: one exact message each, naming the file and line. */
static void test_errors(void **state)
{
        (void)state;
        expect_error("[A]\nMatchProdcutName=regex x\nVBEPost=yes\n",
                     "t.quirks:2: unknown key 'MatchProdcutName' in [A] (did you mean 'MatchProductName'?)");
        expect_error("[A]\nMatchProductName=regex x\nVBEPots=yes\n",
                     "t.quirks:3: unknown key 'VBEPots' in [A] (did you mean 'VBEPost'?)");
        expect_error("[A]\nMatchProductName=regex x\nAddMethods=vga intle\n",
                     "t.quirks:3: unknown method 'intle' in AddMethods= (did you mean 'intel'?)");
        expect_error("[A]\nMatchProductName=regx ^U-100$\nVBEPost=yes\n",
                     "t.quirks:2: unknown operator 'regx' in MatchProductName= (expected one of regex, regex-icase, "
                     "not-regex, eq, ne, lt, le, gt, ge, then a space and the value) (did you mean 'regex'?)");
        expect_error("[A]\nMatchProductName=regex x\nACPIVideoFlags=s3_bois\n",
                     "t.quirks:3: invalid ACPIVideoFlags=s3_bois (expected none, s3_bios, s3_mode or both) "
                     "(did you mean 's3_bios'?)");
        expect_error("[A]\nMatchProductName=regex V3000 (EZ674UA#\nVBEPost=yes\n",
                     "t.quirks:2: invalid regular expression 'V3000 (EZ674UA#' in MatchProductName=: Unmatched ( "
                     "or \\(");
        expect_error("[A]\nMatchPCIID=8086:27a\nVBEPost=yes\n",
                     "t.quirks:2: invalid MatchPCIID=8086:27a (expected VENDOR:DEVICE or "
                     "VENDOR:DEVICE:SUBVENDOR:SUBDEVICE, four hex digits or '*' each, e.g. 8086:27ae)");
        expect_error("[A]\nMatchDMIModalias=svnFOO*\nVBEPost=yes\n",
                     "t.quirks:2: MatchDMIModalias=svnFOO* does not start with 'dmi:' (a glob over "
                     "/sys/class/dmi/id/modalias, e.g. dmi:*:svnLENOVO:*)");
        expect_error("[A]\nVBEPost=yes\n",
                     "t.quirks:1: section [A] has no Match* key: it would apply to every machine");
        expect_error("[A]\nMatchDriver=i915\n[B]\nMatchDriver=i915\nVBEPost=yes\n",
                     "t.quirks:1: section [A] sets no attribute");
        expect_error("[A]\nMatchDriver=i915\nVBEPost=yes\nMatchPCIID=8086:27ae\n",
                     "t.quirks:4: MatchPCIID= after an attribute in [A] (Match* keys come first)");
        expect_error("[A]\nMatchDriver=i915\nVBEPost=yes\nVBEPost=no\n",
                     "t.quirks:4: duplicate key 'VBEPost' in [A] (first set at line 3)");
        expect_error("[A]\nMatchDriver=i915\nMatchDriver=radeon\nVBEPost=yes\n",
                     "t.quirks:3: duplicate key 'MatchDriver' in [A] (first set at line 2)");
        expect_error("VBEPost=yes\n", "t.quirks:1: VBEPost= outside a section (start one with [Vendor Model])");
        expect_error("[A]\nMatchDriver=i915\nDPMSOn=maybe\n",
                     "t.quirks:3: invalid boolean 'maybe' for DPMSOn= (use yes/no, true/false, on/off or 1/0)");
        expect_error("[A]\nMatchDriver=i9 15\nDPMSOn=yes\n",
                     "t.quirks:2: invalid MatchDriver=i9 15 (a kernel driver name such as i915)");
        expect_error("[A]\nMatchSysVendor=regex\nDPMSOn=yes\n",
                     "t.quirks:2: MatchSysVendor=regex has no value after the operator");
        expect_error("[A]\nMatchSysVendor=eq \nDPMSOn=yes\n", "t.quirks:2: MatchSysVendor=eq has no value after the operator");
        expect_error("[A]\nMatchDriver=i915\nAddMethods=vga vga\n",
                     "t.quirks:3: method 'vga' is listed twice in AddMethods=");
        expect_error("[]\n", "t.quirks:1: empty section name (name the machine: [Vendor Model])");
        expect_error("[A]\nMatchDriver=i915\nDPMSOn=yes\nnonsense\n",
                     "t.quirks:4: expected 'Key=Value', a [Section] header or a comment, got 'nonsense'");
}

static DmiInfo u100_dmi(void)
{
        DmiInfo dmi = { .present = true };

        snprintf(dmi.modalias, sizeof(dmi.modalias), "dmi:bvnPhoenix:svnMICRO-STARINTERNATIONALCO.,LTD:pnU-100:pvrVer.001:");
        snprintf(dmi.fields[DMI_SYS_VENDOR], DMI_FIELD_MAX, "MICRO-STAR INTERNATIONAL CO., LTD");
        snprintf(dmi.fields[DMI_PRODUCT_NAME], DMI_FIELD_MAX, "U-100");
        snprintf(dmi.fields[DMI_BIOS_VERSION], DMI_FIELD_MAX, "A10");
        return dmi;
}

static DisplayDevice device(uint16_t vendor, uint16_t dev, const char *driver)
{
        DisplayDevice d = { .vendor_id = vendor, .device_id = dev, .subvendor_id = 0x1462, .subdevice_id = 0x0110,
                            .boot_vga = true };

        snprintf(d.driver, sizeof(d.driver), "%s", driver);
        return d;
}

static bool applies(const char *matches, const DmiInfo *dmi, const DisplayDevice *d, bool primary)
{
        _cleanup_(quirk_db_freep) QuirkDb *db = NULL;
        _cleanup_free_ char *text = NULL;

        assert_true(asprintf(&text, "[T]\n%sDPMSOn=yes\n", matches) > 0);
        db = parse_ok(text);
        return quirk_section_applies(&db->sections[0], dmi, d, primary);
}

static void test_match(void **state)
{
        DmiInfo dmi = u100_dmi();
        DisplayDevice d = device(0x8086, 0x27ae, "i915");

        (void)state;
        assert_true(applies("MatchSysVendor=regex-icase ^micro-star\n", &dmi, &d, true));
        assert_false(applies("MatchSysVendor=regex ^micro-star\n", &dmi, &d, true));
        /* unanchored, and the value keeps its inner spaces */
        assert_true(applies("MatchSysVendor=regex INTERNATIONAL CO\\., LTD\n", &dmi, &d, true));
        assert_true(applies("MatchProductName=regex ^(MS-1057|U-100)$\n", &dmi, &d, true));
        assert_false(applies("MatchProductName=regex ^(MS-1057|U-10)$\n", &dmi, &d, true));
        assert_true(applies("MatchProductName=not-regex ^MS-\n", &dmi, &d, true));
        assert_false(applies("MatchProductName=not-regex ^U\n", &dmi, &d, true));
        /* string order: "A10" < "A12", "A10" >= "A05" */
        assert_true(applies("MatchBIOSVersion=lt A12\nMatchBIOSVersion=ge A05\n", &dmi, &d, true));
        assert_false(applies("MatchBIOSVersion=ge A12\n", &dmi, &d, true));
        assert_true(applies("MatchBIOSVersion=eq A10\n", &dmi, &d, true));
        assert_true(applies("MatchBIOSVersion=ne A11\nMatchBIOSVersion=le A10\nMatchBIOSVersion=gt A09\n", &dmi, &d, true));
        /* a field the machine lacks reads as "" */
        assert_true(applies("MatchBoardName=not-regex .\n", &dmi, &d, true));
        assert_true(applies("MatchDMIModalias=dmi:*:svnMICRO-STAR*:pnU-100:*\n", &dmi, &d, true));
        assert_false(applies("MatchDMIModalias=dmi:*:pnU-1000:*\n", &dmi, &d, true));
        assert_true(applies("MatchPCIID=8086:27ae\n", &dmi, &d, false));
        assert_true(applies("MatchPCIID=8086:*\n", &dmi, &d, false));
        assert_true(applies("MatchPCIID=8086:27ae:1462:0110\n", &dmi, &d, false));
        assert_false(applies("MatchPCIID=8086:27ae:1462:0111\n", &dmi, &d, false));
        assert_false(applies("MatchPCIID=1002:*\n", &dmi, &d, true));
        assert_true(applies("MatchDriver=i915\n", &dmi, &d, false));
        assert_false(applies("MatchDriver=radeon\n", &dmi, &d, true));
        /* a section that names no device applies to the primary one only */
        assert_false(applies("MatchProductName=regex U-100\n", &dmi, &d, false));
        /* no DMI at all: a modalias glob never matches */
        dmi.present = false;
        assert_false(applies("MatchDMIModalias=dmi:*\n", &dmi, &d, true));
}

static void test_resolve(void **state)
{
        _cleanup_(quirk_db_freep) QuirkDb *db = NULL;
        DmiInfo dmi = u100_dmi();
        DisplayDevice d = device(0x8086, 0x27ae, "i915");
        QuirkResult q;
        char subject[128];

        (void)state;
        db = parse_ok("[First]\nMatchProductName=regex U-100\nVBEPost=yes\nDPMSOn=yes\nAddMethods=vga\n"
                      "[Not this one]\nMatchProductName=regex U-90\nConsoleSwitch=no\n"
                      "[Second]\nMatchPCIID=8086:27ae\nVBEPost=no\nRemoveMethods=vga console\nACPIVideoFlags=s3_mode\n");
        quirk_resolve(db, &dmi, &d, true, &q);
        assert_int_equal(q.n_hits, 2);
        assert_string_equal(q.hits[0]->name, "First");
        assert_string_equal(q.hits[1]->name, "Second");
        assert_int_equal(q.values[QUIRK_VBE_POST], 0); /* the later section wins */
        assert_string_equal(q.from[QUIRK_VBE_POST]->name, "Second");
        assert_int_equal(q.values[QUIRK_DPMS_ON], 1);
        assert_int_equal(q.values[QUIRK_CONSOLE_SWITCH], -1);
        assert_int_equal(q.values[QUIRK_ACPI_VIDEO_FLAGS], QUIRK_ACPI_S3_MODE);

        assert_int_equal(q.n_add_methods, 0); /* vga added, then removed */
        assert_int_equal(q.n_remove_methods, 2);
        assert_null(q.unaided_by);
        quirk_match_subject(&q.hits[0]->matches[0], &dmi, &d, subject, sizeof(subject));
        assert_string_equal(subject, "U-100");
        quirk_match_subject(&q.hits[1]->matches[0], &dmi, &d, subject, sizeof(subject));
        assert_string_equal(subject, "8086:27ae:1462:0110");

        /* s3_bios and s3_mode of two sections add up; a later none clears them */
        quirk_db_free(TAKE_PTR(db));
        db = parse_ok("[A]\nMatchProductName=regex U-100\nACPIVideoFlags=s3_bios\n"
                      "[B]\nMatchSysVendor=regex MICRO\nACPIVideoFlags=s3_mode\n");
        quirk_resolve(db, &dmi, &d, true, &q);
        assert_int_equal(q.values[QUIRK_ACPI_VIDEO_FLAGS], QUIRK_ACPI_S3_BIOS | QUIRK_ACPI_S3_MODE);
        quirk_db_free(TAKE_PTR(db));
        db = parse_ok("[A]\nMatchProductName=regex U-100\nACPIVideoFlags=both\n"
                      "[B]\nMatchSysVendor=regex MICRO\nACPIVideoFlags=none\n");
        quirk_resolve(db, &dmi, &d, true, &q);
        assert_int_equal(q.values[QUIRK_ACPI_VIDEO_FLAGS], 0);

        /* VBEState= needs the vbe method, RadeonLight= the radeon method: named, built or not. */
        quirk_db_free(TAKE_PTR(db));
        db = parse_ok("[A]\nMatchProductName=regex U-100\nVBEState=yes\nRadeonLight=yes\nAddMethods=intel\n");
        quirk_resolve(db, &dmi, &d, true, &q);
        assert_int_equal(q.n_add_methods, 3);
        assert_string_equal(q.add_methods[0], "intel");
        assert_string_equal(q.add_methods[1], "vbe");
        assert_string_equal(q.add_methods[2], "radeon");

        /* ResumesUnaided=yes (pm-utils' none) cancels every BIOS help of any section. */
        quirk_db_free(TAKE_PTR(db));
        db = parse_ok("[A]\nMatchProductName=regex U-100\nVBEPost=yes\nACPIVideoFlags=both\nConsoleSwitch=no\n"
                      "[B]\nMatchSysVendor=regex MICRO\nResumesUnaided=yes\n");
        quirk_resolve(db, &dmi, &d, true, &q);
        assert_string_equal(q.unaided_by->name, "B");
        assert_int_equal(q.values[QUIRK_VBE_POST], -1);
        assert_int_equal(q.values[QUIRK_ACPI_VIDEO_FLAGS], -1);
        assert_int_equal(q.values[QUIRK_CONSOLE_SWITCH], 0);
        assert_int_equal(q.n_add_methods, 0);

        /* no database: nothing set */
        quirk_resolve(NULL, &dmi, &d, true, &q);
        assert_int_equal(q.n_hits, 0);
        assert_int_equal(q.values[QUIRK_VBE_POST], -1);
}

static char *shipped_dir(void)
{
        char *p = NULL;

        assert_true(asprintf(&p, "%s/../../conf/quirks", data_dir) > 0);
        return p;
}

/* Every shipped file loads with the methods of this build: a broken one fails here. */
static void test_shipped(void **state)
{
        _cleanup_(quirk_db_freep) QuirkDb *db = NULL;
        _cleanup_free_ char *dir = shipped_dir(), *error = NULL;
        QuirkMethodNames table = survey_method_names();

        (void)state;
        assert_int_equal(quirk_db_new(&db), 0);
        if (quirk_db_load_dir(db, dir, false, &table, &error) < 0)
                fail_msg("shipped quirk files: %s", error);
        assert_true(db->n_files >= 1);
        assert_true(db->n_sections >= 1);
}

/* What regexec() says, the reference for textmatch. */
static bool regex_says(const char *pattern, const char *value, bool icase)
{
        regex_t re;
        bool hit;

        if (regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB | (icase ? REG_ICASE : 0)) != 0)
                fail_msg("the test's pattern '%s' does not compile", pattern);
        hit = regexec(&re, value, 0, NULL, 0) == 0;
        regfree(&re);
        return hit;
}

static void expect_text(const char *pattern, const char *value, bool icase, bool expected)
{
        assert_true(textmatch_simple(pattern));
        if (regex_says(pattern, value, icase) != expected)
                fail_msg("test table wrong: regexec says '%s' %s '%s'", pattern, expected ? "misses" : "matches", value);
        if (textmatch_match(pattern, value, icase) != expected)
                fail_msg("textmatch: '%s' %s '%s'%s, regexec does not", pattern, expected ? "misses" : "matches",
                         value, icase ? " (ignoring case)" : "");
}

/* The shapes textmatch takes, with the corners of ERE precedence; the shapes it refuses. */
static void test_textmatch(void **state)
{
        (void)state;
        expect_text("^Acer", "Acer Inc.", false, true);
        expect_text("^Acer", "acer", false, false);
        expect_text("^Acer", "acer", true, true);
        expect_text("^Acer", "An Acer", false, false);
        expect_text("C300", "TravelMate C300", false, true);
        expect_text("C300", "C30", false, false);
        expect_text("2350|2410|4000", "Aspire 4000", false, true);
        expect_text("2350|2410|4000", "Aspire 4000X", false, true);
        expect_text("2350|2410|4000", "Aspire 4001", false, false);
        expect_text("2350|2410|4000", "Aspire 400", false, false);
        /* '^' and '$' bind to their own alternative, not to the whole list */
        expect_text("^ab|cd$", "xxab", false, false);
        expect_text("^ab|cd$", "abxx", false, true);
        expect_text("^ab|cd$", "xxcd", false, true);
        expect_text("^ab|cd$", "cdxx", false, false);
        expect_text("x|^ab$", "ab", false, true);
        expect_text("x|^ab$", "abc", false, false);
        /* a group takes both anchors for every alternative */
        expect_text("^(MS-1057|U-100)$", "U-100", false, true);
        expect_text("^(MS-1057|U-100)$", "U-1000", false, false);
        expect_text("^(MS-1057|U-100)$", "XMS-1057", false, false);
        expect_text("(ab|cd)$", "xxab", false, true);
        expect_text("^(ab|cd)", "cdxx", false, true);
        expect_text("(ab|cd)", "xcdx", false, true);
        /* '.' is any one character */
        expect_text("^1.0$", "1.0", false, true);
        expect_text("^1.0$", "1x0", false, true);
        expect_text("^1.0$", "10", false, false);
        expect_text("Inc.", "Inc", false, false);
        expect_text("Inc.", "Inc.", false, true);
        expect_text("^MICRO-STAR", "Micro-Star International", true, true);
        expect_text("long pattern", "short", false, false);
        expect_text("a", "", false, false);
        /* not this shape: a compiled expression takes them */
        assert_false(textmatch_simple(""));
        assert_false(textmatch_simple("^"));
        assert_false(textmatch_simple("^$"));
        assert_false(textmatch_simple("a|"));
        assert_false(textmatch_simple("|a"));
        assert_false(textmatch_simple("a||b"));
        assert_false(textmatch_simple("a*"));
        assert_false(textmatch_simple("D6[0-9]0"));
        assert_false(textmatch_simple("a\\.b"));
        assert_false(textmatch_simple("^(a)b$"));
        assert_false(textmatch_simple("(a)|(b)"));
        assert_false(textmatch_simple("PCG-F430(UC)|X"));
        assert_false(textmatch_simple("^(a|b(c))$"));
        assert_false(textmatch_simple("a^b"));
        assert_false(textmatch_simple("a$b"));
        assert_false(textmatch_simple("^a$$"));
        assert_false(textmatch_simple("a{2}"));
}

/* Subjects around a pattern: its alternatives alone, inside other text, cut short, with
 * '.' replaced, with the case turned. */
static void check_shipped_pattern(const QuirkMatch *m, unsigned *n_checked)
{
        bool icase = m->op == QUIRK_OP_REGEX_ICASE;
        char alts[QUIRK_LINE_MAX + 1], subject[QUIRK_LINE_MAX + 16];

        snprintf(alts, sizeof(alts), "%s", m->pattern);
        for (char *save = NULL, *a = strtok_r(alts, "|^$()", &save); a; a = strtok_r(NULL, "|^$()", &save)) {
                static const char *const forms[] = { "%s", "x%s", "%sx", "x%sx", "%.3s", "%s %s" };
                size_t len = strlen(a);

                for (unsigned f = 0; f < ELEMENTSOF(forms); f++) {
                        for (unsigned variant = 0; variant < 3; variant++) {
                                bool hit_text, hit_regex;

                                snprintf(subject, sizeof(subject), forms[f], a, a);
                                for (char *c = subject; *c; c++) {
                                        if (variant == 1 && *c == '.')
                                                *c = '#';
                                        if (variant == 2)
                                                *c = (char)(*c >= 'a' && *c <= 'z' ? *c - 32 : *c >= 'A' && *c <= 'Z' ? *c + 32 : *c);
                                }
                                if (f == 4 && len <= 3)
                                        subject[len > 0 ? len - 1 : 0] = '\0';
                                hit_text = textmatch_match(m->pattern, subject, icase);
                                hit_regex = regex_says(m->pattern, subject, icase);
                                if (hit_text != hit_regex)
                                        fail_msg("'%s'%s on '%s': textmatch says %s, regexec %s", m->pattern,
                                                 icase ? " (icase)" : "", subject, hit_text ? "match" : "no match",
                                                 hit_regex ? "match" : "no match");
                                (*n_checked)++;
                        }
                }
        }
}

/* Every shipped DMI expression textmatch takes gives regexec()'s answer; those it does not
 * take are compiled. The loaded database stays small: a compiled expression for each
 * pm-utils pattern cost 3.6 MiB of heap in the daemon. */
static void test_shipped_textmatch(void **state)
{
        _cleanup_(quirk_db_freep) QuirkDb *db = NULL;
        _cleanup_free_ char *dir = shipped_dir(), *error = NULL;
        QuirkMethodNames table = survey_method_names();
        unsigned n_text = 0, n_compiled = 0, n_checked = 0;
        struct mallinfo2 before, after;

        (void)state;
        malloc_trim(0);
        before = mallinfo2();
        assert_int_equal(quirk_db_new(&db), 0);
        if (quirk_db_load_dir(db, dir, false, &table, &error) < 0)
                fail_msg("shipped quirk files: %s", error);
        after = mallinfo2();
        if (after.uordblks - before.uordblks >= 1024 * 1024)
                fail_msg("the shipped database takes %zu KiB of heap (over 1 MiB)", (after.uordblks - before.uordblks) / 1024);
        for (size_t i = 0; i < db->n_sections; i++)
                for (size_t j = 0; j < db->sections[i].n_matches; j++) {
                        const QuirkMatch *m = &db->sections[i].matches[j];

                        if (m->kind != QUIRK_MATCH_DMI || m->op > QUIRK_OP_NOT_REGEX)
                                continue;
                        assert_true(m->text_only != m->has_regex);
                        assert_true(m->text_only == textmatch_simple(m->pattern));
                        if (m->has_regex) {
                                n_compiled++;
                                continue;
                        }
                        n_text++;
                        check_shipped_pattern(m, &n_checked);
                }
        print_message("shipped DMI expressions: %u matched as text (%u subjects checked against regexec), %u "
                      "compiled; database heap %zu KiB\n",
                      n_text, n_checked, n_compiled, (after.uordblks - before.uordblks) / 1024);
        assert_true(n_text > 100);
        assert_true(n_compiled < n_text / 20);
}

static void write_file(const char *path, const char *text)
{
        FILE *f = fopen(path, "we");

        assert_non_null(f);
        fputs(text, f);
        assert_int_equal(fclose(f), 0);
}

/* A broken local override is reported with FILE:LINE and dropped with every other local
 * file; the shipped set stays. A good one is added after the shipped set. */
static void test_local_override(void **state)
{
        _cleanup_free_ char *root = NULL, *dir = NULL, *path = NULL, *shipped = NULL, *error = NULL,
                            *local_error = NULL, *cmd = NULL;
        _cleanup_(quirk_db_freep) QuirkDb *db = NULL;
        char template[] = "/tmp/test-quirks-XXXXXX";
        size_t n_shipped;

        (void)state;
        root = strdup(mkdtemp(template));
        assert_non_null(root);
        assert_int_equal(quirk_local_dir(root, &dir), 0);
        assert_true(asprintf(&cmd, "mkdir -p '%s'", dir) > 0);
        assert_int_equal(system(cmd), 0);
        shipped = shipped_dir();

        assert_true(asprintf(&path, "%s/10-good.quirks", dir) > 0);
        write_file(path, "[Mine]\nMatchProductName=regex U-100\nConsoleSwitch=no\n");
        assert_int_equal(quirk_db_load(root, shipped, &names, &db, &error, &local_error), 0);
        assert_null(error);
        assert_null(local_error);
        assert_int_equal(db->n_local_files, 1);
        assert_string_equal(db->sections[db->n_sections - 1].name, "Mine");
        assert_true(db->sections[db->n_sections - 1].local);
        n_shipped = db->n_sections - 1;
        quirk_db_free(TAKE_PTR(db));

        free(path);
        assert_true(asprintf(&path, "%s/20-typo.quirks", dir) > 0);
        write_file(path, "[Typo]\nMatchProductName=regex U-100\nConsoleSwich=no\n");
        assert_int_equal(quirk_db_load(root, shipped, &names, &db, &error, &local_error), 0);
        assert_null(error);
        assert_non_null(local_error);
        assert_non_null(strstr(local_error, "20-typo.quirks:3: unknown key 'ConsoleSwich' in [Typo] (did you mean "
                                            "'ConsoleSwitch'?)"));
        assert_int_equal(db->n_local_files, 0);
        assert_int_equal(db->n_sections, n_shipped);
        for (size_t i = 0; i < db->n_sections; i++)
                assert_false(db->sections[i].local);

        free(cmd);
        assert_true(asprintf(&cmd, "rm -rf '%s'", root) > 0);
        assert_int_equal(system(cmd), 0);
}

static char *machine_root(const char *name)
{
        char *p = NULL;

        assert_true(asprintf(&p, "%s/machines/%s", data_dir, name) > 0);
        return p;
}

static void test_dmi_read(void **state)
{
        _cleanup_free_ char *root = machine_root("msi-wind-u100"), *other = machine_root("cirrus-nodriver");
        DmiInfo dmi;

        (void)state;
        assert_int_equal(dmi_read(root, &dmi), 0);
        assert_true(dmi.present);
        assert_string_equal(dmi.fields[DMI_SYS_VENDOR], "MICRO-STAR INTERNATIONAL CO., LTD");
        assert_string_equal(dmi.fields[DMI_PRODUCT_NAME], "U-100");
        assert_string_equal(dmi.fields[DMI_BIOS_DATE], "06/05/2008");
        assert_non_null(strstr(dmi.modalias, ":svnMICRO-STARINTERNATIONALCO.,LTD:pnU-100:"));
        assert_int_equal(dmi_read(other, &dmi), 0);
        assert_false(dmi.present);
        assert_string_equal(dmi.fields[DMI_SYS_VENDOR], "");
}

/* The survey of the fake machine at root with the quirk database db. */
static Survey *survey_machine(const char *root, const QuirkDb *db)
{
        Survey *s = NULL;

        assert_int_equal(survey_run(&(SurveyConfig){ .root = root, .pci_source = pci_source_sysfs,
                                                     .classify_env = { .root = root, .legacy_io = 1 },
                                                     .console_switch = true, .quirks = db },
                                    &s),
                         0);
        return s;
}

/* The seed machine through the survey with the shipped set: the U100 entry applies to the
 * 945GSE (and not to its second function), the plan holds intel. */
static void test_survey_u100(void **state)
{
        _cleanup_free_ char *root = machine_root("msi-wind-u100"), *dir = shipped_dir(), *error = NULL;
        _cleanup_(quirk_db_freep) QuirkDb *db = NULL;
        _cleanup_(survey_freep) Survey *s = NULL;
        QuirkMethodNames table = survey_method_names();
        const SurveyDevice *gfx = NULL, *second = NULL;
        bool seed = false;
        char plan[256];

        (void)state;
        assert_int_equal(quirk_db_new(&db), 0);
        if (quirk_db_load_dir(db, dir, false, &table, &error) < 0)
                fail_msg("%s", error);
        s = survey_machine(root, db);
        for (size_t i = 0; i < s->n; i++) {
                if (streq(s->devices[i].device.slot, "0000:00:02.0"))
                        gfx = &s->devices[i];
                if (streq(s->devices[i].device.slot, "0000:00:02.1"))
                        second = &s->devices[i];
        }
        if (!gfx || !second) {
                fail_msg("msi-wind-u100: 00:02.0 or 00:02.1 not surveyed");
                return;
        }
        assert_true(gfx->primary);
        for (size_t i = 0; i < gfx->quirks.n_hits; i++)
                if (streq(gfx->quirks.hits[i]->name, "MSI Wind U100"))
                        seed = true;
        assert_true(seed);
        assert_string_equal(gfx->quirks.add_methods[0], "intel");
        survey_plan_names(gfx, plan, sizeof(plan));
        assert_non_null(strstr(plan, "intel"));
        assert_int_equal(second->quirks.n_hits, 0);
}

/* An on-demand method (vbe) joins the default plan when a quirk asks for it, as if Methods=
 * named it (where the build can run it), and the device's settings say so; without the
 * quirk it stays out. */
static void test_survey_quirk_adds_vbe(void **state)
{
        _cleanup_free_ char *root = machine_root("msi-wind-u100"), *error = NULL;
        QuirkMethodNames table = survey_method_names();
        char plan[256];

        (void)state;
        if (!method_by_name("vbe"))
                fail_msg("this build's method table has no vbe method");
        for (int with = 0; with <= 1; with++) {
                _cleanup_(quirk_db_freep) QuirkDb *db = NULL;
                _cleanup_(survey_freep) Survey *s = NULL;
                const SurveyDevice *gfx = NULL;

                assert_int_equal(quirk_db_new(&db), 0);
                if (with && quirk_db_parse_string(db, "[Post]\nMatchProductName=regex ^U-100$\nVBEPost=yes\n",
                                                  "t.quirks", false, &table, &error) < 0)
                        fail_msg("%s", error);
                s = survey_machine(root, db);
                for (size_t i = 0; i < s->n; i++)
                        if (streq(s->devices[i].device.slot, "0000:00:02.0"))
                                gfx = &s->devices[i];
                assert_non_null(gfx);
                survey_plan_names(gfx, plan, sizeof(plan));
                /* A build without libx86emu has the method but it applies nowhere. */
                if ((with && vbe_emu_available()) != (strstr(plan, "vbe") != NULL))
                        fail_msg("%s the quirk (emulator %s), plan is '%s'", with ? "with" : "without",
                                 vbe_emu_available() ? "built" : "not built", plan);
                assert_int_equal(gfx->device.settings.vbe_post, with);
                assert_int_equal(gfx->device.settings.vbe_named, with);
        }
}

int main(int argc, char *argv[])
{
        const struct CMUnitTest tests[] = {
                cmocka_unit_test(test_parse),          cmocka_unit_test(test_errors),
                cmocka_unit_test(test_match),          cmocka_unit_test(test_resolve),
                cmocka_unit_test(test_shipped),        cmocka_unit_test(test_local_override),
                cmocka_unit_test(test_dmi_read),       cmocka_unit_test(test_survey_u100),
                cmocka_unit_test(test_survey_quirk_adds_vbe), cmocka_unit_test(test_textmatch),
                cmocka_unit_test(test_shipped_textmatch),
        };

        if (argc < 2) {
                fprintf(stderr, "usage: %s TESTDATA_DIR\n", argv[0]);
                return 2;
        }
        data_dir = argv[1];
        return cmocka_run_group_tests(tests, NULL, NULL);
}
