/* SPDX-License-Identifier: MIT */
/* The command-line actions. Actions that later work fills in say so plainly and
 * return UMS_EXIT_UNAVAILABLE: never pretend success. */
#include "actions.h"
#include "exit-codes.h"
#include "log.h"

static int not_available(const char *what)
{
        log_error("%s is not available in this version of umsrestore yet; nothing was done.", what);
        return UMS_EXIT_UNAVAILABLE;
}

int action_status(const ActionArgs *a)
{
        (void)a;
        return not_available("--status");
}

int action_save_now(const ActionArgs *a)
{
        (void)a;
        return not_available("--save-now");
}

int action_restore_now(const ActionArgs *a)
{
        (void)a;
        return not_available("--restore-now");
}

int action_dump(const ActionArgs *a)
{
        (void)a;
        return not_available("--dump");
}

int action_check_config(const ActionArgs *a)
{
        (void)a;
        return not_available("--check-config");
}

int action_daemon(const ActionArgs *a)
{
        (void)a;
        return not_available("The daemon mode");
}
