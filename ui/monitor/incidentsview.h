#pragma once

#include "core/history/historyfigures.h"
#include "core/util/result.h"

#include <QSet>
#include <QWidget>

#include <functional>

class QCheckBox;
class QComboBox;
class QLineEdit;
class QPushButton;
class QTableView;

namespace RetryLab::Ui {

class FieldMessage;
class IncidentFilter;
class IncidentListModel;

/// The incidents of every monitor in a sortable table under a filter bar (text,
/// monitor, hidden only, unacknowledged only), with an acknowledgement per
/// incident and an export of the rows shown as CSV. Enter or a double-click on a
/// row opens it (incidentActivated()); Space on the Acknowledged cell or Ctrl+K
/// anywhere in the row toggles its acknowledgement.
class IncidentsView final : public QWidget
{
    Q_OBJECT

public:
    /// Asks for the file to save to; empty: cancelled. A test replaces the dialog.
    using SaveChooser = std::function<QString(const QString &suggested)>;

    explicit IncidentsView(QWidget *parent = nullptr);

    void setIncidents(QList<Core::Incident> incidents);
    void setAcknowledged(QSet<QString> keys);
    QSet<QString> acknowledged() const;

    /// The incidents shown (filtered, in the table's order).
    QList<Core::Incident> shownIncidents() const;
    /// Writes shownIncidents() as CSV (IncidentListModel::toCsv) to `path`, atomically.
    Core::Result<qint64> exportCsv(const QString &path) const;
    void setSaveChooser(SaveChooser chooser) { m_chooseSave = std::move(chooser); }

    IncidentListModel *model() const { return m_model; }
    IncidentFilter *filter() const { return m_filter; }
    QTableView *table() const { return m_table; }
    QLineEdit *filterText() const { return m_text; }
    QComboBox *monitorChooser() const { return m_monitor; }
    QCheckBox *hiddenOnly() const { return m_hiddenOnly; }
    QCheckBox *unacknowledgedOnly() const { return m_unacknowledgedOnly; }
    QPushButton *exportButton() const { return m_export; }
    FieldMessage *message() const { return m_message; }

Q_SIGNALS:
    void incidentActivated(const Core::Incident &incident);
    void acknowledgementChanged(const QString &key, bool acknowledged);

private:
    void handleActivated(const QModelIndex &index);
    void handleExport();
    void toggleCurrentAcknowledgement();
    void refillMonitors();

    IncidentListModel *m_model;
    IncidentFilter *m_filter;
    QLineEdit *m_text;
    QComboBox *m_monitor;
    QCheckBox *m_hiddenOnly;
    QCheckBox *m_unacknowledgedOnly;
    QPushButton *m_export;
    QTableView *m_table;
    FieldMessage *m_message;
    SaveChooser m_chooseSave;
};

} // namespace RetryLab::Ui
