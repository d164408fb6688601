#include "ui/monitor/incidentfilter.h"
#include "ui/monitor/incidentlistmodel.h"

namespace RetryLab::Ui {

IncidentFilter::IncidentFilter(QObject *parent) : QSortFilterProxyModel(parent)
{
    setSortRole(IncidentListModel::SortRole);
    setDynamicSortFilter(true);
}

void IncidentFilter::setText(const QString &text)
{
    if (text == m_text)
        return;
    m_text = text;
    invalidateRowsFilter();
}

void IncidentFilter::setMonitor(const QString &monitor)
{
    if (monitor == m_monitor)
        return;
    m_monitor = monitor;
    invalidateRowsFilter();
}

void IncidentFilter::setHiddenOnly(bool on)
{
    if (on == m_hiddenOnly)
        return;
    m_hiddenOnly = on;
    invalidateRowsFilter();
}

void IncidentFilter::setUnacknowledgedOnly(bool on)
{
    if (on == m_unacknowledgedOnly)
        return;
    m_unacknowledgedOnly = on;
    invalidateRowsFilter();
}

bool IncidentFilter::filterAcceptsRow(int sourceRow, const QModelIndex &sourceParent) const
{
    const QAbstractItemModel *model = sourceModel();
    const QModelIndex row = model->index(sourceRow, 0, sourceParent);
    if (!m_monitor.isEmpty() && row.data(IncidentListModel::MonitorRole).toString() != m_monitor)
        return false;
    if (m_hiddenOnly && !row.data(IncidentListModel::HiddenRole).toBool())
        return false;
    if (m_unacknowledgedOnly && row.data(IncidentListModel::AcknowledgedRole).toBool())
        return false;
    const QString text = m_text.trimmed();
    if (text.isEmpty())
        return true;
    for (const int column : {IncidentListModel::MonitorColumn, IncidentListModel::AgentColumn,
             IncidentListModel::FirstErrorColumn, IncidentListModel::LastErrorColumn}) {
        if (model->index(sourceRow, column, sourceParent).data().toString().contains(text, Qt::CaseInsensitive))
            return true;
    }
    return false;
}

} // namespace RetryLab::Ui
