#pragma once

#include <QByteArray>
#include <QString>

#include <optional>

namespace RetryLab::Core {

struct AttemptRecord;

/// What else an answer must satisfy to count as a success, beyond what the
/// classifier asks (a monitor's conditions: a body that contains a text, a
/// response time, a certificate valid long enough). The executor asks it about
/// every attempt the classifier calls a success, on the executor's thread; a
/// failure makes that attempt a failed one with the check's reason, which the
/// policy retries when the request may be repeated. Implementations hold only
/// values fixed before the request is submitted, so sharing one between
/// threads is safe.
class ResponseCheck
{
public:
    virtual ~ResponseCheck() = default;
    /// Why the attempt does not count as a success, or nothing when it does.
    /// `body` is what the executor kept of the response body.
    virtual std::optional<QString> failure(const AttemptRecord &record, const QByteArray &body) const = 0;
    /// Whether an answer with this status is wanted although the classifier
    /// calls it a failure (a monitor that expects 401 from a protected page).
    virtual bool acceptsStatus(int status) const
    {
        Q_UNUSED(status);
        return false;
    }
};

} // namespace RetryLab::Core
