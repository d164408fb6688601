#include "ui/monitor/incidentlistmodel.h"
#include "core/export/csvexport.h"
#include "core/util/durationtext.h"

#include <QDateTime>
#include <QLoggingCategory>

#include <limits>

Q_LOGGING_CATEGORY(lcIncidentModel, "retrylab.ui.monitor.incidents")

namespace RetryLab::Ui {

namespace {

QString utcText(qint64 ms)
{
    return QDateTime::fromMSecsSinceEpoch(ms, QTimeZone::utc()).toString(QStringLiteral("yyyy-MM-ddTHH:mm:ss.zzzZ"));
}

} // namespace

IncidentListModel::IncidentListModel(QObject *parent) : QAbstractTableModel(parent)
{ }

void IncidentListModel::setIncidents(QList<Core::Incident> incidents)
{
    beginResetModel();
    m_incidents = std::move(incidents);
    endResetModel();
}

void IncidentListModel::setAcknowledged(QSet<QString> keys)
{
    m_acknowledged = std::move(keys);
    if (!m_incidents.isEmpty())
        Q_EMIT dataChanged(index(0, 0), index(rowCount() - 1, ColumnCount - 1));
}

void IncidentListModel::setTimeZone(const QTimeZone &zone)
{
    m_zone = zone;
    if (!m_incidents.isEmpty())
        Q_EMIT dataChanged(index(0, StartColumn), index(rowCount() - 1, StartColumn));
}

QString IncidentListModel::key(const Core::Incident &incident)
{
    return incident.monitor + QLatin1Char('|') + incident.agent + QLatin1Char('|') + QString::number(incident.startMs);
}

QByteArray IncidentListModel::toCsv(const QList<Core::Incident> &incidents, const QSet<QString> &acknowledged)
{
    using Core::CsvExport::neutralised;
    using Core::CsvExport::quoteField;
    QByteArray csv = QByteArrayLiteral("monitor,agent,start_utc,end_utc,duration_ms,ongoing,checks,attempts,"
                                       "failed_attempts,kind,first_error,last_error,acknowledged\r\n");
    for (const Core::Incident &incident : incidents) {
        const QStringList fields{neutralised(incident.monitor), neutralised(incident.agent), utcText(incident.startMs),
            incident.endMs ? utcText(*incident.endMs) : QString(), QString::number(incident.durationMs),
            incident.endMs ? QStringLiteral("false") : QStringLiteral("true"), QString::number(incident.checks),
            QString::number(incident.attempts), QString::number(incident.failedAttempts),
            incident.hidden ? QStringLiteral("hidden") : QStringLiteral("seen"), neutralised(incident.firstError),
            neutralised(incident.lastError),
            acknowledged.contains(key(incident)) ? QStringLiteral("true") : QStringLiteral("false")};
        QStringList quoted;
        quoted.reserve(fields.size());
        for (const QString &field : fields)
            quoted.append(quoteField(field));
        csv += quoted.join(QLatin1Char(',')).toUtf8() + QByteArrayLiteral("\r\n");
    }
    return csv;
}

int IncidentListModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_incidents.size());
}

int IncidentListModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant IncidentListModel::display(const Core::Incident &incident, int column) const
{
    switch (column) {
    case MonitorColumn:
        return incident.monitor;
    case AgentColumn:
        return incident.agent;
    case StartColumn:
        return QDateTime::fromMSecsSinceEpoch(incident.startMs, m_zone).toString(QStringLiteral("yyyy-MM-dd HH:mm:ss"));
    case DurationColumn:
        return incident.endMs ? Core::DurationText::format(double(incident.durationMs)) : tr("ongoing");
    case FirstErrorColumn:
        return incident.firstError;
    case LastErrorColumn:
        return incident.lastError;
    case AttemptsColumn:
        return tr("%1 / %2").arg(incident.attempts).arg(incident.failedAttempts);
    case KindColumn:
        return incident.hidden ? tr("hidden") : tr("seen");
    case AcknowledgedColumn:
        return m_acknowledged.contains(key(incident)) ? tr("yes") : tr("no");
    default:
        return {};
    }
}

QVariant IncidentListModel::sortValue(const Core::Incident &incident, int column) const
{
    switch (column) {
    case StartColumn:
        return incident.startMs;
    case DurationColumn:
        // Ongoing incidents sort as the longest: they have not ended yet.
        return incident.endMs ? incident.durationMs : std::numeric_limits<qint64>::max();
    case AttemptsColumn:
        return incident.attempts;
    case KindColumn:
        return incident.hidden;
    case AcknowledgedColumn:
        return m_acknowledged.contains(key(incident));
    default:
        return display(incident, column).toString().toLower();
    }
}

QVariant IncidentListModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Core::Incident &incident = m_incidents.at(index.row());
    switch (role) {
    case Qt::DisplayRole:
        return display(incident, index.column());
    case Qt::ToolTipRole:
        if (index.column() == DurationColumn && !incident.endMs)
            return tr("Still failing at the end of the window, after %1")
                .arg(Core::DurationText::format(double(incident.durationMs)));
        if (index.column() == KindColumn)
            return incident.hidden ? tr("Every check succeeded, but only after failed attempts: the retries hid it")
                                   : tr("Checks failed: users saw it");
        if (index.column() == FirstErrorColumn || index.column() == LastErrorColumn)
            return display(incident, index.column());
        return {};
    case Qt::CheckStateRole:
        if (index.column() == AcknowledgedColumn)
            return m_acknowledged.contains(key(incident)) ? Qt::Checked : Qt::Unchecked;
        return {};
    case SortRole:
        return sortValue(incident, index.column());
    case HiddenRole:
        return incident.hidden;
    case AcknowledgedRole:
        return m_acknowledged.contains(key(incident));
    case KeyRole:
        return key(incident);
    case MonitorRole:
        return incident.monitor;
    default:
        return {};
    }
}

QVariant IncidentListModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return QAbstractTableModel::headerData(section, orientation, role);
    switch (section) {
    case MonitorColumn:
        return tr("Monitor");
    case AgentColumn:
        return tr("Agent");
    case StartColumn:
        return tr("Start");
    case DurationColumn:
        return tr("Duration");
    case FirstErrorColumn:
        return tr("First error");
    case LastErrorColumn:
        return tr("Last error");
    case AttemptsColumn:
        return tr("Attempts / failed");
    case KindColumn:
        return tr("Hidden or seen");
    case AcknowledgedColumn:
        return tr("Acknowledged");
    default:
        return {};
    }
}

Qt::ItemFlags IncidentListModel::flags(const QModelIndex &index) const
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return Qt::NoItemFlags;
    Qt::ItemFlags flags = Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
    if (index.column() == AcknowledgedColumn)
        flags |= Qt::ItemIsUserCheckable;
    return flags;
}

bool IncidentListModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (role != Qt::CheckStateRole || index.column() != AcknowledgedColumn || !index.isValid()
        || !checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return false;
    const QString incidentKey = key(m_incidents.at(index.row()));
    const bool on = static_cast<Qt::CheckState>(value.toInt()) == Qt::Checked;
    if (m_acknowledged.contains(incidentKey) == on)
        return true;
    if (on)
        m_acknowledged.insert(incidentKey);
    else
        m_acknowledged.remove(incidentKey);
    qCDebug(lcIncidentModel) << "acknowledged" << incidentKey << on;
    Q_EMIT dataChanged(index.siblingAtColumn(0), index.siblingAtColumn(ColumnCount - 1));
    Q_EMIT acknowledgementChanged(incidentKey, on);
    return true;
}

} // namespace RetryLab::Ui
