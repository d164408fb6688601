#pragma once

#include <QSortFilterProxyModel>

namespace RetryLab::Ui {

/// The filter and sort of an IncidentListModel: a text found in the monitor,
/// agent or errors (case-insensitive), one monitor, hidden incidents only,
/// unacknowledged ones only. Sorts by IncidentListModel::SortRole, so times,
/// durations and counts sort as numbers.
class IncidentFilter final : public QSortFilterProxyModel
{
    Q_OBJECT

public:
    explicit IncidentFilter(QObject *parent = nullptr);

    void setText(const QString &text);
    QString text() const { return m_text; }
    /// Empty: every monitor.
    void setMonitor(const QString &monitor);
    QString monitor() const { return m_monitor; }
    void setHiddenOnly(bool on);
    bool hiddenOnly() const { return m_hiddenOnly; }
    void setUnacknowledgedOnly(bool on);
    bool unacknowledgedOnly() const { return m_unacknowledgedOnly; }

protected:
    bool filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const override;

private:
    QString m_text;
    QString m_monitor;
    bool m_hiddenOnly = false;
    bool m_unacknowledgedOnly = false;
};

} // namespace RetryLab::Ui
