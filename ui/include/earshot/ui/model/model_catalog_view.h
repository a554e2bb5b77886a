// ModelCatalogView: the models Earshot can download and what is installed, with Download,
// Cancel, Remove and Use for the selected row, a progress bar for each download and the reason
// when one failed. It shows plain rows and asks for actions; the app downloads.
#pragma once

#include <QList>
#include <QString>
#include <QWidget>

class QLabel;
class QProgressBar;
class QPushButton;
class QTableWidget;

namespace earshot::ui {

struct CatalogRow {
    enum class State { available, partial, downloading, verifying, installed, failed };

    QString name;       // the catalog name ("ggml-base.en"), or a folder put there by hand
    QString form;       // "hf" or "ggml"; empty for a folder that is not in the catalog
    QString download;   // download size as shown ("~148.9 MB")
    QString memory;     // memory needed as shown
    QString languages;  // "English", "99 languages"
    State state = State::available;
    qint64 receivedBytes = 0;  // of the download in progress, or kept in a .part
    qint64 totalBytes = -1;    // -1: not known
    QString progressText;      // "12.3 MB of 148.9 MB, 5.4 MB/s, 25 s left"
    QString error;             // why the last download failed; empty: it did not
    QString location;          // what Use opens once installed
};

class ModelCatalogView : public QWidget {
    Q_OBJECT

public:
    explicit ModelCatalogView(QWidget* parent = nullptr);

    // Replaces every row (the selection stays on the same name).
    void setRows(const QList<CatalogRow>& rows);
    // Updates the row of `row.name`, or appends it.
    void updateRow(const CatalogRow& row);
    // nullptr when there is no row of that name.
    const CatalogRow* row(const QString& name) const;
    const QList<CatalogRow>& rows() const { return m_rows; }

    void selectModel(const QString& name);
    QString selectedModel() const;

    QTableWidget* table() const { return m_table; }
    QPushButton* downloadButton() const { return m_download; }
    QPushButton* cancelButton() const { return m_cancel; }
    QPushButton* removeButton() const { return m_remove; }
    QPushButton* useButton() const { return m_use; }
    QLabel* statusLabel() const { return m_status; }
    // The progress bar in the row of `name`; nullptr when that row shows none.
    QProgressBar* progressBar(const QString& name) const;

Q_SIGNALS:
    void downloadRequested(const QString& name);
    void cancelRequested(const QString& name);
    void removeRequested(const QString& name);
    void useRequested(const QString& location);

private:
    void fillRow(int index);
    void updateActions();

    QTableWidget* m_table = nullptr;
    QPushButton* m_download = nullptr;
    QPushButton* m_cancel = nullptr;
    QPushButton* m_remove = nullptr;
    QPushButton* m_use = nullptr;
    QLabel* m_status = nullptr;
    QList<CatalogRow> m_rows;
};

}  // namespace earshot::ui
