#include "ui/policy/faultactionmodel.h"

namespace RetryLab::Ui {

using Core::FaultAction;
using Core::NetworkFaultClass;

FaultActionModel::FaultActionModel(QObject *parent)
    : QAbstractTableModel(parent), m_faults(Core::allNetworkFaultClasses())
{
    setActions(Core::ClassificationRules::defaultNetworkActions());
    m_factors = QList<double>(m_faults.size(), 1.0);
}

void FaultActionModel::setDelayFactors(const QMap<NetworkFaultClass, double> &factors)
{
    QList<double> next;
    next.reserve(m_faults.size());
    for (NetworkFaultClass fault : std::as_const(m_faults))
        next.append(factors.value(fault, 1.0));
    if (next == m_factors)
        return;
    m_factors = next;
    Q_EMIT dataChanged(index(0, DelayFactorColumn), index(rowCount() - 1, DelayFactorColumn));
}

QMap<NetworkFaultClass, double> FaultActionModel::delayFactors() const
{
    QMap<NetworkFaultClass, double> map;
    for (qsizetype row = 0; row < m_faults.size(); ++row) {
        if (m_factors.at(row) != 1.0)
            map.insert(m_faults.at(row), m_factors.at(row));
    }
    return map;
}

void FaultActionModel::setActions(const QMap<NetworkFaultClass, FaultAction> &actions)
{
    QList<FaultAction> next;
    next.reserve(m_faults.size());
    for (NetworkFaultClass fault : std::as_const(m_faults))
        next.append(actions.value(fault, FaultAction::GiveUp));
    if (next == m_actions)
        return;
    const bool firstFill = m_actions.isEmpty();
    m_actions = next;
    if (!firstFill)
        Q_EMIT dataChanged(index(0, ActionColumn), index(rowCount() - 1, ActionColumn));
}

QMap<NetworkFaultClass, FaultAction> FaultActionModel::actions() const
{
    QMap<NetworkFaultClass, FaultAction> map;
    for (qsizetype row = 0; row < m_faults.size(); ++row)
        map.insert(m_faults.at(row), m_actions.at(row));
    return map;
}

int FaultActionModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_faults.size());
}

int FaultActionModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant FaultActionModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const NetworkFaultClass fault = m_faults.at(index.row());
    const FaultAction action = m_actions.at(index.row());

    switch (role) {
    case FaultRole:
        return static_cast<int>(fault);
    case ActionRole:
        return static_cast<int>(action);
    case Qt::DisplayRole:
        if (index.column() == DelayFactorColumn)
            return QStringLiteral("\u00d7 %1").arg(m_factors.at(index.row()));
        return index.column() == FaultColumn ? faultTitle(fault) : actionTitle(action);
    case Qt::EditRole:
        if (index.column() == DelayFactorColumn)
            return m_factors.at(index.row());
        return index.column() == ActionColumn ? QVariant(static_cast<int>(action)) : QVariant();
    case Qt::ToolTipRole:
        if (index.column() == DelayFactorColumn)
            return tr("The backoff delay after this fault, times this factor (0 to %1). 1: the backoff as it is.")
                .arg(Core::PolicyLimits::maxDelayFactor);
        return index.column() == FaultColumn ? faultExplanation(fault) : actionExplanation(action);
    default:
        return {};
    }
}

bool FaultActionModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return false;
    if (index.column() == DelayFactorColumn && role == Qt::EditRole) {
        bool ok = false;
        const double factor = value.toDouble(&ok);
        if (!ok || !(factor >= 0.0 && factor <= Core::PolicyLimits::maxDelayFactor))
            return false;
        if (m_factors.at(index.row()) != factor) {
            m_factors[index.row()] = factor;
            Q_EMIT dataChanged(index, index);
            Q_EMIT actionsEdited();
        }
        return true;
    }
    if (index.column() != ActionColumn || (role != Qt::EditRole && role != ActionRole))
        return false;

    std::optional<FaultAction> action;
    if (value.typeId() == QMetaType::QString) {
        action = Core::faultActionFromName(value.toString());
    } else {
        bool ok = false;
        const int number = value.toInt(&ok);
        if (ok && allActions().contains(static_cast<FaultAction>(number)))
            action = static_cast<FaultAction>(number);
    }
    if (!action)
        return false;
    if (m_actions.at(index.row()) == *action)
        return true;
    m_actions[index.row()] = *action;
    Q_EMIT dataChanged(index, index);
    Q_EMIT actionsEdited();
    return true;
}

