/*
 * SPDX-License-Identifier: GPL-2.0-or-later
 *
 * Every QMP event of a window, for the planes qtests.  libqtest's event
 * waits (qtest_qmp_eventwait() and friends) drop the events of other
 * names that they read, and qtest_qmp() stashes the events it reads where
 * only those waits look: a test that must see that an event did not come,
 * or every event of a kind, reads the stream itself, here, up to a marker
 * that comes after anything the step under test can send.
 */

#ifndef TESTS_QTEST_PLANES_QMP_EVENTS_H
#define TESTS_QTEST_PLANES_QMP_EVENTS_H

#include "libqtest.h"
#include "qobject/qdict.h"
#include "qobject/qjson.h"
#include "qobject/qstring.h"

#define QMP_EVENT_TIMEOUT_S 60

/*
 * Sends a command and reads up to its response: the events read on the
 * way go to the end of *@events, in order.  Returns the response.
 */
static inline QDict * G_GNUC_PRINTF(3, 4)
qmp_collect(QTestState *qts, GList **events, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    qtest_qmp_vsend(qts, fmt, ap);
    va_end(ap);
    for (;;) {
        QDict *msg = qtest_qmp_receive_dict(qts);

        if (!qdict_haskey(msg, "event")) {
            return msg;
        }
        *events = g_list_append(*events, msg);
    }
}

typedef bool (*QmpEventMatch)(QDict *ev, const void *opaque);

static inline bool qmp_event_is(QDict *ev, const char *name,
                                QmpEventMatch match, const void *opaque)
{
    return !strcmp(qdict_get_str(ev, "event"), name) &&
           (!match || match(ev, opaque));
}

/* How many events named @name *@events holds. */
static inline unsigned int qmp_count_events(GList *events, const char *name)
{
    unsigned int n = 0;

    for (GList *l = events; l; l = l->next) {
        n += qmp_event_is(l->data, name, NULL, NULL);
    }
    return n;
}

static inline void qmp_log_events(GList *events)
{
    for (GList *l = events; l; l = l->next) {
        QDict *ev = l->data;
        g_autoptr(GString) json = qobject_to_json(QOBJECT(ev));

        g_test_message("event: %s", json->str);
    }
}

/*
 * Waits (bounded, and only while QEMU lives) until *@events holds an
 * event named @name that @match (if any) accepts, reading the stream into
 * *@events meanwhile; returns that event, still in the list.  Each read
 * ends at the answer to a query-status, so the wait cannot block for good
 * on an event that never comes.
 */
static inline QDict *qmp_wait_event(QTestState *qts, GList **events,
                                    const char *name, QmpEventMatch match,
                                    const void *opaque)
{
    gint64 end = g_get_monotonic_time() +
                 QMP_EVENT_TIMEOUT_S * G_TIME_SPAN_SECOND;

    for (bool first = true;; first = false) {
        QDict *resp;

        for (GList *l = *events; l; l = l->next) {
            if (qmp_event_is(l->data, name, match, opaque)) {
                return l->data;
            }
        }
        if (g_get_monotonic_time() > end || !qtest_probe_child(qts)) {
            g_test_message("no matching %s within %d s; events so far:",
                           name, QMP_EVENT_TIMEOUT_S);
            qmp_log_events(*events);
            g_assert_not_reached();
        }
        if (!first) {
            /* the poll interval of a bounded wait, as for serial output */
            g_usleep(10 * 1000);
        }
        resp = qmp_collect(qts, events, "{ 'execute': 'query-status' }");
        g_assert(qdict_haskey(resp, "return"));
        qobject_unref(resp);
    }
}

static inline void qmp_free_events(GList **events)
{
    g_list_free_full(*events, (GDestroyNotify)qdict_unref);
    *events = NULL;
}

#endif
