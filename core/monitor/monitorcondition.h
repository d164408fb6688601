#pragma once

#include "core/assertions/assertion.h"
#include "core/record/responsecheck.h"
#include "core/util/jsonreader.h"

#include <QByteArray>
#include <QJsonValue>
#include <QList>
#include <QSet>
#include <QString>

#include <optional>
#include <vector>

namespace RetryLab::Core {

/// One thing a monitor's answer must satisfy for its check to succeed. In a
/// monitors file, each is an object with one of these keys:
///   {"status": "2xx"}, {"status": "200,204"}, {"status": [200, 204]}
///   {"responseTimeUnderMs": 800}          the attempt's whole exchange
///   {"bodyContains": "ok"}                in the first RetryExecutor body bytes kept
///   {"jsonPointer": "/status", "equals": "ok"}
///   {"header": "X-Served-By"}, {"header": "Content-Type", "matches": "^application/json"}
///   {"certificateValidDays": 14}          the server certificate expires no sooner
struct MonitorCondition
{
    enum class Kind { Status, ResponseTimeUnder, BodyContains, JsonPointerEquals, Header, CertificateValidDays };
    Kind kind = Kind::Status;
    QSet<int> statuses;
    QString statusText; ///< as written, for messages ("2xx")
    double maxMs = 0.0;
    QString text; ///< BodyContains
    QString pointer; ///< JsonPointerEquals
    QJsonValue expected;
    QByteArray header; ///< Header: its name
    QString pattern; ///< Header: a regular expression its value must match; empty: present is enough
    int days = 0; ///< CertificateValidDays

    /// "status in 2xx", "body contains \"ok\"": what it asks, for lists and reports.
    QString describe() const;
    /// The same check as a collection's assertion, whose evaluation every kind
    /// but CertificateValidDays (which has none) shares; nothing for that one.
    std::optional<Assertion> toAssertion() const;
};

/// A monitor's conditions as the executor asks them (ResponseCheck): every one
/// must hold for an attempt to succeed; the first that does not is the
/// attempt's reason. A status condition also makes its statuses successes
/// when the classifier would call them failures (a check that expects 401).
class MonitorConditions final : public ResponseCheck
{
public:
    explicit MonitorConditions(QList<MonitorCondition> conditions);

    std::optional<QString> failure(const AttemptRecord &record, const QByteArray &body) const override;
    bool acceptsStatus(int status) const override;

    const QList<MonitorCondition> &conditions() const { return m_conditions; }

    /// Reads a monitors file's "conditions" array at `key` of `r`; errors go to `r` with their path.
    static std::optional<QList<MonitorCondition>> read(JsonReader &r, const QString &key);
    /// One condition's failure for an answer, or nothing when it holds. `nowUtcMs`
    /// is the wall time the certificate's days are counted from.
    static std::optional<QString> evaluate(
        const MonitorCondition &condition, const AttemptRecord &record, const QByteArray &body, qint64 nowUtcMs);

private:
    static std::optional<QString> evaluate(const MonitorCondition &condition, const std::optional<Assertion> &assertion,
        const AttemptRecord &record, const QByteArray &body, qint64 nowUtcMs);

    QList<MonitorCondition> m_conditions;
    /// One per condition, made once (their patterns compiled once): toAssertion().
    std::vector<std::optional<Assertion>> m_assertions;
};

} // namespace RetryLab::Core
