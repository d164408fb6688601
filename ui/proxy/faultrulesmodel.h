#pragma once

#include "core/proxy/faultrule.h"
#include "core/proxy/faultruleset.h"

#include <QAbstractTableModel>
#include <QList>
#include <QString>

namespace RetryLab::Ui {

/// The rules editor of the Proxy tab: one row per fault rule, switched on and
/// off by its check box, written as a `--fault` line in the Rule column. A line
/// that does not read keeps its text, shows its error (red, with the reason as
/// tool tip) and leaves the rule as it was until it is fixed: nothing typed is lost.
class FaultRulesModel final : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { On, Name, Rule, Meaning, Matched, Fired, ColumnCount };

    explicit FaultRulesModel(QObject *parent = nullptr);

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;

    /// Shows these rules (their state as the proxy has it), keeping lines being fixed.
    void setRules(const QList<Core::FaultRule> &rules);
    QList<Core::FaultRule> rules() const { return m_rules; }
    void setCounts(const QList<Core::FaultRuleSet::Counts> &counts);

    /// Appends a rule; the row is returned.
    int addRule(const Core::FaultRule &rule);
    void removeRule(int row);
    /// The first row whose line does not read, with its error; empty when all read.
    QString problem() const;

Q_SIGNALS:
    /// The user changed the rules (a line that reads, a row added or removed).
    void rulesEdited(const QList<RetryLab::Core::FaultRule> &rules);
    /// The user switched a rule by its check box.
    void ruleSwitched(const QString &name, bool enabled);
    /// A line's error appeared or went away.
    void problemChanged(const QString &problem);

private:
    QList<Core::FaultRule> m_rules;
    QList<Core::FaultRuleSet::Counts> m_counts;
    QList<QString> m_drafts; ///< per row: the line as typed when it does not read, else empty
    QList<QString> m_errors; ///< per row: why it does not read
};

} // namespace RetryLab::Ui
