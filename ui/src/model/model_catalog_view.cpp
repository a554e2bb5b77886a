// ModelCatalogView: a table of catalog rows, a progress bar in the State column while a model
// downloads, the selected row's progress or failure under it, and the four actions.
#include "earshot/ui/model/model_catalog_view.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace earshot::ui {

namespace {

enum Column { kName, kForm, kDownload, kMemory, kLanguages, kState, kColumns };

constexpr int kPermille = 1000;  // progress bars count in thousandths of the file

QString state_text(const CatalogRow& row) {
    switch (row.state) {
        case CatalogRow::State::available:
            return QString();
        case CatalogRow::State::partial:
            return QObject::tr("partly downloaded");
        case CatalogRow::State::downloading:
            return QObject::tr("downloading");
        case CatalogRow::State::verifying:
            return QObject::tr("checking its hash");
        case CatalogRow::State::installed:
            return QObject::tr("installed");
        case CatalogRow::State::failed:
            return QObject::tr("failed");
    }
    return QString();
}

bool shows_progress(const CatalogRow& row) {
    return row.state == CatalogRow::State::downloading ||
           row.state == CatalogRow::State::verifying ||
           (row.state == CatalogRow::State::partial && row.totalBytes > 0);
}

}  // namespace

ModelCatalogView::ModelCatalogView(QWidget* parent) : QWidget(parent) {
    setObjectName(QStringLiteral("modelCatalog"));
    m_table = new QTableWidget(0, kColumns, this);
    m_table->setObjectName(QStringLiteral("catalogTable"));
    m_table->setHorizontalHeaderLabels(
        {tr("Model"), tr("Form"), tr("Download"), tr("Memory"), tr("Languages"), tr("State")});
    m_table->verticalHeader()->hide();
    m_table->setSelectionBehavior(QAbstractItemView::SelectRows);
    m_table->setSelectionMode(QAbstractItemView::SingleSelection);
    m_table->setEditTriggers(QAbstractItemView::NoEditTriggers);
    for (int column = 0; column < kState; ++column) {
        m_table->horizontalHeader()->setSectionResizeMode(column, QHeaderView::ResizeToContents);
    }
    m_table->horizontalHeader()->setSectionResizeMode(kState, QHeaderView::Stretch);
    connect(m_table, &QTableWidget::itemSelectionChanged, this, &ModelCatalogView::updateActions);

    m_download = new QPushButton(tr("&Download"), this);
    m_download->setObjectName(QStringLiteral("catalogDownloadButton"));
    m_cancel = new QPushButton(tr("&Cancel"), this);
    m_cancel->setObjectName(QStringLiteral("catalogCancelButton"));
    m_remove = new QPushButton(tr("&Remove"), this);
    m_remove->setObjectName(QStringLiteral("catalogRemoveButton"));
    m_use = new QPushButton(tr("&Use"), this);
    m_use->setObjectName(QStringLiteral("catalogUseButton"));
    m_download->setToolTip(
        tr("Download the selected model from the Hugging Face hub (a "
           "partly downloaded one continues where it stopped)"));
    m_use->setToolTip(tr("Open the selected installed model"));
    connect(m_download, &QPushButton::clicked, this,
            [this] { Q_EMIT downloadRequested(selectedModel()); });
    connect(m_cancel, &QPushButton::clicked, this,
            [this] { Q_EMIT cancelRequested(selectedModel()); });
    connect(m_remove, &QPushButton::clicked, this,
            [this] { Q_EMIT removeRequested(selectedModel()); });
    connect(m_use, &QPushButton::clicked, this, [this] {
        if (const CatalogRow* r = row(selectedModel())) Q_EMIT useRequested(r->location);
    });
    auto* actions = new QHBoxLayout;
    actions->addWidget(m_download);
    actions->addWidget(m_cancel);
    actions->addWidget(m_remove);
    actions->addWidget(m_use);
    actions->addStretch(1);

    m_status = new QLabel(this);
    m_status->setObjectName(QStringLiteral("catalogStatus"));
    m_status->setWordWrap(true);
    m_status->setTextInteractionFlags(Qt::TextSelectableByMouse);

    auto* layout = new QVBoxLayout(this);
    layout->setContentsMargins(0, 0, 0, 0);
    layout->addWidget(m_table, 1);
    layout->addWidget(m_status);
    layout->addLayout(actions);
    updateActions();
}

void ModelCatalogView::setRows(const QList<CatalogRow>& rows) {
    const QString selected = selectedModel();
    m_rows = rows;
    m_table->setRowCount(static_cast<int>(m_rows.size()));
    for (int i = 0; i < m_rows.size(); ++i) fillRow(i);
    if (!selected.isEmpty()) selectModel(selected);
    updateActions();
}

