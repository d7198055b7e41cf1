/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * make bench: the host's floors for a VTL call round trip between two plane
 * threads.  Two threads hand a token back and forth through one shared
 * word, either spinning on it, the way polling plane threads do, or
 * sleeping on it with a futex, the least a sleeping thread's kick and
 * wake-up can cost.  The round trip is timed with the TSC (the tick that
 * TCG guests read).
 *
 *   bench-handoff ROUND_TRIPS [spin|futex]
 *       prints "handoff_ticks=N" (spin, the default) or "futex_ticks=N"
 *       per round trip
 */

#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <x86intrin.h>

static _Atomic unsigned int token;
static unsigned long round_trips;
static bool use_futex;

/* Waits until the token is @want: spinning, or asleep on the futex. */
static void wait_for(unsigned int want)
{
    unsigned int seen;

    while ((seen = atomic_load_explicit(&token, memory_order_acquire)) !=
           want) {
        if (use_futex) {
            syscall(SYS_futex, &token, FUTEX_WAIT_PRIVATE, seen, NULL, NULL,
                    0);
        } else {
            _mm_pause();
        }
    }
}

/* Hands the token over as @value, waking the other thread if it sleeps. */
static void hand_over(unsigned int value)
{
    atomic_store_explicit(&token, value, memory_order_release);
    if (use_futex) {
        syscall(SYS_futex, &token, FUTEX_WAKE_PRIVATE, 1, NULL, NULL, 0);
    }
}

static void *responder(void *arg)
{
    for (unsigned long i = 0; i < round_trips; i++) {
        wait_for(2 * i + 1);
        hand_over(2 * i + 2);
    }
    return NULL;
}

int main(int argc, char **argv)
{
    pthread_t thread;
    unsigned long long t0, t1;

    round_trips = argc > 1 ? strtoul(argv[1], NULL, 0) : 100000;
    use_futex = argc > 2 && !strcmp(argv[2], "futex");
    if (!round_trips || round_trips > 0x7fffffff ||
        (argc > 2 && !use_futex && strcmp(argv[2], "spin")) ||
        pthread_create(&thread, NULL, responder, NULL)) {
        fprintf(stderr, "usage: bench-handoff ROUND_TRIPS (1 to 2^31-1) "
                "[spin|futex]\n");
        return 1;
    }
    t0 = __rdtsc();
    for (unsigned long i = 0; i < round_trips; i++) {
        hand_over(2 * i + 1);
        wait_for(2 * i + 2);
    }
    t1 = __rdtsc();
    pthread_join(thread, NULL);
    printf("%s=%llu\n", use_futex ? "futex_ticks" : "handoff_ticks",
           (t1 - t0) / round_trips);
    return 0;
}
