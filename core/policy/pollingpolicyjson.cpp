#include "core/policy/pollingpolicyjson.h"

#include "core/util/boundedfile.h"
#include "core/util/coretr.h"
#include "core/util/jsonreader.h"

#include <QDir>
#include <QJsonDocument>

#include <limits>

namespace RetryLab::Core {

namespace PollingPolicyJson {

namespace {

const QString formatKey = QStringLiteral("format");
const QString versionKey = QStringLiteral("version");
const QString initialDelayKey = QStringLiteral("initialDelayMs");
const QString multiplierKey = QStringLiteral("multiplier");
const QString maxDelayKey = QStringLiteral("maxDelayMs");
const QString totalTimeoutKey = QStringLiteral("totalTimeoutMs");
const QString maxPollsKey = QStringLiteral("maxPolls");
const QString donePointerKey = QStringLiteral("donePointer");
const QString errorPointerKey = QStringLiteral("errorPointer");
const QString formatName = QStringLiteral("retrylab-polling-policy");

} // namespace

QJsonObject toJsonObject(const PollingPolicy &p)
{
    return QJsonObject{
        {formatKey, formatName},
        {versionKey, formatVersion},
        {initialDelayKey, p.initialDelayMs},
        {multiplierKey, p.multiplier},
        {maxDelayKey, p.maxDelayMs},
        {totalTimeoutKey, p.totalTimeoutMs},
        {maxPollsKey, p.maxPolls},
        {donePointerKey, p.donePointer},
        {errorPointerKey, p.errorPointer},
    };
}

QByteArray toJson(const PollingPolicy &policy)
{
    return QJsonDocument(toJsonObject(policy)).toJson(QJsonDocument::Indented);
}

Result<PollingPolicy> fromJsonObject(const QJsonObject &object)
{
    PollingPolicy p;
    JsonReader r(object);
    r.rejectUnknown({formatKey, versionKey, initialDelayKey, multiplierKey, maxDelayKey, totalTimeoutKey, maxPollsKey,
        donePointerKey, errorPointerKey});
    if (const auto format = r.string(formatKey); format && *format != formatName)
        r.fail(formatKey, Tr::tr("expected \"%1\", got \"%2\"").arg(formatName, *format));
    if (const auto version = r.integer(versionKey); version && (*version < 1 || *version > formatVersion)) {
        r.fail(versionKey,
            Tr::tr("version %1 is not supported (this build reads up to %2)").arg(*version).arg(formatVersion));
    }
    if (const auto v = r.number(initialDelayKey))
        p.initialDelayMs = *v;
    if (const auto v = r.number(multiplierKey))
        p.multiplier = *v;
    if (const auto v = r.number(maxDelayKey))
        p.maxDelayMs = *v;
    if (const auto v = r.number(totalTimeoutKey))
        p.totalTimeoutMs = *v;
    // The limit is validatePollingPolicy()'s to tell; here only what an int holds.
    if (const auto v = r.integer(maxPollsKey, std::numeric_limits<int>::min(), std::numeric_limits<int>::max()))
        p.maxPolls = int(*v);
    if (const auto v = r.string(donePointerKey))
        p.donePointer = *v;
    if (const auto v = r.string(errorPointerKey))
        p.errorPointer = *v;
    if (r.failed())
        return r.firstError();
    if (const auto valid = validatePollingPolicy(p); !valid)
        return valid.errorDetail();
    return p;
}

Result<PollingPolicy> fromJson(const QByteArray &json)
{
    QJsonParseError parseError;
    const QJsonDocument doc = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return jsonSyntaxError(json, parseError);
    if (!doc.isObject())
        return Result<PollingPolicy>::failure(Tr::tr("a polling policy file must hold a JSON object"));
    return fromJsonObject(doc.object());
}

Result<PollingPolicy> readFile(const QString &path)
{
    const auto bytes = BoundedFile::read(path, {1024 * 1024, Tr::tr("a polling policy file")});
    if (!bytes)
        return bytes.errorDetail();
    auto result = fromJson(*bytes);
    if (!result) {
        return Result<PollingPolicy>::failure(Tr::tr("%1: %2").arg(QDir::toNativeSeparators(path), result.error()));
    }
    return result;
}

} // namespace PollingPolicyJson

} // namespace RetryLab::Core
