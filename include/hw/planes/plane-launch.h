/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * VM planes: -object plane-launch, a plane launched by the host at every
 * machine reset, before plane 0 runs.
 */

#ifndef HW_PLANES_PLANE_LAUNCH_H
#define HW_PLANES_PLANE_LAUNCH_H

/*
 * plane_launch_init: at board init, once the CPUs and planes exist: check
 * the -object plane-launch objects against the machine, place the region
 * and launch at every reset from then on.  False (*@errp set) on bad input.
 */
bool plane_launch_init(Error **errp);

#endif
