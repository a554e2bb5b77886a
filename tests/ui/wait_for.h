// waitFor: polls a condition while Qt runs its event loop (timers, queued signals), for the
// GoogleTest tests of widgets. QtTest's QTRY_* / QCOMPARE macros only `return` from the function on
// a mismatch, which does not fail a gtest test; assert on what waitFor returns instead.
#pragma once

#include <QDeadlineTimer>
#include <QTest>

namespace earshot::ui {

// Calls `ready` until it returns true (then true), processing events for 10 ms between calls
// (QTest::qWait), or until `timeoutMs` has passed (then false).
template <class Ready>
bool waitFor(Ready ready, int timeoutMs = 5000) {
    const QDeadlineTimer deadline(timeoutMs);
    while (!ready()) {
        if (deadline.hasExpired()) return false;
        QTest::qWait(10);
    }
    return true;
}

}  // namespace earshot::ui
