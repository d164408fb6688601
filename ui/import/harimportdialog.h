#pragma once

#include "core/import/harimport.h"

#include <QDialog>
#include <QList>
#include <QString>

class QCheckBox;
class QDialogButtonBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableWidget;

namespace RetryLab::Ui {

/// File > Import > HAR file: the requests of an archive already read, as a
/// table (method, URL, status, time, page) to pick one or several from.
/// Credentials are masked in the table; the requests picked carry them.
/// For RetryLab's own HAR, the run's policy can be taken too.
class HarImportDialog final : public QDialog
{
    Q_OBJECT

public:
    enum Column { MethodColumn, UrlColumn, StatusColumn, TimeColumn, PageColumn, ColumnCount };

    HarImportDialog(const Core::HarImport::Archive &archive, const QString &fileName, QWidget *parent = nullptr);
    ~HarImportDialog() override;

    const Core::HarImport::Archive &archive() const { return m_archive; }
    QString fileName() const { return m_fileName; }

    /// Rows (= Archive::entries indexes) picked, in the table's order.
    QList<qsizetype> selectedEntries() const;
    void selectEntries(const QList<qsizetype> &indexes);
    QList<Core::ImportedRequest> selectedRequests() const;
    /// The run's policy is to be taken too (RetryLab's HAR only).
    bool appliesPolicy() const;
    void setAppliesPolicy(bool apply);

    /// Shows only the entries whose method, URL, status or page contain `text`
    /// (case-insensitive); hidden entries are never picked.
    void setFilter(const QString &text);
    /// Entries shown under the filter.
    int shownCount() const;

    QTableWidget *table() const { return m_table; }
    QString summaryText() const;
    QPushButton *importButton() const { return m_import; }

private:
    void handleSelectionChanged();

    Core::HarImport::Archive m_archive;
    QString m_fileName;
    QLabel *m_summary;
    QLineEdit *m_filter;
    QTableWidget *m_table;
    QCheckBox *m_applyPolicy;
    QDialogButtonBox *m_buttons;
    QPushButton *m_import;
};

} // namespace RetryLab::Ui
