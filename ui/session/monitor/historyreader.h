#pragma once

#include "core/history/historyfigures.h"
#include "core/history/historyquery.h"
#include "core/history/storedcheck.h"
#include "core/policy/backoffpolicy.h"

#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

#include <functional>
#include <memory>

class QThread;

namespace RetryLab::Ui {

class HistoryReaderWorker;

/// Reads a monitors' history for the window without blocking it: every
/// request returns an id at once, runs on a thread of the reader's own with its
/// own HistoryQuery connection (a WAL reader on SQLite: it never blocks the
/// MonitorHost that writes), and is answered by the matching `...Read(id, ...)`
/// signal, or readFailed(id, error), on the window's thread.
///
/// Requests run one at a time, in the order they were made. A request made
/// with a `tag` (such as "history-view") is superseded by a later request of
/// the same kind with the same tag: if it has not started by then, it is
/// dropped and never answered (a view that asks again as the user drags only
/// gets the answer to its last question). One that started is answered; its
/// asker tells by the id. Requests without a tag are always answered.
class HistoryReader final : public QObject
{
    Q_OBJECT

public:
    /// `database`: as HistoryStore::open takes it; empty: none yet (setDatabase()).
    explicit HistoryReader(const QString &database = {}, QObject *parent = nullptr);
    /// Ends the reading thread; a query running then is waited for (at most closeWaitMs).
    ~HistoryReader() override;
    static constexpr int closeWaitMs = 10'000;

    /// The next requests read `database` (the connection opens when first needed).
    void setDatabase(const QString &database);
    QString database() const { return m_database; }

    quint64 monitorNames(const QString &tag = {});
    quint64 summaries(const Core::HistoryFilter &filter,
        Core::HistoryQuery::SummaryDetail detail = Core::HistoryQuery::SummaryDetail::Full, const QString &tag = {});
    quint64 checkPoints(const Core::HistoryFilter &filter, const QString &tag = {});
    /// Whole checks with their attempts: for opening one check, not for charts.
    quint64 checks(const Core::HistoryFilter &filter, const QString &tag = {});
    quint64 incidents(const Core::HistoryFilter &filter, const QString &tag = {});
    quint64 stateEvents(const Core::HistoryFilter &filter, const QString &tag = {});
    quint64 objective(const QString &monitor, double target, qint64 nowMs, const Core::ObjectiveWindows &windows = {},
        const QString &tag = {});
    quint64 whatIf(const QString &monitor, qint64 sinceMs, qint64 untilMs, const Core::BackoffPolicy &policy,
        quint64 seed, const Core::WhatIfOptions &options = {}, const QString &tag = {});

Q_SIGNALS:
    void monitorNamesRead(quint64 id, const QStringList &names);
    void summariesRead(quint64 id, const QList<RetryLab::Core::MonitorSummary> &summaries);
    void checkPointsRead(quint64 id, const QList<RetryLab::Core::CheckPoint> &points);
    void checksRead(quint64 id, const QList<RetryLab::Core::StoredCheck> &checks);
    void incidentsRead(quint64 id, const QList<RetryLab::Core::Incident> &incidents);
    void stateEventsRead(quint64 id, const QList<RetryLab::Core::StateEvent> &events);
    void objectiveRead(quint64 id, const RetryLab::Core::ObjectiveStatus &status);
    void whatIfRead(quint64 id, const RetryLab::Core::WhatIf &whatIf);
    /// The history could not be opened or read: the sentence says why.
    void readFailed(quint64 id, const QString &error);

private:
    struct Shared;
    using Run = std::function<void(Core::HistoryQuery &, HistoryReaderWorker *, quint64)>;
    quint64 enqueue(const QString &kind, const QString &tag, Run run);

    QString m_database;
    quint64 m_lastId = 0;
    std::shared_ptr<Shared> m_shared;
    QThread *m_thread = nullptr;
    HistoryReaderWorker *m_worker = nullptr;
};

} // namespace RetryLab::Ui
