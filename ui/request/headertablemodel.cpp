#include "ui/request/headertablemodel.h"

#include "core/http/retryheaders.h"
#include "ui/widgets/credentialmask.h"

#include <QColor>

namespace RetryLab::Ui {

HeaderTableModel::HeaderTableModel(QObject *parent) : QAbstractTableModel(parent)
{ }

void HeaderTableModel::setHeaders(const QList<Core::DraftHeader> &headers)
{
    if (headers == m_headers)
        return;
    beginResetModel();
    m_headers = headers.mid(0, Core::RequestDraft::maxHeaders);
    endResetModel();
    Q_EMIT headersChanged();
}

void HeaderTableModel::setAttemptHeaders(bool on)
{
    if (on == m_attemptHeaders)
        return;
    m_attemptHeaders = on;
    Q_EMIT dataChanged(index(headerCount(), 0), index(headerCount() + automaticRows - 1, ColumnCount - 1));
    Q_EMIT headersChanged();
}

QVariant HeaderTableModel::automaticData(int row, int column, int role) const
{
    const bool requestId = row == headerCount();
    if (role == Qt::ForegroundRole)
        return QColor(0x80, 0x80, 0x80); // greyed: RetryLab's, not the user's
    if (role == Qt::ToolTipRole) {
        return tr("RetryLab adds X-Retry-Request-Id (the same for every attempt of a request) and "
                  "X-Retry-Attempt (1, 2, …) so that a server can tell a retry from a resend. Untick to send "
                  "this request without them.");
    }
    switch (column) {
    case Enabled:
        if (role == Qt::CheckStateRole)
            return m_attemptHeaders ? Qt::Checked : Qt::Unchecked;
        break;
    case Name:
        if (role == Qt::DisplayRole)
            return QString::fromLatin1(requestId ? Core::RetryHeaders::requestId : Core::RetryHeaders::attempt);
        break;
    case Value:
        if (role == Qt::DisplayRole)
            return requestId ? tr("a new id for each request (added by RetryLab)")
                             : tr("1, 2, 3, … for each attempt (added by RetryLab)");
        break;
    default:
        break;
    }
    return {};
}

void HeaderTableModel::setRevealed(bool revealed)
{
    if (revealed == m_revealed)
        return;
    m_revealed = revealed;
    if (!m_headers.isEmpty())
        Q_EMIT dataChanged(
            index(0, Value), index(rowCount() - 1, Value), {Qt::DisplayRole, Qt::ToolTipRole, MaskedRole});
}

bool HeaderTableModel::isCredential(const QString &name)
{
    return CredentialMask::isCredentialHeader(name);
}

int HeaderTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : headerCount() + automaticRows;
}

int HeaderTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant HeaderTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    if (isAutomaticRow(index.row()))
        return automaticData(index.row(), index.column(), role);
    const Core::DraftHeader &h = m_headers.at(index.row());
    const bool masked = !m_revealed && isCredential(h.name);
    switch (index.column()) {
    case Enabled:
        if (role == Qt::CheckStateRole)
            return h.enabled ? Qt::Checked : Qt::Unchecked;
        if (role == Qt::ToolTipRole)
            return tr("Send this header");
        break;
    case Name:
        if (role == Qt::DisplayRole || role == Qt::EditRole)
            return h.name;
        break;
    case Value:
        // A credential masked when it was saved: say so rather than show dots that
        // look like a token.
        if (isCredential(h.name) && Core::RequestDraft::holdsMaskedCredential(h.value)) {
            if (role == Qt::DisplayRole)
                return tr("%1 \u2014 re-enter the token").arg(h.value);
            if (role == Qt::ForegroundRole)
                return QColor(0xd7, 0x3a, 0x49);
            if (role == Qt::ToolTipRole)
                return tr("This value was not saved (settings are plain text), so it reads REDACTED. Type the "
                          "credential again, or untick the header; until then Send is blocked.");
        }
        if (role == Qt::DisplayRole)
            return masked ? CredentialMask::masked(h.value) : h.value;
        if (role == Qt::EditRole)
            return h.value;
        if (role == MaskedRole)
            return masked;
        if (role == Qt::ToolTipRole && masked)
            return CredentialMask::maskedToolTip();
        break;
    default:
        break;
    }
    return {};
}

bool HeaderTableModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return false;
    if (isAutomaticRow(index.row())) {
        if (index.column() != Enabled || role != Qt::CheckStateRole)
            return false;
        setAttemptHeaders(value.value<Qt::CheckState>() == Qt::Checked);
        return true;
    }
    Core::DraftHeader &h = m_headers[index.row()];
    if (index.column() == Enabled && role == Qt::CheckStateRole) {
        const bool enabled = value.value<Qt::CheckState>() == Qt::Checked;
        if (enabled == h.enabled)
            return true;
        h.enabled = enabled;
    } else if (index.column() == Name && role == Qt::EditRole) {
        if (value.toString() == h.name)
            return true;
        h.name = value.toString();
        // The name decides whether the value is masked.
        Q_EMIT dataChanged(this->index(index.row(), Value), this->index(index.row(), Value));
    } else if (index.column() == Value && role == Qt::EditRole) {
        if (value.toString() == h.value)
            return true;
        h.value = value.toString();
    } else {
        return false;
    }
    Q_EMIT dataChanged(index, index);
    Q_EMIT headersChanged();
    return true;
}

Qt::ItemFlags HeaderTableModel::flags(const QModelIndex &index) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return Qt::NoItemFlags;
    if (isAutomaticRow(index.row()))
        return index.column() == Enabled ? Qt::ItemIsEnabled | Qt::ItemIsUserCheckable : Qt::ItemIsEnabled;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (index.column() == Enabled)
        f |= Qt::ItemIsUserCheckable;
    else
        f |= Qt::ItemIsEditable;
    return f;
}

QVariant HeaderTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Enabled:
        return tr("Send");
    case Name:
        return tr("Name");
    case Value:
        return tr("Value");
    default:
        return {};
    }
}

bool HeaderTableModel::insertRows(int row, int count, const QModelIndex &parent)
{
    if (parent.isValid() || row < 0 || row > headerCount() || count < 1
        || m_headers.size() + count > Core::RequestDraft::maxHeaders)
        return false;
    beginInsertRows(parent, row, row + count - 1);
    m_headers.insert(row, count, Core::DraftHeader{});
    endInsertRows();
    Q_EMIT headersChanged();
    return true;
}

bool HeaderTableModel::removeRows(int row, int count, const QModelIndex &parent)
{
    if (parent.isValid() || row < 0 || count < 1 || row + count > headerCount())
        return false;
    beginRemoveRows(parent, row, row + count - 1);
    m_headers.remove(row, count);
    endRemoveRows();
    Q_EMIT headersChanged();
    return true;
}

} // namespace RetryLab::Ui
