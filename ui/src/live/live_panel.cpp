// LivePanel: lays out the dictation controls over the transcript and keeps the journal in step
// with the committed text (saved at once when an update commits, shortly after user edits).
#include "earshot/ui/live/live_panel.h"

#include <QAction>
#include <QApplication>
#include <QCheckBox>
#include <QClipboard>
#include <QComboBox>
#include <QHBoxLayout>
#include <QKeySequence>
#include <QLabel>
#include <QPushButton>
#include <QTimer>
#include <QVBoxLayout>

#include "earshot/ui/live/level_meter.h"
#include "earshot/ui/live/token_strip.h"
#include "earshot/ui/live/transcript_journal.h"
#include "earshot/ui/live/transcript_view.h"

namespace earshot::ui {

namespace {
constexpr int kEditSaveDelayMs = 300;  // typing saves once it pauses this long

// The line under the token strip until a token is clicked.
QString tokenDetailsHint() { return QObject::tr("Click a token to see its alternatives."); }
}  // namespace

LivePanel::LivePanel(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("livePanel"));

    m_startStop = new QPushButton(this);
    m_startStop->setObjectName(QStringLiteral("startStopButton"));
    m_startStop->setMinimumWidth(120);
    connect(m_startStop, &QPushButton::clicked, this, &LivePanel::requestToggle);

    m_devices = new QComboBox(this);
    m_devices->setObjectName(QStringLiteral("devicePicker"));
    m_devices->setSizeAdjustPolicy(QComboBox::AdjustToContents);
    m_devices->setToolTip(tr("Input device"));
    setDevices({});

    m_levelMeter = new LevelMeter(this);

    auto* controls = new QHBoxLayout;
    controls->addWidget(m_startStop);
    controls->addWidget(new QLabel(tr("Input:"), this));
    controls->addWidget(m_devices);
    controls->addWidget(m_levelMeter, 1);
    // The app keeps it in step with the setting and sends committed text to the focused window.
    m_typeInto = new QCheckBox(tr("Type into the focused window"), this);
    m_typeInto->setObjectName(QStringLiteral("typeIntoBox"));
    m_typeInto->setToolTip(
        tr("Committed text also goes to the application that has focus, as "
           "it is committed (never the grey tentative text)"));
    controls->addWidget(m_typeInto);

    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("liveStatus"));
    m_status->setWordWrap(true);

    m_transcript = new TranscriptView(this);
    m_tokens = new TokenStrip(this);
    m_tokenDetails = new QLabel(this);
    m_tokenDetails->setObjectName(QStringLiteral("tokenDetails"));
    m_tokenDetails->setTextInteractionFlags(Qt::TextSelectableByMouse);
    m_tokenDetails->setText(tokenDetailsHint());
    connect(m_tokens, &TokenStrip::tokenSelected, this,
            [this](int index) { m_tokenDetails->setText(m_tokens->describe(index)); });

    m_copy = new QPushButton(tr("&Copy"), this);
    m_copy->setObjectName(QStringLiteral("copyButton"));
    m_copy->setToolTip(tr("Copy the committed transcript to the clipboard"));
    connect(m_copy, &QPushButton::clicked, this, &LivePanel::copyTranscript);
    m_clear = new QPushButton(tr("C&lear"), this);
    m_clear->setObjectName(QStringLiteral("clearButton"));
    m_clear->setToolTip(tr("Clear the transcript (Ctrl+Z brings it back)"));
    connect(m_clear, &QPushButton::clicked, this, &LivePanel::clearTranscript);
    // Undo and redo of the transcript's edits also while the focus is on a button of this page
    // (Clear, say); in the transcript itself its own key handling does the same.
    auto* undo = new QAction(tr("Undo"), this);
    undo->setShortcuts(QKeySequence::Undo);
    undo->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(undo, &QAction::triggered, m_transcript, &TranscriptView::undoEdit);
    addAction(undo);
    auto* redo = new QAction(tr("Redo"), this);
    redo->setShortcuts(QKeySequence::Redo);
    redo->setShortcutContext(Qt::WidgetWithChildrenShortcut);
    connect(redo, &QAction::triggered, m_transcript, &TranscriptView::redoEdit);
    addAction(redo);

    auto* editRow = new QHBoxLayout;
    editRow->addWidget(m_tokenDetails, 1);
    editRow->addWidget(m_copy);
    editRow->addWidget(m_clear);

    auto* layout = new QVBoxLayout(this);
    layout->addLayout(controls);
    layout->addWidget(m_status);
    layout->addWidget(m_transcript, 1);
    layout->addWidget(m_tokens);
    layout->addLayout(editRow);

    m_journalTimer = new QTimer(this);
    m_journalTimer->setSingleShot(true);
    m_journalTimer->setInterval(kEditSaveDelayMs);
    connect(m_journalTimer, &QTimer::timeout, this, &LivePanel::saveJournal);
    connect(m_transcript, &TranscriptView::committedTextChanged, m_journalTimer,
            qOverload<>(&QTimer::start));

    updateButton();
}

