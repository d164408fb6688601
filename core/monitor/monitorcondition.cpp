#include "core/monitor/monitorcondition.h"

#include "core/assertions/assertionresult.h"

#include "core/http/httpheaders.h"
#include "core/http/httpstatuslist.h"
#include "core/record/attemptrecord.h"
#include "core/util/coretr.h"
#include "core/util/durationtext.h"
#include "core/util/jsonpointer.h"

#include <QDateTime>
#include <QJsonArray>
#include <QJsonDocument>

namespace RetryLab::Core {

namespace {

constexpr auto certificateDayMs = static_cast<qint64>(DurationText::msPerDay);

const QStringList &conditionKeys()
{
    static const QStringList keys{QStringLiteral("status"), QStringLiteral("responseTimeUnderMs"),
        QStringLiteral("bodyContains"), QStringLiteral("jsonPointer"), QStringLiteral("header"),
        QStringLiteral("certificateValidDays")};
    return keys;
}

std::optional<MonitorCondition> readCondition(JsonReader &o)
{
    QStringList present;
    for (const QString &key : conditionKeys()) {
        if (o.contains(key))
            present.append(key);
    }
    if (present.size() != 1) {
        o.failHere(present.isEmpty()
                ? Tr::tr("a condition has one of %1").arg(conditionKeys().join(QStringLiteral(", ")))
                : Tr::tr("a condition has one of %1, not several (%2)")
                      .arg(conditionKeys().join(QStringLiteral(", ")), present.join(QStringLiteral(", "))));
        return std::nullopt;
    }
    MonitorCondition c;
    const QString &key = present.constFirst();
    if (key == QLatin1String("status")) {
        o.rejectUnknown({key});
        c.kind = MonitorCondition::Kind::Status;
        const QJsonValue value = o.value(key);
        if (value.isArray()) {
            const auto codes = o.integers(key, 100, 599);
            if (!codes)
                return std::nullopt;
            for (qint64 code : *codes)
                c.statuses.insert(static_cast<int>(code));
            c.statusText = HttpStatusList::format(c.statuses);
        } else {
            const auto text = o.string(key, Presence::Required);
            if (!text)
                return std::nullopt;
            auto parsed = HttpStatusList::parse(*text);
            if (!parsed) {
                o.fail(key, parsed.errorDetail().message);
                return std::nullopt;
            }
            c.statuses = *parsed;
            c.statusText = text->trimmed();
        }
        if (c.statuses.isEmpty()) {
            o.fail(key, Tr::tr("names no status"));
            return std::nullopt;
        }
    } else if (key == QLatin1String("responseTimeUnderMs")) {
        o.rejectUnknown({key});
        c.kind = MonitorCondition::Kind::ResponseTimeUnder;
        const auto ms = o.number(key, 1.0, 3'600'000.0, Presence::Required);
        if (!ms)
            return std::nullopt;
        c.maxMs = *ms;
    } else if (key == QLatin1String("bodyContains")) {
        o.rejectUnknown({key});
        c.kind = MonitorCondition::Kind::BodyContains;
        const auto text = o.string(key, Presence::Required);
        if (!text)
            return std::nullopt;
        if (text->isEmpty()) {
            o.fail(key, Tr::tr("an empty text is in every body; give the text to look for"));
            return std::nullopt;
        }
        c.text = *text;
    } else if (key == QLatin1String("jsonPointer")) {
        o.rejectUnknown({key, QStringLiteral("equals")});
        c.kind = MonitorCondition::Kind::JsonPointerEquals;
        const auto pointer = o.string(key, Presence::Required);
        if (!pointer)
            return std::nullopt;
        if (!JsonPointer::isValid(*pointer)) {
            o.fail(key, Tr::tr("\"%1\" is not a JSON pointer (RFC 6901: \"\" or \"/a/0/b\")").arg(*pointer));
            return std::nullopt;
        }
        if (!o.contains(QStringLiteral("equals"))) {
            o.fail(QStringLiteral("equals"), Tr::tr("missing; the value the pointer must find"));
            return std::nullopt;
        }
        c.pointer = *pointer;
        c.expected = o.value(QStringLiteral("equals"));
    } else if (key == QLatin1String("header")) {
        o.rejectUnknown({key, QStringLiteral("matches")});
        c.kind = MonitorCondition::Kind::Header;
        const auto name = o.string(key, Presence::Required);
        if (!name)
            return std::nullopt;
        if (!isToken(QStringView(*name))) {
            o.fail(key, Tr::tr("\"%1\" is not a header name").arg(*name));
            return std::nullopt;
        }
        c.header = name->toLatin1();
        if (const auto pattern = o.string(QStringLiteral("matches"))) {
            const QRegularExpression expression(*pattern);
            if (!expression.isValid()) {
                o.fail(QStringLiteral("matches"),
                    Tr::tr("not a regular expression: %1 at %2")
                        .arg(expression.errorString())
                        .arg(expression.patternErrorOffset()));
                return std::nullopt;
            }
            c.pattern = *pattern;
        }
    } else {
        o.rejectUnknown({key});
        c.kind = MonitorCondition::Kind::CertificateValidDays;
        const auto days = o.integer(key, 0, 3650, Presence::Required);
        if (!days)
            return std::nullopt;
        c.days = static_cast<int>(*days);
    }
    if (o.failed())
        return std::nullopt;
    return c;
}

} // namespace

QString MonitorCondition::describe() const
{
    if (const auto assertion = toAssertion())
        return assertion->describe();
    return Tr::tr("certificate valid for more than %1 days").arg(days);
}

std::optional<Assertion> MonitorCondition::toAssertion() const
{
    Assertion a;
    switch (kind) {
    case Kind::Status:
        a.kind = Assertion::Kind::StatusIn;
        a.statuses = statuses;
        a.statusText = statusText;
        return a;
    case Kind::ResponseTimeUnder:
        a.kind = Assertion::Kind::ResponseTimeUnder;
        a.maxMs = maxMs;
        return a;
    case Kind::BodyContains:
        a.kind = Assertion::Kind::BodyContains;
        a.text = text;
        return a;
    case Kind::JsonPointerEquals:
        a.kind = Assertion::Kind::JsonPointerEquals;
        a.pointer = pointer;
        a.expected = expected;
        return a;
    case Kind::Header:
        a.kind = pattern.isEmpty() ? Assertion::Kind::HeaderPresent : Assertion::Kind::HeaderMatches;
        a.header = header;
        a.pattern = QRegularExpression(pattern);
        return a;
    case Kind::CertificateValidDays:
        return std::nullopt;
    }
    return std::nullopt;
}

MonitorConditions::MonitorConditions(QList<MonitorCondition> conditions) : m_conditions(std::move(conditions))
{
    m_assertions.reserve(m_conditions.size());
    for (const MonitorCondition &c : m_conditions)
        m_assertions.push_back(c.toAssertion());
}

std::optional<QString> MonitorConditions::failure(const AttemptRecord &record, const QByteArray &body) const
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    for (qsizetype i = 0; i < m_conditions.size(); ++i) {
        if (auto failed = evaluate(m_conditions[i], m_assertions[static_cast<size_t>(i)], record, body, now))
            return failed;
    }
    return std::nullopt;
}

