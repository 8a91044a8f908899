/* SPDX-License-Identifier: MIT */
/* Owns the survey of the machine: each PCI display device with its verdict, whether the
 * configuration allows it, and its plan. The one loop every caller uses. */
#include "survey.h"
#include "sysfs.h"

Survey *survey_free(Survey *s)
{
        if (!s)
                return NULL;
        free(s->devices);
        free(s);
        return NULL;
}

bool survey_device_allowed(const SurveyConfig *c, const DisplayDevice *d)
{
        return !c->config || config_device_managed(c->config, d);
}

QuirkMethodNames survey_method_names(void)
{
        static const char *names[32];
        size_t n = 0;

        for (size_t i = 0; i < method_table_size && n < ELEMENTSOF(names); i++)
                if (method_table[i])
                        names[n++] = method_table[i]->name;
        return (QuirkMethodNames){ .names = names, .n = n };
}

static bool quirk_on(const QuirkResult *q, QuirkAttr a)
{
        return q && q->values[a] > 0;
}

void survey_device_settings(const SurveyConfig *c, const QuirkResult *q, DisplayDevice *d)
{
        const char *selected[PLAN_MAX];
        size_t n;
        int v;

        d->settings = (struct DeviceSettings){
                .vbe_post = quirk_on(q, QUIRK_VBE_POST),
                .uefi_boot = sysfs_exists(c->root, "/sys/firmware/efi"),
                .vbe_mode = quirk_on(q, QUIRK_VBE_MODE),
                .vbe_state = quirk_on(q, QUIRK_VBE_STATE),
                .dpms_on = quirk_on(q, QUIRK_DPMS_ON),
                .dpms_suspend = quirk_on(q, QUIRK_DPMS_SUSPEND),
                .backlight_reset = quirk_on(q, QUIRK_BACKLIGHT_RESET),
                .radeon_light = quirk_on(q, QUIRK_RADEON_LIGHT),
                .acpi_video_flags = q && q->values[QUIRK_ACPI_VIDEO_FLAGS] > 0 ? (unsigned)q->values[QUIRK_ACPI_VIDEO_FLAGS] : 0,
        };
        for (size_t i = 0; q && i < q->n_add_methods; i++)
                if (streq(q->add_methods[i], "vbe"))
                        d->settings.vbe_named = true;
        if (!c->config)
                return;
        v = config_device_vbe_post_setting(c->config, d);
        if (v >= 0)
                d->settings.vbe_post = v > 0;
        n = config_device_methods(c->config, d, selected, PLAN_MAX);
        if (n > 0)
                d->settings.vbe_named = false;
        for (size_t i = 0; i < n; i++)
                if (streq(selected[i], "vbe"))
                        d->settings.vbe_named = true;
}

static bool name_listed(const char *name, const char *const *list, size_t n)
{
        for (size_t i = 0; i < n; i++)
                if (streq(list[i], name))
                        return true;
        return false;
}

/* The console switch: --no-console-switch, then ConsoleSwitch= of the configuration if it is
 * set, then a quirk's, then on. */
static bool console_wanted(const SurveyConfig *c, const QuirkResult *q)
{
        if (!c->console_switch)
                return false;
        if (c->config && c->config->console_switch_set)
                return c->config->console_switch;
        if (q && q->values[QUIRK_CONSOLE_SWITCH] >= 0)
                return q->values[QUIRK_CONSOLE_SWITCH] > 0;
        return !c->config || c->config->console_switch;
}

/* Whether the quirks q ask for m by name (AddMethods=, or an attribute that needs it); only
 * without a configured Methods= list, which has the last word. */
static bool quirk_named(const QuirkResult *q, const MethodOps *m, size_t n_selected)
{
        return n_selected == 0 && q && name_listed(m->name, q->add_methods, q->n_add_methods);
}

/* Whether m is one of the methods the configuration (or, without Methods=, the default plan
 * with the quirks' additions and removals) wants for d, leaving aside on-demand methods in a
 * default plan. */
