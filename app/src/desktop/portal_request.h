// PortalRequest: one call to an xdg-desktop-portal method that answers through a Request object
// (the method returns the Request's path; its Response signal carries the outcome), on any bus.
#pragma once

#include <QDBusConnection>
#include <QObject>
#include <QString>
#include <QVariantList>
#include <QVariantMap>
#include <functional>

namespace earshot::app {

// The portal frontend's names (xdg-desktop-portal's D-Bus API).
inline constexpr char kPortalService[] = "org.freedesktop.portal.Desktop";
inline constexpr char kPortalPath[] = "/org/freedesktop/portal/desktop";

// How a portal request ended: Request::Response's code (0 success, 1 cancelled by the user,
// 2 ended another way) and results; `error` is the D-Bus error when the method call itself failed
// (no portal, no such interface), and then `response` is 2.
struct PortalReply {
    uint response = 2;
    QVariantMap results;
    QString error;
    bool ok() const { return error.isEmpty() && response == 0; }
};

// A Wayland session, where the portals take the place of X11's key grabs and XTest: Qt runs on
// Wayland, or WAYLAND_DISPLAY is set and Qt does not run on X11.
bool wayland_desktop();

// Whether some process owns the portal's bus name on `bus` (asks the bus daemon only).
bool portal_on_bus(const QDBusConnection& bus);

// The part of request and session paths that names the caller: the bus's unique name without
// its ':' and with '.' as '_' (":1.42" -> "1_42").
QString portal_sender_element(const QDBusConnection& bus);

class PortalRequest : public QObject {
    Q_OBJECT

public:
    using Done = std::function<void(const PortalReply&)>;

    // Calls `interface`.`method` on the portal with `arguments`, after adding a fresh
    // handle_token to the options map at `optionsIndex`; `done` runs once, on this thread, when
    // the Response arrives or the call fails. It is dropped when `context` goes away.
    static void call(const QDBusConnection& bus, const QString& interface, const QString& method,
                     QVariantList arguments, int optionsIndex, QObject* context, Done done);

    // A token unique in this process for handle_token / session_handle_token ("earshot_7").
    static QString newToken();

private Q_SLOTS:
    void onResponse(uint response, const QVariantMap& results);

private:
    PortalRequest(const QDBusConnection& bus, QObject* context, Done done);
    void listen(const QString& path);
    void finish(const PortalReply& reply);

    QDBusConnection m_bus;
    QString m_path;  // the Request object whose Response this waits for
    Done m_done;
    bool m_finished = false;
};

}  // namespace earshot::app