LivePanel::~LivePanel() {
    if (m_journalTimer->isActive()) {
        saveJournal();
    }
}

void LivePanel::setDevices(const QList<InputDeviceEntry>& devices) {
    m_devices->clear();
    m_devices->addItem(tr("Default input"), QString());
    for (const InputDeviceEntry& device : devices) {
        m_devices->addItem(device.label, device.spec);
        if (device.isDefault) {
            m_devices->setItemText(m_devices->count() - 1, tr("%1 (default)").arg(device.label));
        }
    }
    m_devices->setCurrentIndex(0);
}

QString LivePanel::selectedDevice() const { return m_devices->currentData().toString(); }

void LivePanel::setRunning(bool running) {
    if (running && !m_running) {
        m_transcript->beginSession();
        m_tokens->clear();
        m_tokenDetails->setText(tokenDetailsHint());
    }
    m_running = running;
    m_transcript->setListening(running);
    if (!running) {
        m_levelMeter->setLevelDbfs(-120.0);
    }
    updateButton();
}

void LivePanel::setStartAllowed(bool allowed, const QString& reason) {
    m_startAllowed = allowed;
    m_notAllowedReason = reason;
    updateButton();
}

void LivePanel::updateButton() {
    m_startStop->setText(m_running ? tr("■ Stop") : tr("● Start"));
    m_startStop->setEnabled(m_running || m_startAllowed);
    m_startStop->setToolTip(m_running        ? tr("Stop dictation (Ctrl+Space)")
                            : m_startAllowed ? tr("Start dictation (Ctrl+Space)")
                                             : m_notAllowedReason);
    m_devices->setEnabled(!m_running);
    if (!m_running && !m_startAllowed && !m_notAllowedReason.isEmpty()) {
        m_status->setText(m_notAllowedReason);
        m_statusIsReason = true;
    } else if (m_statusIsReason) {
        // The reason no longer holds (the files are done, a model is loaded): it goes.
        m_status->clear();
        m_statusIsReason = false;
    }
}

void LivePanel::requestToggle() {
    if (m_running) {
        Q_EMIT stopRequested();
    } else if (m_startAllowed) {
        Q_EMIT startRequested(selectedDevice());
    }
}

void LivePanel::applyUpdate(const LiveTextUpdate& update) {
    m_transcript->applyText(update.committedText, update.tentativeText, update.erasedChars);
    if (update.decoded || update.final || !update.tokens.isEmpty()) {
        m_tokens->applyUpdate(update);
    }
    if (!update.committedText.isEmpty() || update.erasedChars > 0) {
        saveJournal();  // a crash right after this loses nothing that was committed
    }
}

void LivePanel::setLevelDbfs(double levelDbfs) { m_levelMeter->setLevelDbfs(levelDbfs); }

void LivePanel::setStatusText(const QString& text) {
    m_status->setText(text);
    m_statusIsReason = false;
}

QString LivePanel::statusText() const { return m_status->text(); }

void LivePanel::copyTranscript() {
    QApplication::clipboard()->setText(m_transcript->committedText());
}

void LivePanel::clearTranscript() {
    const QString cleared = m_transcript->committedText();
    if (m_journal && !cleared.isEmpty() && !m_journal->keepCleared(cleared)) {
        setStatusText(tr("Could not keep a copy of the cleared text: %1; Ctrl+Z still brings it "
                         "back.")
                          .arg(m_journal->lastError()));
    } else if (!cleared.isEmpty()) {
        setStatusText(tr("Transcript cleared; Ctrl+Z brings it back."));
    }
    m_transcript->clearTranscript();
    // The tokens of the cleared words go with them.
    m_tokens->clear();
    m_tokenDetails->setText(tokenDetailsHint());
    m_transcript->setFocus();  // where Ctrl+Z undoes the clear
}

void LivePanel::attachJournal(const QString& path) {
    m_journal = std::make_unique<TranscriptJournal>(path);
    m_journal->startSession();
    const QString saved = m_journal->load();
    if (!saved.isEmpty()) {
        m_transcript->setCommittedText(saved);
        m_journalTimer->stop();  // it is what the journal holds already
    }
}

QString LivePanel::journalPath() const { return m_journal ? m_journal->path() : QString(); }

void LivePanel::saveJournal() {
    m_journalTimer->stop();
    if (m_journal && !m_journal->save(m_transcript->committedText())) {
        setStatusText(tr("Autosave failed: %1").arg(m_journal->lastError()));
    }
}

}  // namespace earshot::ui
