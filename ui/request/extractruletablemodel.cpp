#include "ui/request/extractruletablemodel.h"

#include <QColor>
#include <QJsonObject>

#include <algorithm>

namespace RetryLab::Ui {

namespace {

using RuleSource = Core::ResponseVariables::Rule::Source;

// The field of the file format the Where column fills; empty for the status.
QString whereKey(RuleSource source)
{
    switch (source) {
    case RuleSource::JsonPointer:
        return QStringLiteral("pointer");
    case RuleSource::Header:
        return QStringLiteral("header");
    case RuleSource::Regex:
        return QStringLiteral("pattern");
    case RuleSource::Status:
        break;
    }
    return {};
}

} // namespace

ExtractRuleTableModel::ExtractRuleTableModel(QObject *parent) : QAbstractTableModel(parent)
{ }

const QList<RuleSource> &ExtractRuleTableModel::sources()
{
    static const QList<RuleSource> all{
        RuleSource::JsonPointer, RuleSource::Header, RuleSource::Regex, RuleSource::Status};
    return all;
}

QString ExtractRuleTableModel::sourceTitle(RuleSource source)
{
    switch (source) {
    case RuleSource::JsonPointer:
        return tr("JSON pointer");
    case RuleSource::Header:
        return tr("Header");
    case RuleSource::Regex:
        return tr("Regular expression");
    case RuleSource::Status:
        break;
    }
    return tr("Status");
}

QString ExtractRuleTableModel::hint(RuleSource source)
{
    switch (source) {
    case RuleSource::JsonPointer:
        return tr("e.g. /access_token");
    case RuleSource::Header:
        return tr("e.g. ETag");
    case RuleSource::Regex:
        return tr("e.g. id=(\\d+): the first group");
    case RuleSource::Status:
        break;
    }
    return {};
}

void ExtractRuleTableModel::validate(Row &row)
{
    row.parsed.reset();
    row.problem.clear();
    row.problemColumn = -1;
    if (row.name.trimmed().isEmpty()) {
        row.problem = tr("give the variable a name");
        row.problemColumn = Variable;
        return;
    }
    QJsonObject object{{QStringLiteral("name"), row.name.trimmed()},
        {QStringLiteral("from"), Core::ResponseVariables::sourceName(row.from)}};
    const QString key = whereKey(row.from);
    if (!key.isEmpty()) {
        // A pointer keeps its spaces (a key may have them); a header's name or a pattern is typed.
        object.insert(key, row.from == RuleSource::Header ? row.where.trimmed() : row.where);
    }
    const auto rule = Core::ResponseVariables::ruleFromJson(object);
    if (rule) {
        row.parsed = rule.value();
        return;
    }
    const Core::Error error = rule.errorDetail();
    row.problem = error.message;
    row.problemColumn = error.path == QLatin1String("name") ? Variable : error.path == key ? Where : Source;
}

QList<ExtractRuleTableModel::Rule> ExtractRuleTableModel::rules() const
{
    QList<Rule> out;
    for (const Row &row : m_rows) {
        if (row.parsed)
            out.append(*row.parsed);
    }
    return out;
}

void ExtractRuleTableModel::setRules(const QList<Rule> &rules)
{
    beginResetModel();
    m_rows.clear();
    for (const Rule &rule : rules) {
        Row row;
        row.name = rule.name;
        row.from = rule.from;
        row.where = rule.from == RuleSource::JsonPointer ? rule.pointer
            : rule.from == RuleSource::Header            ? rule.header
            : rule.from == RuleSource::Regex             ? rule.pattern
                                                         : QString();
        validate(row);
        m_rows.append(row);
    }
    endResetModel();
    Q_EMIT rulesChanged();
}

int ExtractRuleTableModel::invalidCount() const
{
    return static_cast<int>(std::count_if(m_rows.cbegin(), m_rows.cend(), [](const Row &r) { return !r.parsed; }));
}

QString ExtractRuleTableModel::problem(int row) const
{
    return row >= 0 && row < m_rows.size() ? m_rows.at(row).problem : QString();
}

int ExtractRuleTableModel::problemColumn(int row) const
{
    return row >= 0 && row < m_rows.size() ? m_rows.at(row).problemColumn : -1;
}

int ExtractRuleTableModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : static_cast<int>(m_rows.size());
}

int ExtractRuleTableModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant ExtractRuleTableModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::ParentIsInvalid))
        return {};
    const Row &row = m_rows.at(index.row());
    const int column = index.column();
    const bool used = column != Where || !whereKey(row.from).isEmpty();
    switch (role) {
    case ValidRole:
        return row.parsed.has_value();
    case ProblemRole:
        return row.problem;
    case UsedRole:
        return used;
    case ChoicesRole:
        if (column == Source) {
            QStringList names;
            for (RuleSource source : sources())
                names.append(sourceTitle(source));
            return names;
        }
        return {};
    case Qt::ToolTipRole:
        if (!row.parsed && (column == row.problemColumn || column == Check))
            return tr("Not used: %1").arg(row.problem);
        if (!used)
            return tr("The status needs nothing here.");
        return {};
    case Qt::ForegroundRole:
        if (column == Check && !row.parsed)
            return QColor(0xb0, 0x20, 0x20);
        if (column == Check || !used || (column == Where && row.where.isEmpty()))
            return QColor(0x80, 0x80, 0x80);
        return {};
    case Qt::DisplayRole:
    case Qt::EditRole:
        break;
    default:
        return {};
    }
    switch (column) {
    case Variable:
        return row.name;
    case Source:
        return role == Qt::EditRole ? QVariant(static_cast<int>(sources().indexOf(row.from))) : sourceTitle(row.from);
    case Where:
        if (role == Qt::EditRole)
            return row.where;
        if (!used)
            return QStringLiteral("\u2014");
        return row.where.isEmpty() ? hint(row.from) : row.where;
    case Check:
        if (role == Qt::EditRole)
            return {};
        if (!row.parsed)
            return tr("\u26a0 not used: %1").arg(row.problem);
        return row.from == RuleSource::Status
            ? tr("{{%1}} \u2190 the status").arg(row.parsed->name)
            : tr("{{%1}} \u2190 %2 %3").arg(row.parsed->name, sourceTitle(row.from).toLower(), row.where);
    default:
        break;
    }
    return {};
}

bool ExtractRuleTableModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (role != Qt::EditRole || !index.isValid() || !checkIndex(index, CheckIndexOption::ParentIsInvalid))
        return false;
    Row &row = m_rows[index.row()];
    switch (index.column()) {
    case Variable:
        row.name = value.toString();
        break;
    case Source: {
        bool ok = false;
        int choice = value.toInt(&ok);
        if (!ok || value.typeId() == QMetaType::QString) {
            choice = -1;
            for (qsizetype i = 0; i < sources().size(); ++i) {
                if (sourceTitle(sources().at(i)).compare(value.toString(), Qt::CaseInsensitive) == 0)
                    choice = static_cast<int>(i);
            }
        }
        if (choice < 0 || choice >= sources().size())
            return false;
        row.from = sources().at(choice);
        break;
    }
    case Where:
        if (whereKey(row.from).isEmpty())
            return false;
        row.where = value.toString();
        break;
    default:
        return false;
    }
    validate(row);
    Q_EMIT dataChanged(this->index(index.row(), 0), this->index(index.row(), ColumnCount - 1));
    Q_EMIT rulesChanged();
    return true;
}

Qt::ItemFlags ExtractRuleTableModel::flags(const QModelIndex &index) const
{
    if (!index.isValid() || !checkIndex(index, CheckIndexOption::ParentIsInvalid))
        return Qt::NoItemFlags;
    const Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (index.column() == Check)
        return f;
    if (index.column() == Where && whereKey(m_rows.at(index.row()).from).isEmpty())
        return f;
    return f | Qt::ItemIsEditable;
}

QVariant ExtractRuleTableModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || section < 0 || section >= ColumnCount)
        return {};
    if (role == Qt::DisplayRole) {
        switch (section) {
        case Variable:
            return tr("Variable");
        case Source:
            return tr("From");
        case Where:
            return tr("Where");
        case Check:
            return tr("Sets");
        default:
            break;
        }
    }
    if (role == Qt::ToolTipRole && section == Variable) {
        return tr("The variable the value goes into, used by the next requests as {{name}} (over the "
                  "environment's, until another environment is chosen)");
    }
    if (role == Qt::ToolTipRole && section == Where)
        return tr("The JSON pointer (/data/token), the header's name or the regular expression (its first group)");
    return {};
}

bool ExtractRuleTableModel::insertRows(int row, int count, const QModelIndex &parent)
{
    if (parent.isValid() || row < 0 || row > m_rows.size() || count < 1)
        return false;
    beginInsertRows(parent, row, row + count - 1);
    for (int i = 0; i < count; ++i) {
        Row added;
        validate(added);
        m_rows.insert(row + i, added);
    }
    endInsertRows();
    Q_EMIT rulesChanged();
    return true;
}

bool ExtractRuleTableModel::removeRows(int row, int count, const QModelIndex &parent)
{
    if (parent.isValid() || row < 0 || count < 1 || row + count > m_rows.size())
        return false;
    beginRemoveRows(parent, row, row + count - 1);
    m_rows.remove(row, count);
    endRemoveRows();
    Q_EMIT rulesChanged();
    return true;
}

} // namespace RetryLab::Ui
