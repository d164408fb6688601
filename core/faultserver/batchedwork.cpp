#include "core/faultserver/batchedwork.h"

#include <QTimer>

#include <algorithm>

namespace RetryLab::Core {

BatchedWork::BatchedWork(QObject *context, int batchSize)
    : m_timer(new QTimer(context)), m_batchSize(std::max(1, batchSize))
{
    m_timer->setSingleShot(true);
    m_timer->setInterval(0);
    QObject::connect(m_timer, &QTimer::timeout, m_timer, [this] { runBatch(); });
}

BatchedWork::~BatchedWork()
{
    delete m_timer;
}

void BatchedWork::post(std::function<void()> work)
{
    m_work.push_back(std::move(work));
    if (m_timer && !m_timer->isActive())
        m_timer->start();
}

void BatchedWork::clear()
{
    m_work.clear();
    if (m_timer)
        m_timer->stop();
}

void BatchedWork::runBatch()
{
    // What a batch posts runs in a later one.
    for (qsizetype n = std::min<qsizetype>(m_batchSize, pending()); n > 0; --n) {
        std::function<void()> work = std::move(m_work.front());
        m_work.pop_front();
        work();
    }
    if (!m_work.empty() && m_timer)
        m_timer->start();
}

} // namespace RetryLab::Core
