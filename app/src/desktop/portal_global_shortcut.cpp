// PortalGlobalShortcut: the toggle shortcut through the desktop portal's GlobalShortcuts
// interface (Wayland, where the compositor lets no client grab keys): a session, the shortcut
// bound with the Settings' combination as its preferred trigger, and its Activated signal.
#include "desktop/portal_global_shortcut.h"

#include <QDBusArgument>
#include <QDBusMessage>
#include <QDBusMetaType>
#include <QKeySequence>
#include <QList>
#include <QStatusBar>
#include <iostream>

#include "desktop/portal_request.h"
#include "earshot/ui/main_window.h"
#include "earshot/ui/settings/settings.h"
#include "gui/gui_controller.h"

namespace earshot::app {
namespace {
// One element of BindShortcuts' a(sa{sv}): the id and its properties.
struct PortalShortcut {
    QString id;
    QVariantMap properties;
};
}  // namespace
}  // namespace earshot::app

Q_DECLARE_METATYPE(earshot::app::PortalShortcut)

namespace earshot::app {

namespace {

constexpr char kGlobalShortcuts[] = "org.freedesktop.portal.GlobalShortcuts";
constexpr char kSession[] = "org.freedesktop.portal.Session";

QDBusArgument& operator<<(QDBusArgument& argument, const PortalShortcut& shortcut) {
    argument.beginStructure();
    argument << shortcut.id << shortcut.properties;
    argument.endStructure();
    return argument;
}

const QDBusArgument& operator>>(const QDBusArgument& argument, PortalShortcut& shortcut) {
    argument.beginStructure();
    argument >> shortcut.id >> shortcut.properties;
    argument.endStructure();
    return argument;
}

void register_types() {
    static const bool registered = [] {
        qDBusRegisterMetaType<PortalShortcut>();
        qDBusRegisterMetaType<QList<PortalShortcut>>();
        return true;
    }();
    (void)registered;
}

// The XDG shortcuts specification's name for a key: lower-case letters, digits, and the X keysym
// names of the keys a global shortcut usually takes.
QString trigger_key(Qt::Key key) {
    if (key >= Qt::Key_A && key <= Qt::Key_Z) return QString(QChar(u'a' + (key - Qt::Key_A)));
    if (key >= Qt::Key_0 && key <= Qt::Key_9) return QString(QChar(u'0' + (key - Qt::Key_0)));
    if (key >= Qt::Key_F1 && key <= Qt::Key_F35) {
        return QStringLiteral("F%1").arg(key - Qt::Key_F1 + 1);
    }
    switch (key) {
        case Qt::Key_Space:
            return QStringLiteral("space");
        case Qt::Key_Return:
            return QStringLiteral("Return");
        case Qt::Key_Enter:
            return QStringLiteral("KP_Enter");
        case Qt::Key_Escape:
            return QStringLiteral("Escape");
        case Qt::Key_Tab:
            return QStringLiteral("Tab");
        case Qt::Key_Pause:
            return QStringLiteral("Pause");
        case Qt::Key_Print:
            return QStringLiteral("Print");
        case Qt::Key_Insert:
            return QStringLiteral("Insert");
        case Qt::Key_Delete:
            return QStringLiteral("Delete");
        case Qt::Key_Home:
            return QStringLiteral("Home");
        case Qt::Key_End:
            return QStringLiteral("End");
        case Qt::Key_PageUp:
            return QStringLiteral("Prior");
        case Qt::Key_PageDown:
            return QStringLiteral("Next");
        default:
            return QKeySequence(key).toString(QKeySequence::PortableText);
    }
}

}  // namespace

QString portal_trigger(const QString& keys) {
    const QKeySequence sequence =
        QKeySequence::fromString(keys.trimmed(), QKeySequence::PortableText);
    if (sequence.count() != 1) return {};
    const QKeyCombination combination = sequence[0];
    QStringList parts;
    const Qt::KeyboardModifiers modifiers = combination.keyboardModifiers();
    if (modifiers & Qt::ControlModifier) parts << QStringLiteral("CTRL");
    if (modifiers & Qt::AltModifier) parts << QStringLiteral("ALT");
    if (modifiers & Qt::ShiftModifier) parts << QStringLiteral("SHIFT");
    if (modifiers & Qt::MetaModifier) parts << QStringLiteral("LOGO");
    const QString key = trigger_key(combination.key());
    if (key.isEmpty()) return {};
    parts << key;
    return parts.join(QLatin1Char('+'));
}

PortalGlobalShortcut::PortalGlobalShortcut(const QDBusConnection& bus, QObject* parent)
    : QObject(parent), m_bus(bus) {
    register_types();
    m_bus.connect(QLatin1String(kPortalService), QLatin1String(kPortalPath),
                  QLatin1String(kGlobalShortcuts), QStringLiteral("Activated"), this,
                  SLOT(onActivated(QDBusMessage)));
    m_bus.connect(QLatin1String(kPortalService), QLatin1String(kPortalPath),
                  QLatin1String(kGlobalShortcuts), QStringLiteral("Deactivated"), this,
                  SLOT(onDeactivated(QDBusMessage)));
}

PortalGlobalShortcut::~PortalGlobalShortcut() {
    m_bus.disconnect(QLatin1String(kPortalService), QLatin1String(kPortalPath),
                     QLatin1String(kGlobalShortcuts), QStringLiteral("Activated"), this,
                     SLOT(onActivated(QDBusMessage)));
    m_bus.disconnect(QLatin1String(kPortalService), QLatin1String(kPortalPath),
                     QLatin1String(kGlobalShortcuts), QStringLiteral("Deactivated"), this,
                     SLOT(onDeactivated(QDBusMessage)));
    if (m_session.isEmpty()) return;
    m_bus.send(QDBusMessage::createMethodCall(QLatin1String(kPortalService), m_session,
                                              QLatin1String(kSession), QStringLiteral("Close")));
}

void PortalGlobalShortcut::setShortcut(const QString& keys) {
    m_keys = keys.trimmed();
    if (m_keys.isEmpty()) return;
    if (!m_session.isEmpty()) {
        bind();
        return;
    }
    if (m_creating) return;  // bind() follows the session with the latest keys
    m_creating = true;
    const QVariantMap options{{QStringLiteral("session_handle_token"), PortalRequest::newToken()}};
    PortalRequest::call(
        m_bus, QLatin1String(kGlobalShortcuts), QStringLiteral("CreateSession"), {options}, 0, this,
        [this](const PortalReply& created) {
            m_creating = false;
            if (!created.ok()) {
                Q_EMIT failed(
                    created.error.isEmpty()
                        ? tr("The desktop refused a global shortcut session "
                             "(answer %1)")
                              .arg(created.response)
                        : tr("The desktop has no global shortcuts portal (%1)").arg(created.error));
                return;
            }
            m_session = created.results.value(QStringLiteral("session_handle")).toString();
            if (m_session.isEmpty()) {
                Q_EMIT failed(
                    tr("The desktop's global shortcuts portal gave no "
                       "session"));
                return;
            }
            if (!m_keys.isEmpty()) bind();
        });
}

void PortalGlobalShortcut::bind() {
    PortalShortcut toggle;
    toggle.id = QLatin1String(kToggleShortcutId);
    toggle.properties.insert(QStringLiteral("description"), tr("Start or stop dictation"));
    const QString trigger = portal_trigger(m_keys);
    if (!trigger.isEmpty()) toggle.properties.insert(QStringLiteral("preferred_trigger"), trigger);
    const QList<PortalShortcut> shortcuts{toggle};
    const QString keys = m_keys;
    PortalRequest::call(
        m_bus, QLatin1String(kGlobalShortcuts), QStringLiteral("BindShortcuts"),
        {QVariant::fromValue(QDBusObjectPath(m_session)), QVariant::fromValue(shortcuts), QString(),
         QVariantMap()},
        3, this, [this, keys](const PortalReply& reply) {
            if (!reply.ok()) {
                m_bound = false;
                Q_EMIT failed(reply.response == 1 && reply.error.isEmpty()
                                  ? tr("The global shortcut %1 was not bound: the desktop's "
                                       "dialog was cancelled")
                                        .arg(keys)
                                  : tr("The desktop did not bind the global shortcut %1 (%2)")
                                        .arg(keys, reply.error.isEmpty()
                                                       ? QString::number(reply.response)
                                                       : reply.error));
                return;
            }
            m_bound = true;
            QString described;
            const QVariant listed = reply.results.value(QStringLiteral("shortcuts"));
            if (listed.userType() == qMetaTypeId<QDBusArgument>()) {
                QList<PortalShortcut> granted;
                listed.value<QDBusArgument>() >> granted;
                for (const PortalShortcut& shortcut : granted) {
                    if (shortcut.id == QLatin1String(kToggleShortcutId)) {
                        described = shortcut.properties.value(QStringLiteral("trigger_description"))
                                        .toString();
                    }
                }
            }
            Q_EMIT bound(described);
        });
}

bool PortalGlobalShortcut::isOurs(const QDBusMessage& message) const {
    // Activated / Deactivated(o session_handle, s shortcut_id, t timestamp, a{sv} options)
    const QVariantList arguments = message.arguments();
    return arguments.size() >= 2 && arguments[0].value<QDBusObjectPath>().path() == m_session &&
           arguments[1].toString() == QLatin1String(kToggleShortcutId);
}

void PortalGlobalShortcut::onActivated(const QDBusMessage& message) {
    if (isOurs(message)) Q_EMIT activated();
}

void PortalGlobalShortcut::onDeactivated(const QDBusMessage& message) {
    if (isOurs(message)) Q_EMIT released();
}

void connect_portal_shortcut(PortalGlobalShortcut& shortcut, ui::MainWindow& window,
                             GuiController& controller) {
    QObject::connect(&shortcut, &PortalGlobalShortcut::activated, &controller,
                     &GuiController::shortcutPressed);
    QObject::connect(&shortcut, &PortalGlobalShortcut::released, &controller,
                     &GuiController::shortcutReleased);
    QObject::connect(&shortcut, &PortalGlobalShortcut::failed, &window,
                     [&window](const QString& why) {
                         std::cerr << "earshot: " << why.toStdString() << "\n";
                         window.statusBar()->showMessage(why);  // stays until the next message
                     });
    QObject::connect(&window, &ui::MainWindow::settingsChanged, &shortcut,
                     [&shortcut](const ui::Settings& settings) {
                         if (settings.globalShortcut.trimmed() != shortcut.shortcut()) {
                             shortcut.setShortcut(settings.globalShortcut);
                         }
                     });
    shortcut.setShortcut(controller.settings().globalShortcut);
}

}  // namespace earshot::app