Qt::ItemFlags FaultActionModel::flags(const QModelIndex &index) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return Qt::NoItemFlags;
    Qt::ItemFlags flags = Qt::ItemIsEnabled | Qt::ItemIsSelectable | Qt::ItemNeverHasChildren;
    if (index.column() == ActionColumn || index.column() == DelayFactorColumn)
        flags |= Qt::ItemIsEditable;
    return flags;
}

QVariant FaultActionModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case FaultColumn:
        return tr("Network fault");
    case ActionColumn:
        return tr("Action");
    case DelayFactorColumn:
        return tr("Delay");
    default:
        return {};
    }
}

QString FaultActionModel::faultTitle(NetworkFaultClass fault)
{
    switch (fault) {
    case NetworkFaultClass::ConnectionRefused:
        return tr("Connection refused");
    case NetworkFaultClass::ConnectionReset:
        return tr("Connection reset / closed");
    case NetworkFaultClass::Timeout:
        return tr("Timeout");
    case NetworkFaultClass::HostNotFound:
        return tr("Host not found (DNS)");
    case NetworkFaultClass::TlsFailure:
        return tr("TLS failure");
    case NetworkFaultClass::BrokenStream:
        return tr("Broken stream");
    case NetworkFaultClass::ProtocolFailure:
        return tr("Protocol failure");
    case NetworkFaultClass::Other:
        return tr("Other network error");
    }
    return {};
}

QString FaultActionModel::faultExplanation(NetworkFaultClass fault)
{
    switch (fault) {
    case NetworkFaultClass::ConnectionRefused:
        return tr("Nothing listens on the port: the server is down or restarting. Usually transient when a "
                  "service is being redeployed.");
    case NetworkFaultClass::ConnectionReset:
        return tr("The peer reset or closed the connection before answering: a busy server or a proxy dropping "
                  "connections. Usually transient.");
    case NetworkFaultClass::Timeout:
        return tr("No answer within the per-attempt timeout, or the network timed out. The server may be "
                  "overloaded, and it may still have applied the request.");
    case NetworkFaultClass::HostNotFound:
        return tr("The name did not resolve. A typo in the host does not fix itself, so giving up is the usual "
                  "choice.");
    case NetworkFaultClass::TlsFailure:
        return tr("The TLS handshake or the certificate check failed. Not transient, and never ignored: a "
                  "retry would only repeat the failure.");
    case NetworkFaultClass::BrokenStream:
        return tr("The body ended before its announced length: the connection broke in the middle of the "
                  "response.");
    case NetworkFaultClass::ProtocolFailure:
        return tr("Bytes that are not HTTP arrived, for example a corrupted packet. The Retry pattern treats "
                  "such rare, unusual faults as a case for retrying at once.");
    case NetworkFaultClass::Other:
        return tr("Any other network error Qt reports.");
    }
    return {};
}

QString FaultActionModel::actionTitle(FaultAction action)
{
    switch (action) {
    case FaultAction::RetryAfterDelay:
        return tr("Retry after a delay");
    case FaultAction::RetryImmediately:
        return tr("Retry immediately");
    case FaultAction::GiveUp:
        return tr("Cancel (give up)");
    }
    return {};
}

QString FaultActionModel::actionExplanation(FaultAction action)
{
    switch (action) {
    case FaultAction::RetryAfterDelay:
        return tr("Connectivity or busy faults: wait the policy's backoff delay, then retry (Retry pattern).");
    case FaultAction::RetryImmediately:
        return tr("A rare, unusual fault that is unlikely to repeat: the first retry goes out at once, "
                  "without waiting; later retries wait the backoff delay (Retry pattern).");
    case FaultAction::GiveUp:
        return tr("Not transient: report the failure at once instead of retrying (Retry pattern: cancel).");
    }
    return {};
}

QList<FaultAction> FaultActionModel::allActions()
{
    return {FaultAction::RetryAfterDelay, FaultAction::RetryImmediately, FaultAction::GiveUp};
}

} // namespace RetryLab::Ui