bool MonitorConditions::acceptsStatus(int status) const
{
    for (const MonitorCondition &c : m_conditions) {
        if (c.kind == MonitorCondition::Kind::Status && c.statuses.contains(status))
            return true;
    }
    return false;
}

std::optional<QList<MonitorCondition>> MonitorConditions::read(JsonReader &r, const QString &key)
{
    auto list = r.array(key);
    if (!list)
        return r.failed() ? std::nullopt : std::optional<QList<MonitorCondition>>(QList<MonitorCondition>{});
    QList<MonitorCondition> out;
    for (qsizetype i = 0; i < list->size(); ++i) {
        auto o = list->object(i, Presence::Required);
        if (!o)
            return std::nullopt;
        auto c = readCondition(*o);
        if (!c)
            return std::nullopt;
        out.append(*c);
    }
    return out;
}

std::optional<QString> MonitorConditions::evaluate(
    const MonitorCondition &condition, const AttemptRecord &record, const QByteArray &body, qint64 nowUtcMs)
{
    return evaluate(condition, condition.toAssertion(), record, body, nowUtcMs);
}

std::optional<QString> MonitorConditions::evaluate(const MonitorCondition &c, const std::optional<Assertion> &assertion,
    const AttemptRecord &record, const QByteArray &body, qint64 nowUtcMs)
{
    // Every kind but the certificate's is a collection's assertion too: one evaluation for both.
    if (assertion) {
        const AssertionResult result = Core::evaluate(*assertion, record, body);
        return result.passed ? std::nullopt : std::optional<QString>(result.message);
    }
    Q_ASSERT(c.kind == MonitorCondition::Kind::CertificateValidDays);
    if (record.tls.peerNotAfter.isEmpty())
        return Tr::tr("no server certificate to check (the answer did not come over TLS)");
    const QDateTime notAfter = QDateTime::fromString(record.tls.peerNotAfter, Qt::ISODate);
    if (!notAfter.isValid())
        return Tr::tr("the certificate's expiry \"%1\" cannot be read").arg(record.tls.peerNotAfter);
    const qint64 left = notAfter.toMSecsSinceEpoch() - nowUtcMs;
    if (left <= static_cast<qint64>(c.days) * certificateDayMs) {
        return left <= 0 ? Tr::tr("the certificate expired on %1").arg(record.tls.peerNotAfter)
                         : Tr::tr("the certificate expires in %1 days (%2), not more than %3")
                               .arg(left / certificateDayMs)
                               .arg(record.tls.peerNotAfter)
                               .arg(c.days);
    }
    return std::nullopt;
}

} // namespace RetryLab::Core
