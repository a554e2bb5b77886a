// The compare dialog's form: two runs (model and backend each) and one input, checked as the
// user fills it in; CUDA is offered only when it can run, with the reason when not.
#include "earshot/ui/inspector/compare_dialog.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QRadioButton>
#include <QSpinBox>
#include <QStandardItemModel>
#include <QThread>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>

namespace earshot::ui {

namespace {

QComboBox* backendPicker(const CompareOffer& offer, const QString& chosen, QWidget* parent) {
    auto* combo = new QComboBox(parent);
    combo->addItem(QObject::tr("CPU"), QStringLiteral("cpu"));
    combo->addItem(QObject::tr("CUDA"), QStringLiteral("cuda"));
    if (!offer.cudaAvailable) {
        // Shown, but not choosable, with the reason on hover.
        if (auto* model = qobject_cast<QStandardItemModel*>(combo->model())) {
            model->item(1)->setEnabled(false);
            model->item(1)->setToolTip(offer.cudaWhyNot);
        }
        combo->setToolTip(QObject::tr("CUDA: %1").arg(offer.cudaWhyNot));
    }
    const int at = combo->findData(chosen);
    combo->setCurrentIndex(
        at >= 0 && (offer.cudaAvailable || chosen != QStringLiteral("cuda")) ? at : 0);
    return combo;
}

// A run's CPU thread count: 0 (shown as the shared pool) to the machine's hardware threads; a
// value past it cannot be typed (the box keeps its last good one).
QSpinBox* threadsPicker(int chosen, QWidget* parent) {
    auto* box = new QSpinBox(parent);
    box->setRange(0, CompareDialog::maxThreads());
    box->setSpecialValueText(QObject::tr("shared pool (%1)").arg(CompareDialog::maxThreads()));
    box->setValue(std::clamp(chosen, 0, CompareDialog::maxThreads()));
    box->setToolTip(QObject::tr("CPU threads of this run, 1 to %1 (this machine's); the CPU "
                                "backend's results do not depend on it")
                        .arg(CompareDialog::maxThreads()));
    return box;
}

// A path field with a Browse button that fills it.
QWidget* pathRow(QLineEdit* field, const QString& title, const QString& filter, QWidget* parent) {
    auto* row = new QWidget(parent);
    auto* browse = new QToolButton(row);
    browse->setText(QObject::tr("Browse\u2026"));
    auto* layout = new QHBoxLayout(row);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(field, 1);
    layout->addWidget(browse);
    QObject::connect(browse, &QToolButton::clicked, row, [field, title, filter, row] {
        const QString path = QFileDialog::getOpenFileName(row, title, field->text(), filter);
        if (!path.isEmpty()) field->setText(path);
    });
    return row;
}

}  // namespace

CompareDialog::CompareDialog(const CompareOffer& offer, const CompareChoice& last, QWidget* parent)
    : QDialog(parent), m_offer(offer) {
    setWindowTitle(tr("Compare runs"));
    auto* intro = new QLabel(
        tr("Runs one input through two runs of the model and compares every block's output: "
           "two backends, or the model against another checkpoint of the same shape (its q8_0 "
           "or q5_0 copy, say)."),
        this);
    intro->setWordWrap(true);

    auto* runA = new QGroupBox(tr("Run A"), this);
    m_backendA = backendPicker(offer, last.backendA, runA);
    auto* modelA = new QLabel(
        offer.modelA.isEmpty() ? tr("No model is loaded.") : QFileInfo(offer.modelA).fileName(),
        runA);
    modelA->setToolTip(offer.modelA);
    auto* formA = new QFormLayout(runA);
    formA->addRow(tr("Model:"), modelA);
    formA->addRow(tr("Backend:"), m_backendA);
    m_threadsA = threadsPicker(last.threadsA, runA);
    formA->addRow(tr("CPU threads:"), m_threadsA);

    auto* runB = new QGroupBox(tr("Run B"), this);
    m_modelB = new QLineEdit(last.modelB, runB);
    m_modelB->setPlaceholderText(tr("Empty: the loaded model again"));
    m_modelB->setToolTip(tr("Another checkpoint of the same model: a folder or a ggml .bin"));
    m_backendB = backendPicker(offer, last.backendB, runB);
    auto* formB = new QFormLayout(runB);
    formB->addRow(tr("Model:"),
                  pathRow(m_modelB, tr("Run B's model"),
                          tr("Checkpoints (*.bin *.safetensors);;All files (*)"), runB));
    formB->addRow(tr("Backend:"), m_backendB);
    m_threadsB = threadsPicker(last.threadsB, runB);
    formB->addRow(tr("CPU threads:"), m_threadsB);

    auto* input = new QGroupBox(tr("Input"), this);
    m_filesInput =
        new QRadioButton(offer.filesPageInput.isEmpty()
                             ? tr("The Files page's window (no file is shown there)")
                             : tr("The Files page's window: %1").arg(offer.filesPageInput),
                         input);
    m_filesInput->setEnabled(!offer.filesPageInput.isEmpty());
    m_audioInput = new QRadioButton(tr("An audio file's first window:"), input);
    m_melInput = new QRadioButton(tr("A log-mel .npy (float32 [Mels, Frames]):"), input);
    m_audioPath = new QLineEdit(
        last.input == CompareChoice::Input::audioFile ? last.inputPath : QString(), input);
    m_melPath = new QLineEdit(
        last.input == CompareChoice::Input::melFile ? last.inputPath : QString(), input);
    auto* inputLayout = new QVBoxLayout(input);
    inputLayout->addWidget(m_filesInput);
    inputLayout->addWidget(m_audioInput);
    inputLayout->addWidget(pathRow(m_audioPath, tr("Audio file"),
                                   tr("Audio (*.wav *.flac *.mp3 *.ogg *.m4a);;All files (*)"),
                                   input));
    inputLayout->addWidget(m_melInput);
    inputLayout->addWidget(
        pathRow(m_melPath, tr("Log-mel"), tr("NumPy arrays (*.npy);;All files (*)"), input));
    if (last.input == CompareChoice::Input::melFile) {
        m_melInput->setChecked(true);
    } else if (last.input == CompareChoice::Input::filesPage && m_filesInput->isEnabled()) {
        m_filesInput->setChecked(true);
    } else if (m_filesInput->isEnabled() && last.inputPath.isEmpty()) {
        m_filesInput->setChecked(true);
    } else {
        m_audioInput->setChecked(true);
    }

    m_decoder = new QCheckBox(
        tr("The decoder too (listen, and prefill over the start-of-transcript tokens)"), this);
    m_decoder->setChecked(last.decoder);
    m_budgetMib = new QSpinBox(this);
    m_budgetMib->setRange(1, 1 << 20);
    m_budgetMib->setSuffix(tr(" MiB"));
    m_budgetMib->setValue(std::max(1, last.budgetMib));
    m_budgetMib->setToolTip(
        tr("The most block values held at once. Past it the blocks are compared in several "
           "passes (each running both runs again), and a block whose values were not kept is "
           "computed again when clicked."));
    auto* budgetRow = new QHBoxLayout;
    budgetRow->addWidget(new QLabel(tr("Values held at most:"), this));
    budgetRow->addWidget(m_budgetMib);
    budgetRow->addStretch(1);
    m_problem = new QLabel(this);
    m_problem->setObjectName(QStringLiteral("compareProblem"));
    m_problem->setWordWrap(true);
    m_buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
    m_buttons->button(QDialogButtonBox::Ok)->setText(tr("Compare"));

    auto* layout = new QVBoxLayout(this);
    layout->addWidget(intro);
    layout->addWidget(runA);
    layout->addWidget(runB);
    layout->addWidget(input);
    layout->addWidget(m_decoder);
    layout->addLayout(budgetRow);
    layout->addWidget(m_problem);
    layout->addWidget(m_buttons);
    setMinimumWidth(520);

    connect(m_buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
    connect(m_buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
    for (QRadioButton* radio : {m_filesInput, m_audioInput, m_melInput}) {
        connect(radio, &QRadioButton::toggled, this, &CompareDialog::update);
    }
    for (QComboBox* backend : {m_backendA, m_backendB}) {
        connect(backend, &QComboBox::currentIndexChanged, this, &CompareDialog::update);
    }
    for (QLineEdit* field : {m_audioPath, m_melPath, m_modelB}) {
        connect(field, &QLineEdit::textChanged, this, &CompareDialog::update);
    }
    update();
}

CompareChoice CompareDialog::choice() const {
    CompareChoice choice;
    choice.backendA = m_backendA->currentData().toString();
    choice.backendB = m_backendB->currentData().toString();
    choice.modelB = m_modelB->text().trimmed();
    choice.input = m_filesInput->isChecked() ? CompareChoice::Input::filesPage
                   : m_melInput->isChecked() ? CompareChoice::Input::melFile
                                             : CompareChoice::Input::audioFile;
    choice.inputPath = choice.input == CompareChoice::Input::melFile ? m_melPath->text().trimmed()
                       : choice.input == CompareChoice::Input::audioFile
                           ? m_audioPath->text().trimmed()
                           : QString();
    choice.decoder = m_decoder->isChecked();
    const auto cpu = [](const QComboBox* backend) {
        return backend->currentData().toString() == QStringLiteral("cpu");
    };
    choice.threadsA = cpu(m_backendA) ? m_threadsA->value() : 0;
    choice.threadsB = cpu(m_backendB) ? m_threadsB->value() : 0;
    choice.budgetMib = m_budgetMib->value();
    return choice;
}

int CompareDialog::maxThreads() { return std::max(1, QThread::idealThreadCount()); }

QString CompareDialog::problem() const {
    const CompareChoice c = choice();
    if (m_offer.modelA.isEmpty()) return tr("Load a model first.");
    if (c.input == CompareChoice::Input::audioFile && c.inputPath.isEmpty()) {
        return tr("Choose an audio file.");
    }
    if (c.input == CompareChoice::Input::melFile && c.inputPath.isEmpty()) {
        return tr("Choose a .npy log-mel.");
    }
    if (!c.inputPath.isEmpty() && !QFileInfo(c.inputPath).isFile()) {
        return tr("There is no file %1.").arg(c.inputPath);
    }
    if (!c.modelB.isEmpty() && !QFileInfo::exists(c.modelB)) {
        return tr("There is no model %1.").arg(c.modelB);
    }
    return {};
}

void CompareDialog::update() {
    m_audioPath->setEnabled(m_audioInput->isChecked());
    m_melPath->setEnabled(m_melInput->isChecked());
    // CUDA runs have no CPU thread count.
    m_threadsA->setEnabled(m_backendA->currentData().toString() == QStringLiteral("cpu"));
    m_threadsB->setEnabled(m_backendB->currentData().toString() == QStringLiteral("cpu"));
    const QString why = problem();
    m_problem->setText(why);
    m_problem->setVisible(!why.isEmpty());
    m_buttons->button(QDialogButtonBox::Ok)->setEnabled(why.isEmpty());
}

}  // namespace earshot::ui
