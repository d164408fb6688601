#include "core/faultserver/responseplan.h"

#include <QJsonDocument>

#include <optional>

namespace RetryLab::Core {

namespace {

// The length comes from the literal itself: a hand-counted one once read past its end.
constexpr char garbageText[] = "\x16\x03\x01\x00\xa5 this is not HTTP \xff\xfe\x00\r\nSSH-2.0-garbage\r\n\r\n";

/// The one table of connection faults: the plan of each fault step, and the
/// action name the log shows for it. A step that answers (pass, return, delay)
/// has none. /fault/* uses the same plans through ResponsePlan::fault().
struct FaultRow
{
    FaultInstruction::Kind step;
    ResponsePlan::Kind plan;
    const char *action;
};
constexpr FaultRow faultTable[] = {
    {FaultInstruction::Kind::Reset, ResponsePlan::Kind::Reset, "reset"},
    {FaultInstruction::Kind::ResetAfterHeaders, ResponsePlan::Kind::ResetAfterHeaders, "reset-after-headers"},
    {FaultInstruction::Kind::Empty, ResponsePlan::Kind::Empty, "empty"},
    {FaultInstruction::Kind::Stall, ResponsePlan::Kind::Stall, "stall"},
    {FaultInstruction::Kind::BrokenStream, ResponsePlan::Kind::BrokenStream, "broken-stream"},
    {FaultInstruction::Kind::Garbage, ResponsePlan::Kind::Garbage, "garbage"},
    {FaultInstruction::Kind::Drip, ResponsePlan::Kind::Drip, "drip"},
};

std::optional<FaultRow> faultRow(FaultInstruction::Kind step)
{
    for (const FaultRow &row : faultTable) {
        if (row.step == step)
            return row;
    }
    return std::nullopt;
}

std::optional<FaultRow> faultRow(ResponsePlan::Kind plan)
{
    for (const FaultRow &row : faultTable) {
        if (row.plan == plan)
            return row;
    }
    return std::nullopt;
}

} // namespace

std::optional<QByteArray> ResponsePlan::header(QByteArrayView name) const
{
    for (const auto &[key, value] : headers) {
        if (QByteArrayView(key).compare(name, Qt::CaseInsensitive) == 0)
            return value;
    }
    return std::nullopt;
}

ResponsePlan ResponsePlan::json(int status, const QJsonObject &body, QString detail)
{
    ResponsePlan p;
    p.status = status;
    p.body = QJsonDocument(body).toJson(QJsonDocument::Compact) + '\n';
    p.detail = std::move(detail);
    return p;
}

ResponsePlan ResponsePlan::error(int status, const QString &message)
{
    return json(status, QJsonObject{{QStringLiteral("status"), status}, {QStringLiteral("error"), message}}, message);
}

ResponsePlan ResponsePlan::wait(int ms, std::function<ResponsePlan()> then)
{
    ResponsePlan p;
    p.kind = Kind::Wait;
    p.waitMs = ms;
    p.then = std::move(then);
    return p;
}

ResponsePlan ResponsePlan::fault(Kind kind)
{
    ResponsePlan p;
    p.kind = kind;
    if (const auto row = faultRow(kind))
        p.action = QString::fromLatin1(row->action);
    if (kind == Kind::ResetAfterHeaders || kind == Kind::BrokenStream)
        p.announcedBytes = FaultInstruction::brokenAnnouncedBytes;
    if (kind == Kind::BrokenStream)
        p.sentBytes = FaultInstruction::brokenSentBytes;
    if (kind == Kind::Drip) {
        p.dripBytes = FaultInstruction::dripBytes;
        p.dripIntervalMs = FaultInstruction::defaultDripIntervalMs;
    }
    return p;
}

ResponsePlan ResponsePlan::forStep(const FaultInstruction &step, std::function<ResponsePlan()> byPath)
{
    switch (step.kind) {
    case FaultInstruction::Kind::Pass:
        return byPath();
    case FaultInstruction::Kind::Respond: {
        if (step.aborted) {
            return json(409,
                QJsonObject{{QStringLiteral("error"),
                    QJsonObject{{QStringLiteral("code"), 409},
                        {QStringLiteral("message"), QStringLiteral("There were concurrent policy changes.")},
                        {QStringLiteral("status"), QStringLiteral("ABORTED")}}}},
                QString());
        }
        ResponsePlan p = json(step.status, QJsonObject{{QStringLiteral("status"), step.status}}, QString());
        if (step.retryAfterSeconds)
            p.addHeader("Retry-After", QByteArray::number(*step.retryAfterSeconds));
        return p;
    }
    case FaultInstruction::Kind::Delay:
        return wait(step.milliseconds, std::move(byPath));
    case FaultInstruction::Kind::Reset:
    case FaultInstruction::Kind::ResetAfterHeaders:
    case FaultInstruction::Kind::Empty:
    case FaultInstruction::Kind::Stall:
    case FaultInstruction::Kind::BrokenStream:
    case FaultInstruction::Kind::Garbage:
    case FaultInstruction::Kind::Drip:
        break; // the connection faults, from the table
    }
    const auto row = faultRow(step.kind);
    Q_ASSERT(row);
    ResponsePlan p = fault(row ? row->plan : Kind::Empty);
    if (p.kind == Kind::Drip)
        p.dripIntervalMs = step.milliseconds;
    return p;
}

const QByteArray &ResponsePlan::garbageBytes()
{
    static const QByteArray bytes(garbageText, sizeof garbageText - 1);
    return bytes;
}

} // namespace RetryLab::Core
