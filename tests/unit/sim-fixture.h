/* SPDX-License-Identifier: MIT */
/* The cmocka fixture the method and simulator tests share: a simulated std VGA, a handle
 * on it, and a payload buffer; plus printing the access log when a check fails. */
#pragma once

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "hw-sim.h"
#include "methods/method.h"

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

/* Two simulator states are the same (HW_SIM_DIFF_INDEXES: index registers too); prints the
 * differences when not. */
static inline void assert_no_diff(const HwSimVgaState *a, const HwSimVgaState *b, unsigned flags)
{
        _cleanup_(buffer_done) Buffer report = { 0 };
        size_t n = hw_sim_state_diff(a, b, flags, &report);
        if (n != 0)
                fprintf(stderr, "%zu differences:\n%s", n, buffer_str(&report));
        assert_int_equal(n, 0);
}

/* A malformed payload is refused by check(), restore(), verify() and dump() with
 * -EBADMSG, and none of them touches the device (the forbid switch would count it). */
static inline void assert_method_refuses_without_access(Fixture *f, const MethodOps *m, const uint8_t *p,
                                                        size_t len)
{
        _cleanup_(buffer_done) Buffer out = { 0 };

        assert_int_equal(m->check(p, len), -EBADMSG);
        hw_sim_log_clear(f->sim);
        hw_sim_set_forbid(f->sim, true);
        assert_int_equal(m->restore(f->hw, f->hw->device, p, len), -EBADMSG);
        assert_int_equal(m->verify(f->hw, f->hw->device, p, len, &out), -EBADMSG);
        assert_int_equal(m->dump(p, len, false, &out), -EBADMSG);
        assert_int_equal(m->dump(p, len, true, &out), -EBADMSG);
        hw_sim_set_forbid(f->sim, false);
        assert_int_equal(hw_sim_access_count(f->sim), 0);
        assert_int_equal(hw_sim_violations(f->sim), 0);
        assert_int_equal(out.size, 0);
}

/* Index of the first (or with last, the last) MMIO write to offset whose value has
 * (value & mask) == want, from log index from on; SIZE_MAX if none. */
static inline size_t log_find_mmio_write(HwSim *sim, size_t from, bool last, uint32_t offset, uint32_t mask,
                                         uint32_t want)
{
        const HwSimAccess *log;
        size_t n, found = SIZE_MAX;

        log = hw_sim_log(sim, &n);
        for (size_t i = from; i < n; i++)
                if (log[i].type == HW_SIM_MMIO_WRITE && log[i].offset == offset && (log[i].value & mask) == want) {
                        found = i;
                        if (!last)
                                break;
                }
        return found;
}

/* The microseconds of delay the code asked for between log entries a and b. */
static inline uint64_t log_delay_between(HwSim *sim, size_t a, size_t b)
{
        const HwSimAccess *log;
        uint64_t sum = 0;
        size_t n;

        log = hw_sim_log(sim, &n);
        for (size_t i = a; i < b && i < n; i++)
                if (log[i].type == HW_SIM_DELAY)
                        sum += log[i].value;
        return sum;
}

/* Log entry a (an index, SIZE_MAX for none) comes before b; prints the log when not. */
#define assert_before(sim, a, b)                                                                             \
        do {                                                                                                 \
                size_t a_ = (a), b_ = (b);                                                                   \
                if (a_ == SIZE_MAX || b_ == SIZE_MAX || a_ >= b_) {                                          \
                        print_log(sim);                                                                      \
                        fail_msg("expected %s (#%zd) before %s (#%zd)", #a, (ssize_t)a_, #b, (ssize_t)b_);   \
                }                                                                                            \
        } while (0)