static bool plan_wants(const SurveyConfig *c, const QuirkResult *q, const DisplayDevice *d, const MethodOps *m,
                       const char *const *selected, size_t n_selected)
{
        bool wanted = n_selected == 0;

        for (size_t j = 0; j < n_selected && !wanted; j++)
                wanted = streq(selected[j], m->name);
        if (n_selected == 0 && q && name_listed(m->name, q->remove_methods, q->n_remove_methods))
                wanted = false;
        wanted = wanted || quirk_named(q, m, n_selected);
        if (!wanted || (!console_wanted(c, q) && streq(m->name, "console")))
                return false;
        /* A function of another's display engine: only what belongs to the function. */
        if (d->engine_slot[0] && !m->function_local)
                return false;
        /* A method the quirks ask for runs where it applies, like one named in Methods=. */
        return !m->applies || m->applies(d);
}

size_t survey_plan(const SurveyConfig *c, const QuirkResult *q, const DisplayDevice *d, unsigned mode,
                   const MethodOps *ret[static PLAN_MAX])
{
        const char *selected[PLAN_MAX];
        size_t n = 0, n_selected = 0;
        unsigned covered = 0;

        if (!verdict_is_managed(d->verdict) || !survey_device_allowed(c, d))
                return 0;
        if (c->config)
                n_selected = config_device_methods(c->config, d, selected, PLAN_MAX);

        /* What the plan brings back without the on-demand methods. */
        for (size_t i = 0; i < method_table_size; i++) {
                const MethodOps *m = method_table[i];

                if (m && m->modes && (!m->on_demand || n_selected > 0 || quirk_named(q, m, n_selected)) &&
                    plan_wants(c, q, d, m, selected, n_selected))
                        covered |= m->modes(d);
        }
        for (size_t i = 0; i < method_table_size && n < PLAN_MAX; i++) {
                const MethodOps *m = method_table[i];

                if (!m || !plan_wants(c, q, d, m, selected, n_selected))
                        continue;
                if (m->on_demand && n_selected == 0 && !quirk_named(q, m, n_selected) &&
                    !(mode && !(covered & mode) && m->modes && (m->modes(d) & mode)))
                        continue;
                ret[n++] = m;
        }
        return n;
}

void survey_plan_names(const SurveyDevice *d, char *buf, size_t size)
{
        size_t len = 0;

        if (size == 0)
                return;
        buf[0] = '\0';
        for (size_t i = 0; i < d->n_plan && len < size; i++)
                len += (size_t)snprintf(buf + len, size - len, "%s%s", i ? ", " : "", d->plan[i]->name);
}

const char *survey_role_to_string(SurveyRole r)
{
        switch (r) {
        case SURVEY_MANAGED:
                return "managed";
        case SURVEY_HANDS_OFF:
                return "hands-off";
        case SURVEY_EXCLUDED:
                return "excluded";
        case SURVEY_NOT_CHOSEN:
                return "not-chosen";
        }
        return "?";
}

unsigned survey_console_mode(const char *console, const DisplayDevice *d, size_t n_devices)
{
        if (!console || !d || !(d->boot_vga || n_devices == 1))
                return 0;
        if (streq(console, "vesafb") || streq(console, "efifb") || streq(console, "simpledrm"))
                return METHOD_MODE_LINEAR;
        if (streq(console, "vgacon") || streq(console, "vga16fb"))
                return METHOD_MODE_VGA;
        return 0;
}

const char *survey_mode_to_string(unsigned mode)
{
        switch (mode) {
        case METHOD_MODE_VGA:
                return "vga";
        case METHOD_MODE_LINEAR:
                return "linear";
        }
        return NULL;
}

static unsigned plan_modes(const DisplayDevice *d, const MethodOps *const *plan, size_t n)
{
        unsigned modes = 0;

        for (size_t i = 0; i < n; i++)
                if (plan[i] && plan[i]->modes)
                        modes |= plan[i]->modes(d);
        return modes;
}

void survey_mode_note(const SurveyDevice *sd, const char *console, char *buf, size_t size)
{
        const DisplayDevice *d = &sd->device;
        const char *would = NULL;

        for (size_t i = 0; i < method_table_size && !would; i++)
                if (method_table[i] && method_table[i]->modes && (method_table[i]->modes(d) & sd->mode))
                        would = method_table[i]->name;
        snprintf(buf, size,
                 "its %s console runs a %s mode that no planned method brings back: the screen will stay "
                 "dark after sleep (%s%s%s)",
                 console && console[0] ? console : "firmware",
                 sd->mode == METHOD_MODE_LINEAR ? "linear frame buffer (VESA/UEFI GOP)" : "VGA",
                 would ? "the " : "no built-in method can restore it on ", would ? would : "this device",
                 would ? " method would: add it to Methods=" : "");
}

