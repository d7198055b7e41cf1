/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: what every hypercall handler shares: the names of the calls
 * and how a call is refused (traced always, logged rate-limited).
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qemu/log.h"
#include "qemu/timer.h"
#include "hw/planes/planes-abi.h"
#include "plane-dispatch.h"
#include "plane-stats.h"
#include "trace.h"

const char *plane_hc_name(uint64_t nr)
{
    static const char *const names[] = {
        [PLANES_HC_CONFIG] = "CONFIG",
        [PLANES_HC_ACTIVATE] = "ACTIVATE",
        [PLANES_HC_VTL_CALL] = "VTL_CALL",
        [PLANES_HC_VTL_RETURN] = "VTL_RETURN",
        [PLANES_HC_SET_MEM_ATTRS] = "SET_MEM_ATTRS",
        [PLANES_HC_ENABLE_VCPU] = "ENABLE_VCPU",
    };

    return nr >= PLANES_HC_FIRST && nr <= PLANES_HC_LAST ? names[nr]
                                                          : "unknown";
}

/*
 * A refused call: trace it always, log it under -d guest_errors at most
 * PLANE_LOG_BURST times a second (a guest can loop on a bad call).
 */
#define PLANE_LOG_BURST 10

/* Whether a refused CONFIG or ACTIVATE was reported on stderr (BQL). */
static bool plane_setup_refusal_reported;

int64_t G_GNUC_PRINTF(3, 4)
plane_hc_refuse(const PlaneCaller *c, int err, const char *fmt, ...)
{
    /* Covered by the BQL, which every plane hypercall holds. */
    static int64_t window_start;
    static unsigned int logged;
    g_autofree char *why = NULL;
    int64_t now = qemu_clock_get_ms(QEMU_CLOCK_REALTIME);
    va_list ap;

    va_start(ap, fmt);
    why = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    trace_plane_hypercall_refused(plane_hc_name(c->hc->nr), c->plane,
                                  c->index, -err, why);
    /* A VTL call is refused for plane 1, a VTL return for the caller */
    if (c->hc->nr == PLANES_HC_VTL_CALL) {
        plane_stats_vtl_refused(c->set, 1);
    } else if (c->hc->nr == PLANES_HC_VTL_RETURN) {
        plane_stats_vtl_refused(c->set, c->plane);
    }
    if (now - window_start >= 1000) {
        window_start = now;
        logged = 0;
    }
    /*
     * A refused CONFIG or ACTIVATE leaves the VM without its secure plane:
     * the first of a run is said without -d guest_errors (once, so a
     * guest cannot flood stderr with it).
     */
    if (!plane_setup_refusal_reported &&
        (c->hc->nr == PLANES_HC_CONFIG || c->hc->nr == PLANES_HC_ACTIVATE)) {
        plane_setup_refusal_reported = true;
        warn_report("planes: %s from plane %u on vCPU %u refused (-%d): %s",
                    plane_hc_name(c->hc->nr), c->plane, c->index, err, why);
    }
    if (logged++ < PLANE_LOG_BURST) {
        qemu_log_mask(LOG_GUEST_ERROR, "planes: %s from plane %u on vCPU %u "
                      "refused (-%d): %s\n", plane_hc_name(c->hc->nr),
                      c->plane, c->index, err, why);
    }
    return -err;
}
