// PortalRequest: one call to an xdg-desktop-portal method that answers through a Request object
// (the method returns the Request's path; its Response signal carries the outcome), on any bus.
#include "desktop/portal_request.h"

#include <QDBusConnectionInterface>
#include <QDBusMessage>
#include <QDBusObjectPath>
#include <QDBusPendingCallWatcher>
#include <QDBusPendingReply>
#include <QDBusReply>
#include <QGuiApplication>
#include <atomic>
#include <utility>

namespace earshot::app {

namespace {

constexpr char kRequestInterface[] = "org.freedesktop.portal.Request";

}  // namespace

bool wayland_desktop() {
    const QString platform = QGuiApplication::platformName();
    if (platform == QLatin1String("wayland")) return true;
    return platform != QLatin1String("xcb") && !qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY");
}

bool portal_on_bus(const QDBusConnection& bus) {
    if (!bus.isConnected() || bus.interface() == nullptr) return false;
    const QDBusReply<bool> owned =
        bus.interface()->isServiceRegistered(QLatin1String(kPortalService));
    return owned.isValid() && owned.value();
}

QString portal_sender_element(const QDBusConnection& bus) {
    QString name = bus.baseService();
    if (name.startsWith(QLatin1Char(':'))) name.remove(0, 1);
    return name.replace(QLatin1Char('.'), QLatin1Char('_'));
}

QString PortalRequest::newToken() {
    static std::atomic<int> next{0};
    return QStringLiteral("earshot_%1").arg(next.fetch_add(1) + 1);
}

PortalRequest::PortalRequest(const QDBusConnection& bus, QObject* context, Done done)
    : QObject(context), m_bus(bus), m_done(std::move(done)) {}

void PortalRequest::call(const QDBusConnection& bus, const QString& interface,
                         const QString& method, QVariantList arguments, int optionsIndex,
                         QObject* context, Done done) {
    auto* request = new PortalRequest(bus, context, std::move(done));
    const QString token = newToken();
    QVariantMap options = arguments.value(optionsIndex).toMap();
    options.insert(QStringLiteral("handle_token"), token);
    arguments[optionsIndex] = options;
    // The Request's path is known before the call: listening first cannot miss a Response that
    // comes right after the reply.
    request->listen(QStringLiteral("%1/request/%2/%3")
                        .arg(QLatin1String(kPortalPath), portal_sender_element(bus), token));
    QDBusMessage message = QDBusMessage::createMethodCall(
        QLatin1String(kPortalService), QLatin1String(kPortalPath), interface, method);
    message.setArguments(arguments);
    auto* watcher = new QDBusPendingCallWatcher(bus.asyncCall(message), request);
    connect(watcher, &QDBusPendingCallWatcher::finished, request,
            [request](QDBusPendingCallWatcher* call) {
                call->deleteLater();
                const QDBusPendingReply<QDBusObjectPath> reply = *call;
                if (reply.isError()) {
                    PortalReply failed;
                    failed.error = reply.error().message().isEmpty() ? reply.error().name()
                                                                     : reply.error().message();
                    request->finish(failed);
                    return;
                }
                // Portals before version 0.9 chose the path themselves.
                const QString path = reply.value().path();
                if (path != request->m_path) request->listen(path);
            });
}

void PortalRequest::listen(const QString& path) {
    if (!m_path.isEmpty()) {
        m_bus.disconnect(QLatin1String(kPortalService), m_path, QLatin1String(kRequestInterface),
                         QStringLiteral("Response"), this, SLOT(onResponse(uint, QVariantMap)));
    }
    m_path = path;
    m_bus.connect(QLatin1String(kPortalService), m_path, QLatin1String(kRequestInterface),
                  QStringLiteral("Response"), this, SLOT(onResponse(uint, QVariantMap)));
}

void PortalRequest::onResponse(uint response, const QVariantMap& results) {
    PortalReply reply;
    reply.response = response;
    reply.results = results;
    finish(reply);
}

void PortalRequest::finish(const PortalReply& reply) {
    if (m_finished) return;
    m_finished = true;
    m_bus.disconnect(QLatin1String(kPortalService), m_path, QLatin1String(kRequestInterface),
                     QStringLiteral("Response"), this, SLOT(onResponse(uint, QVariantMap)));
    Done done = std::move(m_done);
    deleteLater();
    if (done) done(reply);
}

}  // namespace earshot::app
