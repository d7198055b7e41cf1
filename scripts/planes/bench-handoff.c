/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * make bench: the host's floor for a VTL call round trip between two plane
 * threads.  Two threads hand a token back and forth through one shared
 * word by spinning, the way polling plane threads do, and the round trip
 * is timed with the TSC (the tick that TCG guests read).
 *
 *   bench-handoff ROUND_TRIPS   prints "handoff_ticks=N" per round trip
 */

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <x86intrin.h>

static _Atomic unsigned long token;
static unsigned long round_trips;

static void *responder(void *arg)
{
    for (unsigned long i = 0; i < round_trips; i++) {
        while (atomic_load_explicit(&token, memory_order_acquire) != 2 * i + 1) {
            _mm_pause();
        }
        atomic_store_explicit(&token, 2 * i + 2, memory_order_release);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t thread;
    unsigned long long t0, t1;

    round_trips = argc > 1 ? strtoul(argv[1], NULL, 0) : 100000;
    if (!round_trips || pthread_create(&thread, NULL, responder, NULL)) {
        fprintf(stderr, "usage: bench-handoff ROUND_TRIPS (at least 1)\n");
        return 1;
    }
    t0 = __rdtsc();
    for (unsigned long i = 0; i < round_trips; i++) {
        atomic_store_explicit(&token, 2 * i + 1, memory_order_release);
        while (atomic_load_explicit(&token, memory_order_acquire) != 2 * i + 2) {
            _mm_pause();
        }
    }
    t1 = __rdtsc();
    pthread_join(thread, NULL);
    printf("handoff_ticks=%llu\n", (t1 - t0) / round_trips);
    return 0;
}
