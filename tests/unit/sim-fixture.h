/* SPDX-License-Identifier: MIT */
/* The cmocka fixture the method and simulator tests share: a simulated std VGA, a handle
 * on it, and a payload buffer; plus printing the access log when a check fails. */
#pragma once

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "hw/hw-sim.h"

typedef struct Fixture {
        HwSim *sim;
        Hw *hw;
        Buffer payload;
} Fixture;

static inline int setup(void **state)
{
        Fixture *f = calloc(1, sizeof(Fixture));
        assert_non_null(f);
        assert_int_equal(hw_sim_new(NULL, &f->sim, &f->hw), 0);
        *state = f;
        return 0;
}

static inline int teardown(void **state)
{
        Fixture *f = *state;
        buffer_done(&f->payload);
        hw_free(f->hw);
        hw_sim_unref(f->sim);
        free(f);
        return 0;
}

/* Prints the access log, for an assertion about to fail on it. */
static inline void print_log(HwSim *sim)
{
        _cleanup_(buffer_done) Buffer b = { 0 };
        assert_int_equal(hw_sim_log_format(sim, &b), 0);
        fprintf(stderr, "%s", buffer_str(&b));
}
