// DbusApplication: the session-bus name and object, org.freedesktop.Application's three methods
// mapped onto the instance socket's requests, and the committed-text signals.
#include "desktop/dbus_application.h"

#include <QDBusConnectionInterface>
#include <QDBusMessage>
#include <QDBusReply>
#include <QDBusVariant>
#include <QFileInfo>
#include <QUrl>

#include "desktop/instance_requests.h"
#include "earshot/ui/files/files_queue.h"
#include "earshot/ui/live/live_types.h"
#include "earshot/ui/main_window.h"
#include "gui/gui_controller.h"
#include "gui/live/live_bridge.h"

namespace earshot::app {

namespace {

constexpr char kInvalidArgs[] = "org.freedesktop.DBus.Error.InvalidArgs";

// ActivateAction's names and what each asks of the running window.
struct ActionName {
    const char* name;
    InstanceAction action;
};
constexpr ActionName kActions[] = {{"ToggleDictation", InstanceAction::toggle},
                                   {"StartDictation", InstanceAction::start},
                                   {"StopDictation", InstanceAction::stop}};

}  // namespace

bool session_bus_configured() {
    if (!qEnvironmentVariableIsEmpty("DBUS_SESSION_BUS_ADDRESS")) return true;
    const QString runtime = qEnvironmentVariable("XDG_RUNTIME_DIR");
    return !runtime.isEmpty() && QFileInfo::exists(runtime + QStringLiteral("/bus"));
}

DbusApplication::DbusApplication(const QDBusConnection& bus, QObject* parent)
    : QObject(parent), m_bus(bus) {
    new DbusApplicationAdaptor(this);
    new DbusDictationAdaptor(this);
}

DbusApplication::~DbusApplication() {
    if (!m_registered) return;
    m_bus.unregisterService(QLatin1String(kDbusName));
    m_bus.unregisterObject(QLatin1String(kDbusPath));
}

QString DbusApplication::registerOnBus() {
    if (!m_bus.isConnected()) {
        return tr("no session bus (%1)").arg(m_bus.lastError().message());
    }
    if (!m_bus.registerObject(QLatin1String(kDbusPath), this, QDBusConnection::ExportAdaptors)) {
        return tr("cannot export %1 on the session bus").arg(QLatin1String(kDbusPath));
    }
    const QDBusReply<QDBusConnectionInterface::RegisterServiceReply> owned =
        m_bus.interface()->registerService(QLatin1String(kDbusName),
                                           QDBusConnectionInterface::DontQueueService,
                                           QDBusConnectionInterface::DontAllowReplacement);
    if (!owned.isValid() || owned.value() != QDBusConnectionInterface::ServiceRegistered) {
        m_bus.unregisterObject(QLatin1String(kDbusPath));
        return owned.isValid()
                   ? tr("another Earshot owns %1 on the session bus").arg(QLatin1String(kDbusName))
                   : tr("cannot take the name %1 (%2)")
                         .arg(QLatin1String(kDbusName), owned.error().message());
    }
    m_registered = true;
    return {};
}

void DbusApplication::publish(const ui::LiveTextUpdate& update) {
    if (update.erasedChars > 0) Q_EMIT retracted(static_cast<uint>(update.erasedChars));
    if (!update.committedText.isEmpty()) Q_EMIT committed(update.committedText);
}

DbusApplication::Refusal DbusApplication::activate() {
    if (m_handlers.activate) m_handlers.activate();
    return {};
}

DbusApplication::Refusal DbusApplication::open(const QStringList& uris) {
    QStringList files;
    for (const QString& uri : uris) {
        const QUrl url(uri);
        // A plain path is taken as the file it names, as a command line would.
        const QString file = url.isLocalFile()        ? url.toLocalFile()
                             : url.scheme().isEmpty() ? uri
                                                      : QString();
        if (file.isEmpty()) {
            return {tr("Earshot opens local files only, not %1").arg(uri), true};
        }
        if (!QFileInfo(file).isFile()) return {tr("no such file: %1").arg(file), true};
        files << QFileInfo(file).absoluteFilePath();
    }
    if (files.isEmpty()) return {tr("Open was given no files"), true};
    return {m_handlers.open ? m_handlers.open(files) : QString(), false};
}

DbusApplication::Refusal DbusApplication::activateAction(const QString& name,
                                                         const QVariantList& parameter) {
    const ActionName* found = nullptr;
    for (const ActionName& action : kActions) {
        if (name == QLatin1String(action.name)) found = &action;
    }
    if (found == nullptr) {
        return {tr("unknown action \"%1\" (ToggleDictation, StartDictation or StopDictation)")
                    .arg(name),
                true};
    }
    InstanceRequest request{found->action, {}};
    if (parameter.size() > 1) return {tr("%1 takes at most one parameter").arg(name), true};
    if (!parameter.isEmpty()) {
        // The audio file to dictate from, as `earshot start --input FILE` gives it.
        QVariant value = parameter.front();
        if (value.userType() == qMetaTypeId<QDBusVariant>()) {
            value = value.value<QDBusVariant>().variant();
        }
        if (found->action == InstanceAction::stop || value.typeId() != QMetaType::QString) {
            return {tr("%1's parameter is the path of an audio file (a string)").arg(name), true};
        }
        request.input = QFileInfo(value.toString()).absoluteFilePath();
        if (!QFileInfo(request.input).isFile()) {
            return {tr("no such file: %1").arg(request.input), true};
        }
    }
    if (!m_handlers.dictation) return {tr("dictation is not available"), false};
    const QString answer = m_handlers.dictation(request);
    if (answer.startsWith(QLatin1String("error: "))) return {answer.mid(7), false};
    return {};
}

QString DbusApplication::state() const {
    return m_handlers.dictation ? m_handlers.dictation({InstanceAction::status, {}})
                                : QStringLiteral("idle");
}

DbusApplicationAdaptor::DbusApplicationAdaptor(DbusApplication* application)
    : QDBusAbstractAdaptor(application), m_application(application) {}

void DbusApplication::answerCall(const Refusal& refusal) {
    if (refusal.isEmpty() || !calledFromDBus()) return;
    sendErrorReply(QLatin1String(refusal.invalidArgs ? kInvalidArgs : kDbusFailedError),
                   refusal.message);
}

void DbusApplicationAdaptor::Activate(const QVariantMap& /*platformData*/) {
    m_application->answerCall(m_application->activate());
}

void DbusApplicationAdaptor::Open(const QStringList& uris, const QVariantMap& /*platformData*/) {
    m_application->answerCall(m_application->open(uris));
}

void DbusApplicationAdaptor::ActivateAction(const QString& actionName,
                                            const QVariantList& parameter,
                                            const QVariantMap& /*platformData*/) {
    m_application->answerCall(m_application->activateAction(actionName, parameter));
}

DbusDictationAdaptor::DbusDictationAdaptor(DbusApplication* application)
    : QDBusAbstractAdaptor(application), m_application(application) {
    setAutoRelaySignals(false);
    connect(application, &DbusApplication::committed, this, &DbusDictationAdaptor::Committed);
    connect(application, &DbusApplication::retracted, this, &DbusDictationAdaptor::Retracted);
}

QString DbusDictationAdaptor::state() const { return m_application->state(); }

void connect_dbus_application(DbusApplication& application, ui::MainWindow& window,
                              GuiController& controller) {
    DbusApplication::Handlers handlers;
    handlers.activate = [&window] {
        window.show();
        window.raise();
        window.activateWindow();
    };
    handlers.open = [&window, &controller](const QStringList& files) {
        controller.filesQueue().addFiles(files);
        window.showPage(ui::MainWindow::Page::files);
        window.show();
        window.raise();
        return QString();
    };
    handlers.dictation = [&controller](const InstanceRequest& request) {
        return answer_instance_request(controller, request);
    };
    application.setHandlers(std::move(handlers));
    QObject::connect(&controller.live(), &LiveBridge::updated, &application,
                     &DbusApplication::publish);
}

}  // namespace earshot::app