/* The display device whose video BIOS the firmware runs: the boot VGA one, else the only
 * display device that is not part of another's engine. */
static bool survey_is_primary(const DeviceList *l, const DisplayDevice *d)
{
        size_t n_displays = 0;

        if (d->engine_slot[0])
                return false;
        if (d->boot_vga)
                return true;
        for (size_t i = 0; i < l->n; i++) {
                if (l->devices[i].boot_vga)
                        return false;
                if (!l->devices[i].engine_slot[0])
                        n_displays++;
        }
        return n_displays == 1;
}

/* The methods q asks for by name that the method table lacks, "vbe, radeon". */
static void quirk_methods_missing(const QuirkResult *q, char *buf, size_t size)
{
        size_t len = 0;

        buf[0] = '\0';
        for (size_t i = 0; i < q->n_add_methods && len < size; i++)
                if (!method_by_name(q->add_methods[i]))
                        len += (size_t)snprintf(buf + len, size - len, "%s%s", len ? ", " : "", q->add_methods[i]);
}

int survey_run(const SurveyConfig *c, Survey **ret)
{
        _cleanup_(device_list_freep) DeviceList *l = NULL;
        _cleanup_(survey_freep) Survey *s = NULL;
        const DisplayDevice *only = NULL;
        int r;

        if (!c || !ret)
                return -EINVAL;
        r = devices_discover(c->root, c->pci_source, &l);
        if (r < 0)
                return r;
        classify_devices(&c->classify_env, l);
        if (c->only_device) {
                only = device_list_find(l, c->only_device);
                if (!only)
                        return -ENODEV;
        }

        s = calloc(1, sizeof(*s));
        if (!s)
                return -ENOMEM;
        classify_console(c->root, s->console, sizeof(s->console));
        r = dmi_read(c->root, &s->dmi);
        if (r < 0)
                return r;
        if (l->n > 0) {
                s->devices = calloc(l->n, sizeof(SurveyDevice));
                if (!s->devices)
                        return -ENOMEM;
        }
        for (size_t i = 0; i < l->n; i++) {
                SurveyDevice *sd = &s->devices[s->n++];
                const DisplayDevice *d = &l->devices[i];

                sd->device = *d;
                sd->mode = survey_console_mode(s->console, d, l->n);
                sd->primary = survey_is_primary(l, d);
                quirk_resolve(c->quirks, &s->dmi, d, sd->primary, &sd->quirks);
                quirk_methods_missing(&sd->quirks, sd->quirk_methods_missing, sizeof(sd->quirk_methods_missing));
                if (d->verdict == VERDICT_KMS)
                        s->n_kms++;
                if (d->verdict == VERDICT_UNUSABLE)
                        s->n_unusable++;
                if (only && d != only)
                        sd->role = SURVEY_NOT_CHOSEN;
                else if (!verdict_is_managed(d->verdict))
                        sd->role = SURVEY_HANDS_OFF; /* kms, foreign, unusable: no hardware access at all */
                else if (!survey_device_allowed(c, d))
                        sd->role = SURVEY_EXCLUDED;
                else {
                        survey_device_settings(c, &sd->quirks, &sd->device);
                        sd->role = SURVEY_MANAGED;
                        sd->n_plan = survey_plan(c, &sd->quirks, &sd->device, sd->mode, sd->plan);
                        s->n_managed++;
                        if (sd->primary && sd->device.settings.acpi_video_flags) {
                                s->acpi_video_flags = sd->device.settings.acpi_video_flags;
                                s->acpi_from = sd->quirks.from[QUIRK_ACPI_VIDEO_FLAGS];
                        }
                        if (sd->mode && !(plan_modes(&sd->device, sd->plan, sd->n_plan) & sd->mode)) {
                                sd->mode_unrestored = true;
                                survey_mode_note(sd, s->console, sd->mode_note, sizeof(sd->mode_note));
                        }
                }
        }
        *ret = TAKE_PTR(s);
        return 0;
}
