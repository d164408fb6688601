#include "ui/session/monitor/historyreaderworker.h"

#include "core/history/historyquery.h"

namespace RetryLab::Ui {

HistoryReaderWorker::HistoryReaderWorker() = default;

HistoryReaderWorker::~HistoryReaderWorker() = default;

void HistoryReaderWorker::setDatabase(const QString &database)
{
    if (database == m_database)
        return;
    close();
    m_database = database;
}

Core::HistoryQuery *HistoryReaderWorker::query(QString *error)
{
    if (m_query)
        return m_query.get();
    if (m_database.isEmpty()) {
        *error = tr("no history is open");
        return nullptr;
    }
    auto opened = Core::HistoryQuery::open(m_database);
    if (!opened) {
        *error = opened.error();
        return nullptr;
    }
    m_query = std::move(opened).value();
    return m_query.get();
}

void HistoryReaderWorker::close()
{
    m_query.reset();
}

} // namespace RetryLab::Ui
