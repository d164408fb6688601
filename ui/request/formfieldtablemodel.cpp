#include "ui/request/formfieldtablemodel.h"

#include "core/http/redactor.h"
#include "ui/widgets/credentialmask.h"

#include <QApplication>
#include <QColor>
#include <QDir>
#include <QFileInfo>
#include <QLocale>
#include <QStyle>

namespace RetryLab::Ui {

FormFieldTableModel::FormFieldTableModel(QObject *parent) : QAbstractTableModel(parent)
{ }

void FormFieldTableModel::setFields(const QList<Core::DraftFormField> &fields)
{
    if (fields == m_fields)
        return;
    beginResetModel();
    m_fields = fields.mid(0, Core::DraftBody::maxFields);
    endResetModel();
    Q_EMIT fieldsChanged();
}

int FormFieldTableModel::append(const Core::DraftFormField &field)
{
    if (m_fields.size() >= Core::DraftBody::maxFields)
        return -1;
    const int row = static_cast<int>(m_fields.size());
    beginInsertRows({}, row, row);
    m_fields.append(field);
    endInsertRows();
    Q_EMIT fieldsChanged();
    return row;
}

int FormFieldTableModel::addField()
{
    return append({});
}

int FormFieldTableModel::addFile(const QString &path)
{
    Core::DraftFormField field;
    field.name = QStringLiteral("file");
    field.filePath = path;
    return append(field);
}

void FormFieldTableModel::setRevealed(bool revealed)
{
    if (revealed == m_revealed)
        return;
    m_revealed = revealed;
    if (!m_fields.isEmpty())
        Q_EMIT dataChanged(index(0, Value), index(rowCount() - 1, Value), {Qt::DisplayRole, Qt::ToolTipRole});
}

bool FormFieldTableModel::isMasked(const Core::DraftFormField &field) const
{
    return !m_revealed && !field.isFile() && Core::Redactor::isSensitiveName(field.name.trimmed());
}

int FormFieldTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_fields.size());
}

int FormFieldTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant FormFieldTableModel::data(const QModelIndex &index, int role) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return {};
    const Core::DraftFormField &field = m_fields.at(index.row());
    switch (index.column()) {
    case Enabled:
        if (role == Qt::CheckStateRole)
            return field.enabled ? Qt::Checked : Qt::Unchecked;
        if (role == Qt::ToolTipRole)
            return tr("Send this field");
        break;
    case Name:
        if (role == Qt::DisplayRole || role == Qt::EditRole)
            return field.name;
        break;
    case Value:
        if (field.isFile()) {
            const QFileInfo info(field.filePath);
            const bool readable = info.isFile() && info.isReadable();
            if (role == Qt::DisplayRole) {
                const QString name = QDir::toNativeSeparators(field.filePath);
                return readable ? tr("%1 (%2)").arg(name, QLocale().formattedDataSize(info.size()))
                                : tr("%1 (not readable)").arg(name);
            }
            if (role == Qt::DecorationRole)
                return QApplication::style()->standardIcon(QStyle::SP_FileIcon);
            if (role == Qt::EditRole)
                return field.filePath;
            if (role == Qt::ForegroundRole && !readable)
                return QColor(0xd7, 0x3a, 0x49);
            if (role == Qt::ToolTipRole) {
                return tr("Read from disk as each attempt is sent (never held in memory or saved with the "
                          "request: only its path is). Sent as \"%1\".")
                    .arg(field.fileName.isEmpty() ? info.fileName() : field.fileName);
            }
            break;
        }
        if (role == Qt::DisplayRole)
            return isMasked(field) ? CredentialMask::masked(field.value) : field.value;
        if (role == Qt::EditRole)
            return field.value;
        if (role == Qt::ToolTipRole && isMasked(field))
            return CredentialMask::maskedToolTip();
        break;
    case ContentType:
        if (role == Qt::DisplayRole || role == Qt::EditRole)
            return field.contentType;
        if (role == Qt::ToolTipRole)
            return field.isFile() ? tr("The part's Content-Type; empty sends none.")
                                  : tr("Only a file's part carries a Content-Type here.");
        break;
    default:
        break;
    }
    return {};
}

bool FormFieldTableModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return false;
    Core::DraftFormField &field = m_fields[index.row()];
    QString *text = nullptr;
    if (index.column() == Enabled && role == Qt::CheckStateRole) {
        const bool enabled = value.value<Qt::CheckState>() == Qt::Checked;
        if (enabled == field.enabled)
            return true;
        field.enabled = enabled;
    } else if (role != Qt::EditRole) {
        return false;
    } else if (index.column() == Name) {
        text = &field.name;
    } else if (index.column() == Value) {
        text = field.isFile() ? &field.filePath : &field.value;
    } else if (index.column() == ContentType && field.isFile()) {
        text = &field.contentType;
    } else {
        return false;
    }
    if (text) {
        QString typed = value.toString();
        // A file row stays a file: an emptied path would turn it into a field silently.
        if (text == &field.filePath && typed.trimmed().isEmpty())
            return false;
        if (typed == *text)
            return true;
        *text = typed;
    }
    // The name decides whether the value is masked.
    Q_EMIT dataChanged(this->index(index.row(), 0), this->index(index.row(), ColumnCount - 1));
    Q_EMIT fieldsChanged();
    return true;
}

Qt::ItemFlags FormFieldTableModel::flags(const QModelIndex &index) const
{
    if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
        return Qt::NoItemFlags;
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (index.column() == Enabled)
        f |= Qt::ItemIsUserCheckable;
    else if (index.column() != ContentType || m_fields.at(index.row()).isFile())
        f |= Qt::ItemIsEditable;
    return f;
}

QVariant FormFieldTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case Enabled:
        return tr("Send");
    case Name:
        return tr("Name");
    case Value:
        return tr("Value or file");
    case ContentType:
        return tr("Content-Type");
    default:
        return {};
    }
}

bool FormFieldTableModel::removeRows(int row, int count, const QModelIndex &parent)
{
    if (parent.isValid() || row < 0 || count < 1 || row + count > m_fields.size())
        return false;
    beginRemoveRows(parent, row, row + count - 1);
    m_fields.remove(row, count);
    endRemoveRows();
    Q_EMIT fieldsChanged();
    return true;
}

} // namespace RetryLab::Ui
