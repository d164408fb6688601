#pragma once

#include "core/history/historyfigures.h"
#include "core/history/storedcheck.h"

#include <QList>
#include <QObject>
#include <QString>
#include <QStringList>

#include <memory>

namespace RetryLab::Core {
class HistoryQuery;
} // namespace RetryLab::Core

namespace RetryLab::Ui {

/// HistoryReader's half on its reading thread: the HistoryQuery connection,
/// made, used and closed there (a Qt SQL connection belongs to the thread that
/// made it). It opens when a request first needs it, so a history that a
/// MonitorHost has not created yet is only an error for the requests made
/// before it exists. Its signals carry the answers; HistoryReader passes them on.
class HistoryReaderWorker final : public QObject
{
    Q_OBJECT

public:
    HistoryReaderWorker();
    ~HistoryReaderWorker() override;

    /// On the reading thread: the next query reads `database`.
    void setDatabase(const QString &database);
    /// On the reading thread: the connection, opened when needed; null and
    /// `error` set when it cannot be opened.
    Core::HistoryQuery *query(QString *error);
    /// On the reading thread: closes the connection; the next query opens it anew
    /// (after a failed read, when the database may have gone and come back).
    void close();

Q_SIGNALS:
    void monitorNamesRead(quint64 id, const QStringList &names);
    void summariesRead(quint64 id, const QList<RetryLab::Core::MonitorSummary> &summaries);
    void checkPointsRead(quint64 id, const QList<RetryLab::Core::CheckPoint> &points);
    void checksRead(quint64 id, const QList<RetryLab::Core::StoredCheck> &checks);
    void incidentsRead(quint64 id, const QList<RetryLab::Core::Incident> &incidents);
    void stateEventsRead(quint64 id, const QList<RetryLab::Core::StateEvent> &events);
    void objectiveRead(quint64 id, const RetryLab::Core::ObjectiveStatus &status);
    void whatIfRead(quint64 id, const RetryLab::Core::WhatIf &whatIf);
    void readFailed(quint64 id, const QString &error);

private:
    QString m_database;
    std::unique_ptr<Core::HistoryQuery> m_query;
};

} // namespace RetryLab::Ui
