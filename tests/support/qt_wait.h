// Waiting in Qt tests: runs the event loop until a condition holds or a time limit passes.
#pragma once

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <functional>

namespace earshot::test {

// Processes events (10 ms at a time) until `done()` or `timeout_ms`; returns done().
inline bool spin_until(const std::function<bool()>& done, int timeout_ms) {
    QElapsedTimer clock;
    clock.start();
    while (!done() && clock.elapsed() < timeout_ms) {
        QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
    }
    return done();
}

}  // namespace earshot::test
