#pragma once

#include "core/history/incidentfinder.h"
#include "core/history/sqldialect.h"
#include "core/history/storedcheck.h"

#include <QSqlDatabase>
#include <QSqlQuery>
#include <QString>

#include <unordered_map>

namespace RetryLab::Core {

class HistoryInterner;

/// Keeps each series' incidents as its checks are written: the writer feeds
/// every check it stores to the series' IncidentFinder, and each incident that
/// ends is written to `incidents` in the same transaction. A month of a flaky
/// monitor then reads its incidents instead of finding them again among 259,200
/// checks (HistoryQuery reads the stored ones and finds only those at a
/// window's edges).
///
/// The finder of a series this recorder has not seen yet resumes from the last
/// clean check stored before the first check it is given (a run of troubled
/// checks breaks only at a clean one), replaying the checks after it: a writer
/// killed in the middle of an outage and started again records the outage as
/// one incident, as the checks alone would make it. `incident_cover` keeps, per
/// series, the time from which every incident is stored.
///
/// A flush works on a Batch: the states it changes are copies, taken by the
/// recorder only when the transaction commits, so a rolled-back flush leaves the
/// recorder as it was. Writing an incident twice (a flush repeated after its
/// commit's answer was lost) writes the same row again.
class IncidentRecorder final
{
public:
    class Batch final
    {
    public:
        Batch(IncidentRecorder &recorder, const QSqlDatabase &db, const SqlDialect &dialect, HistoryInterner &interner);

        bool prepare();
        /// `check` as stored: in `series`, starting at `startMs`.
        bool add(qint64 series, qint64 startMs, const StoredCheck &check);
        QString lastError() const { return m_lastError; }
        /// After the commit: the recorder takes the batch's states.
        void commit();

    private:
        IncidentFinder *finderOf(qint64 series, qint64 beforeMs);
        bool resume(qint64 series, qint64 beforeMs, IncidentFinder &finder);
        bool addChecked(qint64 series, IncidentFinder &finder, const IncidentCheck &check);
        bool write(qint64 series, const Incident &incident, qint64 closedMs);
        QVariant text(const QString &value);
        bool failed(const QSqlQuery &query);

        IncidentRecorder &m_recorder;
        QSqlDatabase m_db;
        SqlDialect m_dialect;
        HistoryInterner &m_interner;
        QSqlQuery m_insert;
        std::unordered_map<qint64, IncidentFinder> m_finders;
        QString m_lastError;
    };

private:
    std::unordered_map<qint64, IncidentFinder> m_finders;
};

} // namespace RetryLab::Core
