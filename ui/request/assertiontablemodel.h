#pragma once

#include "core/assertions/assertion.h"

#include <QAbstractTableModel>
#include <QList>

#include <optional>

namespace RetryLab::Ui {

/// The composer's assertions, one per row, edited as text: the kind, its target
/// (the status text "200", "2xx" or "200,204"; the milliseconds; a header's name; a
/// JSON pointer), what is expected (a header's value, a regular expression, a text of
/// the body, a JSON value, a JSON Schema), "not" and a name for reports. Each row is
/// checked as it is typed by the reader of collection files (Core::AssertionJson), so
/// that the window refuses what a file would refuse, in the same words; a row that
/// does not read is marked (the Check column says why, with a mark, and the cell at
/// fault tells in its tooltip) and left out of assertions().
class AssertionTableModel final : public QAbstractTableModel
{
    Q_OBJECT

public:
    enum Column { Kind, Target, Expected, Not, Name, Check, ColumnCount };
    Q_ENUM(Column)

    enum Role {
        ValidRole = Qt::UserRole + 1, ///< bool, any column: the row reads as an assertion
        ProblemRole, ///< QString, any column: why the row does not read; empty when it does
        ChoicesRole, ///< QStringList, Kind column: the names of the kinds, in kinds() order
        UsedRole, ///< bool: the column means something for the row's kind
    };

    explicit AssertionTableModel(QObject *parent = nullptr);

    /// Every kind, in the order the Kind column offers them.
    static const QList<Core::Assertion::Kind> &kinds();
    static QString kindTitle(Core::Assertion::Kind kind);

    /// The rows that read, in order; the others are left out.
    QList<Core::Assertion> assertions() const;
    void setAssertions(const QList<Core::Assertion> &assertions);
    int invalidCount() const;
    /// Why a row does not read; empty when it does.
    QString problem(int row) const;
    /// The column at fault in a row that does not read; -1 when it reads.
    int problemColumn(int row) const;

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    bool setData(const QModelIndex &index, const QVariant &value, int role = Qt::EditRole) override;
    Qt::ItemFlags flags(const QModelIndex &index) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    /// New rows check for status 200, a start most checks need.
    bool insertRows(int row, int count, const QModelIndex &parent = {}) override;
    bool removeRows(int row, int count, const QModelIndex &parent = {}) override;

Q_SIGNALS:
    /// Any row was added, removed or edited.
    void assertionsChanged();

private:
    struct Row
    {
        Core::Assertion::Kind kind = Core::Assertion::Kind::StatusEquals;
        QString target;
        QString expected;
        bool negate = false;
        QString name;
        std::optional<Core::Assertion> parsed;
        QString problem;
        int problemColumn = -1;
    };

    static void validate(Row &row);
    static Row rowOf(const Core::Assertion &assertion);
    static bool uses(Core::Assertion::Kind kind, int column);
    static QString hint(Core::Assertion::Kind kind, int column);

    QList<Row> m_rows;
};

} // namespace RetryLab::Ui
