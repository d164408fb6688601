#pragma once

#include "core/collections/responsevariables.h"

#include <QAbstractTableModel>
#include <QList>

#include <optional>

namespace RetryLab::Ui {

/// The composer's extract rules, one per row: the variable, where its value comes
/// from (a JSON pointer into the body, a header, a regular expression over the body,
/// the status) and the pointer, header or pattern. Each row is checked as it is typed
/// by the reader of collection files (Core::ResponseVariables::ruleFromJson); a row
/// that does not read is marked (the Check column says why, with a mark) and left out
/// of rules().
class ExtractRuleTableModel final : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { Variable, Source, Where, Check, ColumnCount };
    Q_ENUM(Column)

    enum Role {
        ValidRole = Qt::UserRole + 1, ///< bool, any column: the row reads as a rule
        ProblemRole, ///< QString, any column: why the row does not read; empty when it does
        ChoicesRole, ///< QStringList, Source column: the names of the sources, in sources() order
        UsedRole, ///< bool: the column means something for the row's source
    };

    using Rule = Core::ResponseVariables::Rule;

    explicit ExtractRuleTableModel(QObject *parent = nullptr);

    static const QList<Rule::Source> &sources();
    static QString sourceTitle(Rule::Source source);

    /// The rows that read, in order; the others are left out.
    QList<Rule> rules() const;
    void setRules(const QList<Rule> &rules);
    int invalidCount() const;
    QString problem(int row) const;
    /// The column at fault in a row that does not read; -1 when it reads.
    int problemColumn(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    /// New rows take a JSON pointer; they read once they have a name and a pointer.
    bool insertRows(int row, int count, const QModelIndex &parent = {}) override;
    bool removeRows(int row, int count, const QModelIndex &parent = {}) override;

Q_SIGNALS:
    /// Any row was added, removed or edited.
    void rulesChanged();

private:
    struct Row
    {
        QString name;
        Rule::Source from = Rule::Source::JsonPointer;
        QString where;
        std::optional<Rule> parsed;
        QString problem;
        int problemColumn = -1;
    };

    static void validate(Row &row);
    static QString hint(Rule::Source source);

    QList<Row> m_rows;
};

} // namespace RetryLab::Ui