void ModelCatalogView::updateRow(const CatalogRow& updated) {
    for (int i = 0; i < m_rows.size(); ++i) {
        if (m_rows[i].name == updated.name) {
            m_rows[i] = updated;
            fillRow(i);
            updateActions();
            return;
        }
    }
    m_rows.append(updated);
    m_table->setRowCount(static_cast<int>(m_rows.size()));
    fillRow(static_cast<int>(m_rows.size()) - 1);
    updateActions();
}

const CatalogRow* ModelCatalogView::row(const QString& name) const {
    for (const CatalogRow& r : m_rows) {
        if (r.name == name) return &r;
    }
    return nullptr;
}

void ModelCatalogView::selectModel(const QString& name) {
    for (int i = 0; i < m_rows.size(); ++i) {
        if (m_rows[i].name == name) {
            m_table->selectRow(i);
            m_table->scrollToItem(m_table->item(i, kName));
            return;
        }
    }
}

QString ModelCatalogView::selectedModel() const {
    const QList<QTableWidgetItem*> items = m_table->selectedItems();
    if (items.isEmpty()) return QString();
    const int index = items.first()->row();
    return index >= 0 && index < m_rows.size() ? m_rows[index].name : QString();
}

QProgressBar* ModelCatalogView::progressBar(const QString& name) const {
    for (int i = 0; i < m_rows.size(); ++i) {
        if (m_rows[i].name == name)
            return qobject_cast<QProgressBar*>(m_table->cellWidget(i, kState));
    }
    return nullptr;
}

void ModelCatalogView::fillRow(int index) {
    const CatalogRow& r = m_rows[index];
    const QString texts[kColumns] = {r.name,   r.form,      r.download,
                                     r.memory, r.languages, state_text(r)};
    for (int column = 0; column < kColumns; ++column) {
        auto* item = new QTableWidgetItem(texts[column]);
        if (column == kState && r.state == CatalogRow::State::failed) {
            item->setForeground(QColor(0xb3, 0x26, 0x1e));
            item->setToolTip(r.error);
        }
        m_table->setItem(index, column, item);
    }
    if (shows_progress(r)) {
        auto* bar = qobject_cast<QProgressBar*>(m_table->cellWidget(index, kState));
        if (bar == nullptr) {
            bar = new QProgressBar;
            bar->setObjectName(QStringLiteral("catalogProgress"));
            bar->setRange(0, kPermille);
            m_table->setCellWidget(index, kState, bar);
        }
        if (r.totalBytes > 0) {
            bar->setRange(0, kPermille);
            bar->setValue(static_cast<int>(r.receivedBytes * kPermille / r.totalBytes));
        } else {
            bar->setRange(0, 0);  // busy: the size is not known yet
        }
        bar->setFormat(r.state == CatalogRow::State::verifying ? tr("checking hash")
                       : r.state == CatalogRow::State::partial ? tr("%p% (paused)")
                                                               : tr("%p%"));
        bar->setToolTip(r.progressText);
    } else if (m_table->cellWidget(index, kState) != nullptr) {
        m_table->removeCellWidget(index, kState);
    }
}

void ModelCatalogView::updateActions() {
    const CatalogRow* r = row(selectedModel());
    using State = CatalogRow::State;
    const bool busy =
        r != nullptr && (r->state == State::downloading || r->state == State::verifying);
    const bool inCatalog = r != nullptr && !r->form.isEmpty();
    m_download->setEnabled(inCatalog && !busy && r->state != State::installed);
    m_download->setText(r != nullptr && r->state == State::partial ? tr("Resume &download")
                                                                   : tr("&Download"));
    m_cancel->setEnabled(busy);
    m_remove->setEnabled(r != nullptr && !busy &&
                         (r->state == State::installed || r->state == State::partial ||
                          (r->state == State::failed && r->receivedBytes > 0)));
    m_use->setEnabled(r != nullptr && r->state == State::installed && !r->location.isEmpty());
    if (r == nullptr) {
        m_status->setText(tr("Choose a model to download, or an installed one to use."));
        m_status->setStyleSheet(QString());
    } else if (r->state == State::failed) {
        m_status->setText(tr("%1: download failed: %2").arg(r->name, r->error));
        m_status->setStyleSheet(QStringLiteral("QLabel { color: #b3261e; }"));
    } else {
        QString text = r->name;
        if (!r->progressText.isEmpty()) text += QStringLiteral(": ") + r->progressText;
        if (r->state == State::installed) text += tr(" (installed in %1)").arg(r->location);
        m_status->setText(text);
        m_status->setStyleSheet(QString());
    }
}

}  // namespace earshot::ui
