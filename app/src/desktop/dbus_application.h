// DbusApplication: Earshot on the session bus, beside the instance socket. It owns the name
// org.earshot.Earshot (the desktop-file id) and serves /org/earshot/Earshot with
// org.freedesktop.Application (Activate, Open, ActivateAction: ToggleDictation, StartDictation,
// StopDictation, as `earshot toggle`, `start` and `stop` do) and org.earshot.Earshot.Dictation
// (the signals Committed(s text) for each committed piece and Retracted(u characters) for text a
// spoken command took back; the property State).
#pragma once

#include <QDBusAbstractAdaptor>
#include <QDBusConnection>
#include <QDBusContext>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QVariantList>
#include <QVariantMap>
#include <functional>
#include <utility>

#include "desktop/instance_server.h"

namespace earshot::ui {
class MainWindow;
struct LiveTextUpdate;
}  // namespace earshot::ui

namespace earshot::app {

class GuiController;

// The bus name (the desktop-file id, packaging/earshot.desktop installed as
// org.earshot.Earshot.desktop), its object path, and the dictation interface.
inline constexpr char kDbusName[] = "org.earshot.Earshot";
inline constexpr char kDbusPath[] = "/org/earshot/Earshot";
inline constexpr char kDbusDictationInterface[] = "org.earshot.Earshot.Dictation";
// The error a failed action answers with (its message says why).
inline constexpr char kDbusFailedError[] = "org.earshot.Earshot.Error.Failed";

// Whether the user's session bus can be reached without starting one: DBUS_SESSION_BUS_ADDRESS
// is set, or $XDG_RUNTIME_DIR/bus exists.
bool session_bus_configured();

// The exported object. It holds the D-Bus context of calls to its adaptors (QtDBus sets it on the
// adaptors' parent), so it answers their errors.
class DbusApplication : public QObject, protected QDBusContext {
    Q_OBJECT

public:
    struct Handlers {
        std::function<void()> activate;  // show and raise the window
        // Queue local files for transcription; returns why not (empty: done).
        std::function<QString(const QStringList& files)> open;
        // What `earshot toggle` / `start` / `stop` / `status` answer on the socket.
        std::function<QString(const InstanceRequest& request)> dictation;
    };

    explicit DbusApplication(const QDBusConnection& bus, QObject* parent = nullptr);
    ~DbusApplication() override;
    void setHandlers(Handlers handlers) { m_handlers = std::move(handlers); }

    // Exports the object and takes the name; returns why not (another Earshot owns the name, no
    // bus), empty on success.
    QString registerOnBus();
    const QDBusConnection& bus() const { return m_bus; }

    // The committed part of a live update goes out as Retracted (when a spoken command took
    // characters back) then Committed; tentative text never does.
    void publish(const ui::LiveTextUpdate& update);

    // What the adaptors call: empty on success, else the D-Bus error to answer with.
    struct Refusal {
        QString message;
        bool invalidArgs = false;  // the caller's arguments (else the app could not do it)
        bool isEmpty() const { return message.isEmpty(); }
    };
    Refusal activate();
    Refusal open(const QStringList& uris);
    Refusal activateAction(const QString& name, const QVariantList& parameter);
    QString state() const;
    // In an adaptor's slot: answers the call with the refusal's D-Bus error (nothing when empty).
    void answerCall(const Refusal& refusal);

Q_SIGNALS:
    void committed(const QString& text);
    void retracted(uint characters);

private:
    QDBusConnection m_bus;
    Handlers m_handlers;
    bool m_registered = false;
};

// org.freedesktop.Application, as the Desktop Entry Specification defines it.
class DbusApplicationAdaptor : public QDBusAbstractAdaptor {
    Q_OBJECT
    Q_CLASSINFO("D-Bus Interface", "org.freedesktop.Application")

public:
    explicit DbusApplicationAdaptor(DbusApplication* application);

public Q_SLOTS:
    void Activate(const QVariantMap& platformData);
    void Open(const QStringList& uris, const QVariantMap& platformData);
    void ActivateAction(const QString& actionName, const QVariantList& parameter,
                        const QVariantMap& platformData);

private:
    DbusApplication* m_application;
};

// org.earshot.Earshot.Dictation: what dictation commits, and its state.
class DbusDictationAdaptor : public QDBusAbstractAdaptor {
    Q_OBJECT
    Q_CLASSINFO("D-Bus Interface", "org.earshot.Earshot.Dictation")
    // "listening", "idle" or "starting" (as `earshot status` answers); read on demand, no
    // PropertiesChanged.
    Q_PROPERTY(QString State READ state)

public:
    explicit DbusDictationAdaptor(DbusApplication* application);
    QString state() const;

Q_SIGNALS:
    void Committed(const QString& text);
    void Retracted(uint characters);

private:
    DbusApplication* m_application;
};

// The window's DbusApplication: activation shows the window, Open queues files on the Files page,
// the actions go through answer_instance_request(), and every live update is published.
void connect_dbus_application(DbusApplication& application, ui::MainWindow& window,
                              GuiController& controller);

}  // namespace earshot::app
