#include "ui/proxy/faultrulesmodel.h"

#include "ui/widgets/outcomestyle.h"

#include <QColor>

namespace RetryLab::Ui {

using namespace RetryLab::Core;

FaultRulesModel::FaultRulesModel(QObject *parent) : QAbstractTableModel(parent)
{ }

int FaultRulesModel::rowCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : int(m_rules.size());
}

int FaultRulesModel::columnCount(const QModelIndex &parent) const
{
    return parent.isValid() ? 0 : ColumnCount;
}

QVariant FaultRulesModel::headerData(int section, Qt::Orientation orientation, int role) const
{
    if (orientation != Qt::Horizontal || role != Qt::DisplayRole)
        return {};
    switch (section) {
    case On:
        return tr("On");
    case Name:
        return tr("Name");
    case Rule:
        return tr("Rule");
    case Meaning:
        return tr("What it does");
    case Matched:
        return tr("Matched");
    case Fired:
        return tr("Fired");
    default:
        return {};
    }
}

Qt::ItemFlags FaultRulesModel::flags(const QModelIndex &index) const
{
    Qt::ItemFlags f = Qt::ItemIsEnabled | Qt::ItemIsSelectable;
    if (index.column() == On)
        f |= Qt::ItemIsUserCheckable;
    if (index.column() == Rule)
        f |= Qt::ItemIsEditable;
    return f;
}

QVariant FaultRulesModel::data(const QModelIndex &index, int role) const
{
    if (!index.isValid() || index.row() >= m_rules.size())
        return {};
    const FaultRule &r = m_rules[index.row()];
    const QString &draft = m_drafts[index.row()];
    const QString &error = m_errors[index.row()];
    const FaultRuleSet::Counts counts = m_counts.value(index.row());
    if (role == Qt::CheckStateRole && index.column() == On)
        return r.enabled ? Qt::Checked : Qt::Unchecked;
    if (role == Qt::DisplayRole || role == Qt::EditRole) {
        switch (index.column()) {
        case Name:
            return r.name;
        case Rule: {
            // The line without its name and state, which have columns of their own.
            if (!draft.isEmpty())
                return draft;
            FaultRule shown = r;
            shown.name.clear();
            shown.enabled = true;
            return shown.spec();
        }
        case Meaning:
            return error.isEmpty() ? r.describe() : tr("not applied: %1").arg(error);
        case Matched:
            return QString::number(counts.matched);
        case Fired:
            return QString::number(counts.fired);
        default:
            return {};
        }
    }
    if (role == Qt::ToolTipRole && (index.column() == Rule || index.column() == Meaning))
        return error.isEmpty() ? r.describe() : error;
    if (role == Qt::ForegroundRole && !error.isEmpty() && (index.column() == Rule || index.column() == Meaning))
        return outcomeColor(AttemptOutcome::Failed);
    if (role == Qt::TextAlignmentRole && (index.column() == Matched || index.column() == Fired))
        return int(Qt::AlignRight | Qt::AlignVCenter);
    return {};
}

bool FaultRulesModel::setData(const QModelIndex &index, const QVariant &value, int role)
{
    if (!index.isValid() || index.row() >= m_rules.size())
        return false;
    const int row = index.row();
    if (index.column() == On && role == Qt::CheckStateRole) {
        m_rules[row].enabled = value.toInt() == Qt::Checked;
        Q_EMIT dataChanged(index, index);
        Q_EMIT ruleSwitched(m_rules[row].name, m_rules[row].enabled);
        return true;
    }
    if (index.column() != Rule || role != Qt::EditRole)
        return false;
    const QString text = value.toString().trimmed();
    const QString before = problem();
    const Result<FaultRule> parsed = FaultRule::parse(text);
    if (parsed) {
        FaultRule rule = *parsed;
        if (rule.name.isEmpty())
            rule.name = m_rules[row].name;
        if (rule.enabled)
            rule.enabled = m_rules[row].enabled;
        m_rules[row] = rule;
        m_drafts[row].clear();
        m_errors[row].clear();
    } else {
        m_drafts[row] = text;
        m_errors[row] = parsed.error();
    }
    Q_EMIT dataChanged(this->index(row, 0), this->index(row, ColumnCount - 1));
    if (parsed)
        Q_EMIT rulesEdited(m_rules);
    if (problem() != before)
        Q_EMIT problemChanged(problem());
    return true;
}

void FaultRulesModel::setRules(const QList<FaultRule> &rules)
{
    if (rules.size() == m_rules.size()) {
        m_rules = rules;
        if (!m_rules.isEmpty())
            Q_EMIT dataChanged(index(0, 0), index(int(m_rules.size()) - 1, ColumnCount - 1));
        return;
    }
    beginResetModel();
    m_rules = rules;
    m_drafts = QList<QString>(rules.size());
    m_errors = QList<QString>(rules.size());
    m_counts.clear();
    endResetModel();
    Q_EMIT problemChanged(problem());
}

void FaultRulesModel::setCounts(const QList<FaultRuleSet::Counts> &counts)
{
    m_counts = counts;
    if (!m_rules.isEmpty())
        Q_EMIT dataChanged(index(0, Matched), index(int(m_rules.size()) - 1, Fired));
}

int FaultRulesModel::addRule(const FaultRule &rule)
{
    const int row = int(m_rules.size());
    beginInsertRows({}, row, row);
    m_rules.append(rule);
    m_drafts.append(QString());
    m_errors.append(QString());
    endInsertRows();
    FaultRuleList named{m_rules, std::nullopt};
    named.nameRules();
    m_rules = named.rules;
    Q_EMIT rulesEdited(m_rules);
    return row;
}

void FaultRulesModel::removeRule(int row)
{
    if (row < 0 || row >= m_rules.size())
        return;
    beginRemoveRows({}, row, row);
    m_rules.removeAt(row);
    m_drafts.removeAt(row);
    m_errors.removeAt(row);
    if (row < m_counts.size())
        m_counts.removeAt(row);
    endRemoveRows();
    Q_EMIT rulesEdited(m_rules);
    Q_EMIT problemChanged(problem());
}

QString FaultRulesModel::problem() const
{
    for (qsizetype i = 0; i < m_errors.size(); ++i) {
        if (!m_errors[i].isEmpty())
            return tr("rule %1 (%2): %3").arg(i + 1).arg(m_rules[i].name, m_errors[i]);
    }
    return QString();
}

} // namespace RetryLab::Ui
