#pragma once

#include "core/history/historyinterner.h"
#include "core/history/storedcheck.h"

#include <QSqlDatabase>
#include <QSqlQuery>
#include <QString>

namespace RetryLab::Core {

/// Writes checks, their attempts and state events inside the store's
/// transaction, with statements prepared once per transaction. Two checks of one
/// series cannot share a start: the later is stored a millisecond later (the key
/// is the series and the start). A check already stored with the same key,
/// duration, flags and attempts is one a flush wrote before its commit's answer
/// was lost (PostgreSQL gone at that moment): it is not written twice.
class CheckWriter final
{
public:
    CheckWriter(const QSqlDatabase &db, HistoryInterner &interner);

    bool prepare();
    bool write(const StoredCheck &check);
    bool write(const StateEvent &event);
    QString lastError() const { return m_lastError; }

private:
    enum class Insert { Written, Taken, Failed };
    Insert insertCheck(const StoredCheck &check, qint64 series, qint64 startMs);
    bool sameCheckStored(const StoredCheck &check, qint64 series);
    bool failed(const QSqlQuery &query);
    QVariant text(const QString &value);

    QSqlDatabase m_db;
    HistoryInterner &m_interner;
    QSqlQuery m_checkInsert;
    QSqlQuery m_attemptInsert;
    QSqlQuery m_eventInsert;
    QSqlQuery m_existing;
    QString m_lastError;
    bool m_textFailed = false;
};

} // namespace RetryLab::Core
