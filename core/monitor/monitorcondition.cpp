#include "core/monitor/monitorcondition.h"

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

QString jsonText(const QJsonValue &value)
{
    if (value.isString())
        return QLatin1Char('"') + value.toString() + QLatin1Char('"');
    if (value.isNull())
        return QStringLiteral("null");
    if (value.isBool())
        return value.toBool() ? QStringLiteral("true") : QStringLiteral("false");
    if (value.isDouble())
        return QString::number(value.toDouble(), 'g', 15);
    const QJsonDocument document = value.isArray() ? QJsonDocument(value.toArray()) : QJsonDocument(value.toObject());
    return QString::fromUtf8(document.toJson(QJsonDocument::Compact));
}

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
    switch (kind) {
    case Kind::Status:
        return Tr::tr("status in %1").arg(statusText);
    case Kind::ResponseTimeUnder:
        return Tr::tr("response time under %1 ms").arg(maxMs);
    case Kind::BodyContains:
        return Tr::tr("body contains \"%1\"").arg(text);
    case Kind::JsonPointerEquals:
        return Tr::tr("%1 equals %2").arg(pointer, jsonText(expected));
    case Kind::Header:
        return pattern.isEmpty() ? Tr::tr("header %1 present").arg(QString::fromLatin1(header))
                                 : Tr::tr("header %1 matches %2").arg(QString::fromLatin1(header), pattern);
    case Kind::CertificateValidDays:
        return Tr::tr("certificate valid for more than %1 days").arg(days);
    }
    return {};
}

MonitorConditions::MonitorConditions(QList<MonitorCondition> conditions) : m_conditions(std::move(conditions))
{
    m_patterns.reserve(m_conditions.size());
    for (const MonitorCondition &c : m_conditions)
        m_patterns.emplace_back(c.pattern.isEmpty() ? QString() : c.pattern);
}

std::optional<QString> MonitorConditions::failure(const AttemptRecord &record, const QByteArray &body) const
{
    const qint64 now = QDateTime::currentMSecsSinceEpoch();
    for (qsizetype i = 0; i < m_conditions.size(); ++i) {
        if (auto failed = evaluate(m_conditions[i], m_patterns[static_cast<size_t>(i)], record, body, now))
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
    return evaluate(condition, QRegularExpression(condition.pattern), record, body, nowUtcMs);
}

std::optional<QString> MonitorConditions::evaluate(const MonitorCondition &c, const QRegularExpression &pattern,
    const AttemptRecord &record, const QByteArray &body, qint64 nowUtcMs)
{
    switch (c.kind) {
    case MonitorCondition::Kind::Status:
        if (!record.httpStatus)
            return Tr::tr("no HTTP status (expected %1)").arg(c.statusText);
        if (!c.statuses.contains(*record.httpStatus))
            return Tr::tr("HTTP %1 is not in %2").arg(*record.httpStatus).arg(c.statusText);
        return std::nullopt;
    case MonitorCondition::Kind::ResponseTimeUnder: {
        const double ms = record.durationMs();
        if (ms >= c.maxMs)
            return Tr::tr("the response took %1 ms, not under %2 ms").arg(ms, 0, 'f', 1).arg(c.maxMs);
        return std::nullopt;
    }
    case MonitorCondition::Kind::BodyContains:
        if (!body.contains(c.text.toUtf8())) {
            return record.responseBodyTruncated
                ? Tr::tr("the first %1 bytes of the body do not contain \"%2\"").arg(body.size()).arg(c.text)
                : Tr::tr("the body does not contain \"%1\"").arg(c.text);
        }
        return std::nullopt;
    case MonitorCondition::Kind::JsonPointerEquals: {
        QJsonParseError error;
        const QJsonDocument document = QJsonDocument::fromJson(body, &error);
        if (error.error != QJsonParseError::NoError)
            return Tr::tr("the body is not JSON (%1), so %2 cannot be read").arg(error.errorString(), c.pointer);
        const QJsonValue root = document.isArray() ? QJsonValue(document.array()) : QJsonValue(document.object());
        const std::optional<QJsonValue> found = JsonPointer::get(root, c.pointer);
        if (!found)
            return Tr::tr("the body has nothing at %1 (expected %2)").arg(c.pointer, jsonText(c.expected));
        if (*found != c.expected)
            return Tr::tr("%1 is %2, not %3").arg(c.pointer, jsonText(*found), jsonText(c.expected));
        return std::nullopt;
    }
    case MonitorCondition::Kind::Header: {
        const auto value = headerValue(record.responseHeaders, c.header);
        const QString name = QString::fromLatin1(c.header);
        if (!value)
            return Tr::tr("the answer has no %1 header").arg(name);
        if (!c.pattern.isEmpty() && !pattern.match(QString::fromUtf8(*value)).hasMatch())
            return Tr::tr("the %1 header does not match %2").arg(name, c.pattern);
        return std::nullopt;
    }
    case MonitorCondition::Kind::CertificateValidDays: {
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
    }
    return std::nullopt;
}

} // namespace RetryLab::Core
