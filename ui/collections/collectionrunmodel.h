#pragma once

#include "core/runner/collectionrunner.h"

#include <QAbstractItemModel>
#include <QList>
#include <QString>

#include <optional>

namespace RetryLab::Ui {

/// The requests of a collection run as a tree, as they go: a row per request
/// (its path, with its iteration when the run has several; its status, such as
/// "200 after 3 attempts: 503 → 503 → 200"; its time; its verdict), and under it
/// a row per assertion, test and error with its message. A verdict is always a
/// word (passed, failed, retried, skipped, running); its colour comes with it.
class CollectionRunModel final : public QAbstractItemModel
{
    Q_OBJECT

public:
    enum Column { RequestColumn, StatusColumn, TimeColumn, VerdictColumn, ColumnCount };
    enum class Kind { Request, Assertion, Test, Error };
    enum class Verdict { Running, Passed, Retried, Failed, Skipped };
    enum Role {
        KindRole = Qt::UserRole + 1, ///< Kind, as an int
        VerdictRole, ///< Verdict, as an int
        /// The request's place in the run (CollectionRequestRun::index), on a request's rows and its children's.
        RequestIndexRole,
    };

    explicit CollectionRunModel(QObject *parent = nullptr);

    /// Empties the model for a new run of `iterations` iterations.
    void clear(int iterations = 1);
    int iterations() const { return m_iterations; }
    /// A request was started: a row that says it runs.
    void addStarted(int index, const QString &path, int iteration);
    /// A request ended: its row (made when missing) gets its verdicts.
    void addFinished(const Core::CollectionRequestRun &run);
    /// Every request of a run that ended, in place of what the model holds.
    void setResult(const Core::CollectionRunResult &result);

    /// The finished request of this row (or of its parent row); nothing while it runs.
    const Core::CollectionRequestRun *requestAt(const QModelIndex &index) const;
    /// The request row of `index`: itself, or its parent for a verdict's row.
    QModelIndex requestIndex(const QModelIndex &index) const;
    /// The row of the request with this run index; invalid when there is none.
    QModelIndex indexOfRequest(int runIndex) const;

    static QString verdictText(Verdict verdict);
    static Verdict verdictOf(const Core::CollectionRequestRun &run);

    QModelIndex index(int row, int column, const QModelIndex &parent = {}) const override;
    QModelIndex parent(const QModelIndex &child) const override;
    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

private:
    struct Child
    {
        Kind kind = Kind::Assertion;
        QString name;
        Verdict verdict = Verdict::Passed;
        QString message;
    };
    struct Row
    {
        int index = 0;
        QString path;
        int iteration = 0;
        std::optional<Core::CollectionRequestRun> run;
        QList<Child> children;
    };
    static QList<Child> childrenOf(const Core::CollectionRequestRun &run);
    QVariant requestData(const Row &row, int column, int role) const;
    QVariant childData(const Child &child, int column, int role) const;

    QList<Row> m_rows;
    int m_iterations = 1;
};

} // namespace RetryLab::Ui
