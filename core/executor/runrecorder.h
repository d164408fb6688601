#pragma once

#include "core/record/runrecord.h"

#include <QObject>

namespace RetryLab::Core {

class RetryExecutor;

/// Collects an executor's signals into a RunRecord.
class RunRecorder final : public QObject
{
    Q_OBJECT

public:
    explicit RunRecorder(RetryExecutor *executor, QObject *parent = nullptr);

    /// Submits through the executor and remembers the request.
    quint64 submit(const RequestSpec &request);

    const RunRecord &record() const { return m_record; }
    RunRecord takeRecord();
    void clear();

private:
    RetryExecutor *m_executor;
    RunRecord m_record;
};

} // namespace RetryLab::Core
