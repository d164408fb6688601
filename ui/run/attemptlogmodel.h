#pragma once

#include "core/record/runstatistics.h"
#include "ui/session/run/runsession.h"

#include <QAbstractTableModel>
#include <QPointer>

#include <vector>

namespace RetryLab::Ui {

/// The error log: one row per finished attempt of a RunSession, in the order they
/// finished, appended in batches as the session reports them.
///
/// Filtering and sorting live in the model, over an index of the session's compact
/// rows, instead of in a QSortFilterProxyModel: the filter tests a few bytes per row
/// (strings are matched once per distinct interned string, not once per row), which
/// keeps a million rows responsive. bench/bench_views measures both ways.
class AttemptLogModel final : public QAbstractTableModel
{
    Q_OBJECT

public:
    /// Ending: how the attempt's logical request ended (blank while it runs).
    enum Column { Time, Request, Attempt, Status, Outcome, Ending, Cause, Reason, NextDelay, Duration, ColumnCount };
    Q_ENUM(Column)

    enum Role {
        SortRole = Qt::UserRole + 1, ///< the raw value the column sorts by (number, or string compared without case)
        OutcomeRole, ///< Core::AttemptOutcome as int
        FinishedIndexRole, ///< index into the session's finished attempts (for exports)
        SessionRowRole, ///< the session's attempt row (for the timeline)
        RequestIdRole,
    };

    /// Which attempt outcomes are shown.
    enum OutcomeFlag {
        ShowSuccess = 1 << 0,
        ShowRetried = 1 << 1,
        ShowFailed = 1 << 2,
        ShowCancelled = 1 << 3,
        ShowFailures = ShowRetried | ShowFailed,
        ShowAll = ShowSuccess | ShowRetried | ShowFailed | ShowCancelled,
    };
    Q_DECLARE_FLAGS(OutcomeFilter, OutcomeFlag)

    explicit AttemptLogModel(QObject *parent = nullptr);

    /// Not owned; the model resets. Null empties it.
    void setSession(RunSession *session);
    RunSession *session() const { return m_session; }

    int rowCount(const QModelIndex &parent = {}) const override;
    int columnCount(const QModelIndex &parent = {}) const override;
    QVariant data(const QModelIndex &index, int role = Qt::DisplayRole) const override;
    QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
    /// Column -1 restores the order in which attempts finished.
    void sort(int column, Qt::SortOrder order = Qt::AscendingOrder) override;

    void setOutcomeFilter(OutcomeFilter filter);
    OutcomeFilter outcomeFilter() const { return m_outcomeFilter; }
    /// Case-insensitive text found in the status, cause, reason, error, method, label or
    /// URL; "#12" matches request 12 only. Empty shows everything.
    void setTextFilter(const QString &text);
    QString textFilter() const { return m_text; }
    bool isFiltered() const { return m_outcomeFilter != OutcomeFilter(ShowAll) || !m_text.isEmpty(); }

    /// Finished attempts in the session (filtered or not).
    qsizetype totalCount() const { return m_seen; }
    /// Session finished-attempt index shown in `row`.
    qsizetype finishedIndexAt(int row) const;
    /// The rows shown, as session finished-attempt indexes, in display order.
    QList<qsizetype> visibleFinishedIndexes() const;
    /// The display row of a session finished-attempt index, or -1 when hidden.
    int rowOfFinishedIndex(qsizetype finishedIndex) const;

Q_SIGNALS:
    /// The number of shown or total rows changed (after a batch, a filter, a reset).
    void countsChanged();

private:
    void handleSessionUpdated();
    void handleSessionCleared();
    void rebuild();
    bool accepts(qsizetype finishedIndex) const;
    void prepareMatcher() const;
    bool stringMatches(quint32 id) const;
    double sortKey(qsizetype finishedIndex, int column) const;
    bool lessThan(quint32 a, quint32 b) const;
    void prepareSortRanks();
    void sortIndex();
    QString displayText(qsizetype finishedIndex, int column) const;

    QPointer<RunSession> m_session;
    qsizetype m_seen = 0; ///< session finished attempts taken in
    qsizetype m_resultsSeen = 0; ///< session request results taken in (for the Ending column)
    /// Display row -> finished index; unused (identity) when neither filtered nor sorted.
    std::vector<quint32> m_index;
    bool m_identity = true;
    int m_sortColumn = -1;
    Qt::SortOrder m_sortOrder = Qt::AscendingOrder;
    std::vector<quint32> m_stringRank; ///< sorted position of each interned string

    OutcomeFilter m_outcomeFilter = ShowAll;
    QString m_text;
    bool m_requestIdFilter = false;
    quint64 m_requestId = 0;
    // Matches per interned string / spec / status, filled lazily as the pool grows.
    mutable std::vector<qint8> m_stringMatch;
    mutable std::vector<qint8> m_specMatch;
    mutable std::vector<qint8> m_detailMatch;
    mutable std::vector<qint8> m_statusMatch; ///< per HTTP status 0..999
    mutable std::vector<qint8> m_networkErrorMatch; ///< per QNetworkReply::NetworkError 0..1023
};

} // namespace RetryLab::Ui

Q_DECLARE_OPERATORS_FOR_FLAGS(RetryLab::Ui::AttemptLogModel::OutcomeFilter)
