#include "core/collections/requestdraft.h"

#include "core/collections/savedtransport.h"
#include "core/executor/requestcheck.h"
#include "core/http/redactor.h"
#include "core/policy/backoffpolicy.h"
#include "core/util/coretr.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonValue>
#include <QUrl>

#include <algorithm>

#include <cmath>
#include <cstdlib>

namespace RetryLab::Core {

namespace {

// Each reader leaves the default in place when the key is missing, so that a
// draft written by an older version still loads.
bool readString(const QJsonObject &object, const QString &key, qsizetype maxLength, QString *out, QString *error)
{
    const QJsonValue value = object.value(key);
    if (value.isUndefined())
        return true;
    if (!value.isString()) {
        *error = Tr::tr("%1: must be text").arg(key);
        return false;
    }
    if (value.toString().size() > maxLength) {
        *error = Tr::tr("%1: longer than %2 characters").arg(key).arg(maxLength);
        return false;
    }
    *out = value.toString();
    return true;
}

bool readInt(const QJsonObject &object, const QString &key, int min, int max, int *out, QString *error)
{
    const QJsonValue value = object.value(key);
    if (value.isUndefined())
        return true;
    const double number = value.toDouble(std::nan(""));
    if (!value.isDouble() || !std::isfinite(number) || number != std::floor(number) || number < min || number > max) {
        *error = Tr::tr("%1: must be a whole number from %2 to %3").arg(key).arg(min).arg(max);
        return false;
    }
    *out = static_cast<int>(number);
    return true;
}

bool readBool(const QJsonObject &object, const QString &key, bool *out, QString *error)
{
    const QJsonValue value = object.value(key);
    if (value.isUndefined())
        return true;
    if (!value.isBool()) {
        *error = Tr::tr("%1: must be true or false").arg(key);
        return false;
    }
    *out = value.toBool();
    return true;
}

bool isPlaceholder(QStringView value)
{
    return value.size() >= 2 && value.startsWith(QLatin1Char('{')) && value.endsWith(QLatin1Char('}'))
        && value.count(QLatin1Char('{')) == 1;
}

QString maskText()
{
    return QString::fromLatin1(Redactor::mask());
}

// "a=1&token=x" with the values of sensitive names masked; placeholders stay.
QString withoutSecretParameters(const QString &parameters)
{
    QStringList pairs = parameters.split(QLatin1Char('&'));
    for (QString &pair : pairs) {
        const qsizetype equals = pair.indexOf(QLatin1Char('='));
        if (equals <= 0)
            continue;
        const QString name = QUrl::fromPercentEncoding(pair.left(equals).toUtf8());
        const QStringView value = QStringView(pair).mid(equals + 1);
        if (!value.isEmpty() && !isPlaceholder(value) && Redactor::isSensitiveName(name))
            pair = pair.left(equals + 1) + maskText();
    }
    return pairs.join(QLatin1Char('&'));
}

} // namespace

bool RequestDraft::holdsMaskedCredential(const QString &value)
{
    const QString mask = QString::fromLatin1(Redactor::mask());
    for (qsizetype at = value.indexOf(mask); at >= 0; at = value.indexOf(mask, at + 1)) {
        const qsizetype end = at + mask.size();
        const bool wordStart = at == 0 || !value.at(at - 1).isLetterOrNumber();
        const bool wordEnd = end == value.size() || !value.at(end).isLetterOrNumber();
        if (wordStart && wordEnd)
            return true;
    }
    return false;
}

QStringList RequestDraft::maskedCredentialHeaders() const
{
    QStringList names;
    for (const DraftHeader &header : headers) {
        const QString name = header.name.trimmed();
        if (header.enabled && !name.isEmpty() && Redactor::isSensitiveHeader(name.toLatin1())
            && holdsMaskedCredential(header.value) && !names.contains(name, Qt::CaseInsensitive))
            names.append(name);
    }
    return names;
}

QString RequestDraft::urlTemplateWithoutCredentials(const QString &urlTemplate)
{
    QString out = urlTemplate;
    const qsizetype schemeEnd = out.indexOf(QLatin1String("://"));
    qsizetype rest = 0;
    if (schemeEnd > 0) {
        const qsizetype authorityStart = schemeEnd + 3;
        qsizetype authorityEnd = out.size();
        for (const QChar end : {QLatin1Char('/'), QLatin1Char('?'), QLatin1Char('#')}) {
            const qsizetype at = out.indexOf(end, authorityStart);
            if (at >= 0)
                authorityEnd = std::min(authorityEnd, at);
        }
        const qsizetype at = out.lastIndexOf(QLatin1Char('@'), authorityEnd - 1);
        if (at >= authorityStart) {
            QUrl userInfo;
            userInfo.setUserInfo(out.mid(authorityStart, at - authorityStart), QUrl::TolerantMode);
            if (!userInfo.password().isEmpty()) {
                const QString kept = userInfo.userName(QUrl::FullyEncoded) + QLatin1Char(':') + maskText();
                out.replace(authorityStart, at - authorityStart, kept);
                authorityEnd += kept.size() - (at - authorityStart);
            }
        }
        rest = authorityEnd;
    }
    const qsizetype query = out.indexOf(QLatin1Char('?'), rest);
    if (query < 0)
        return out;
    qsizetype fragment = out.indexOf(QLatin1Char('#'), query);
    const QString parameters = out.mid(query + 1, fragment < 0 ? -1 : fragment - query - 1);
    QString cleaned = out.left(query + 1) + withoutSecretParameters(parameters);
    if (fragment >= 0)
        cleaned += QLatin1Char('#') + withoutSecretParameters(out.mid(fragment + 1));
    return cleaned;
}

QJsonObject RequestDraft::toJson(bool keepCredentials) const
{
    const Redactor redactor(!keepCredentials);
    QJsonArray headerArray;
    HeaderList wireHeaders;
    for (const DraftHeader &header : headers) {
        const QString name = header.name.trimmed();
        QString value = header.value;
        if (!keepCredentials && !value.isEmpty() && !isPlaceholder(value)) {
            value = QString::fromUtf8(redactor.headerValue(name.toLatin1(), value.toUtf8()));
        }
        wireHeaders.append({name.toLatin1(), header.value.toUtf8()});
        headerArray.append(QJsonObject{
            {QStringLiteral("name"), name},
            {QStringLiteral("value"), value},
            {QStringLiteral("enabled"), header.enabled},
        });
    }
    QString savedBody = body;
    if (!keepCredentials && !body.isEmpty())
        savedBody = QString::fromUtf8(redactor.body(body.toUtf8(), wireHeaders));
    QJsonObject object{
        {QStringLiteral("method"), method},
        {QStringLiteral("url"), keepCredentials ? urlTemplate : urlTemplateWithoutCredentials(urlTemplate)},
        {QStringLiteral("headers"), headerArray},
        {QStringLiteral("body"), savedBody},
        {QStringLiteral("idempotent"), idempotent},
        {QStringLiteral("attemptHeaders"), attemptHeaders},
        {QStringLiteral("batchCount"), batchCount},
        {QStringLiteral("concurrency"), concurrency},
        {QStringLiteral("repeatIntervalMs"), repeatIntervalMs},
    };
    if (attemptTimeoutMs)
        object.insert(QStringLiteral("attemptTimeoutMs"), *attemptTimeoutMs);
    if (readModifyWrite) {
        object.insert(QStringLiteral("readModifyWrite"),
            QJsonObject{{QStringLiteral("increment"), QString::number(increment)},
                {QStringLiteral("readMethod"), QString::fromLatin1(shape.readMethod)},
                {QStringLiteral("writeMethod"), QString::fromLatin1(shape.writeMethod)},
                {QStringLiteral("writeUrl"),
                    keepCredentials ? writeUrlTemplate : urlTemplateWithoutCredentials(writeUrlTemplate)},
                {QStringLiteral("valuePointer"), shape.valuePointer},
                {QStringLiteral("etagPointer"), shape.etagPointer},
                {QStringLiteral("writeEnvelope"), shape.writeEnvelope}});
    }
    if (!fallbackTemplates.isEmpty()) {
        QJsonArray fallbacks;
        for (const QString &fallback : fallbackTemplates)
            fallbacks.append(keepCredentials ? fallback : urlTemplateWithoutCredentials(fallback));
        object.insert(QStringLiteral("fallbacks"), fallbacks);
    }
    // A string: JSON numbers lose whole numbers beyond 2^53.
    if (seed)
        object.insert(QStringLiteral("seed"), QString::number(*seed));
    // Never with the secrets or the exempt hosts, whatever keepCredentials says.
    if (!SavedTransport::withoutSessionOnly(transport).isDefault())
        object.insert(QStringLiteral("transport"), SavedTransport::toJson(transport));
    return object;
}

Result<RequestDraft> RequestDraft::fromJson(const QJsonObject &object)
{
    RequestDraft draft;
    QString error;
    if (!readString(object, QStringLiteral("method"), 64, &draft.method, &error)
        || !readString(object, QStringLiteral("url"), maxUrlLength, &draft.urlTemplate, &error)
        || !readString(object, QStringLiteral("body"), maxBodyLength, &draft.body, &error)
        || !readBool(object, QStringLiteral("idempotent"), &draft.idempotent, &error)
        || !readBool(object, QStringLiteral("attemptHeaders"), &draft.attemptHeaders, &error)
        || !readInt(object, QStringLiteral("batchCount"), 1, maxBatchCount, &draft.batchCount, &error)
        || !readInt(object, QStringLiteral("concurrency"), 1, maxConcurrency, &draft.concurrency, &error)
        || !readInt(object, QStringLiteral("repeatIntervalMs"), minRepeatIntervalMs, maxRepeatIntervalMs,
            &draft.repeatIntervalMs, &error))
        return Result<RequestDraft>::failure(error);

    const QJsonValue timeout = object.value(QStringLiteral("attemptTimeoutMs"));
    if (!timeout.isUndefined()) {
        const double ms = timeout.toDouble(-1.0);
        if (!timeout.isDouble() || !std::isfinite(ms) || ms <= 0.0 || ms > PolicyLimits::maxDeadlineMs) {
            return Result<RequestDraft>::failure(
                Tr::tr("attemptTimeoutMs: must be more than 0 and at most %1 ms").arg(PolicyLimits::maxDeadlineMs));
        }
        draft.attemptTimeoutMs = ms;
    }

    const QJsonValue rmw = object.value(QStringLiteral("readModifyWrite"));
    if (!rmw.isUndefined()) {
        const QJsonObject o = rmw.toObject();
        bool ok = false;
        const qint64 increment = o.value(QStringLiteral("increment")).toString().toLongLong(&ok);
        QString readMethod = QString::fromLatin1(draft.shape.readMethod);
        QString writeMethod = QString::fromLatin1(draft.shape.writeMethod);
        if (!rmw.isObject() || !ok || std::abs(increment) > (qint64(1) << 52))
            return Result<RequestDraft>::failure(Tr::tr("readModifyWrite.increment: must be a whole number"));
        if (!readString(o, QStringLiteral("readMethod"), 20, &readMethod, &error)
            || !readString(o, QStringLiteral("writeMethod"), 20, &writeMethod, &error)
            || !readString(o, QStringLiteral("writeUrl"), maxUrlLength, &draft.writeUrlTemplate, &error)
            || !readString(o, QStringLiteral("valuePointer"), 1000, &draft.shape.valuePointer, &error)
            || !readString(o, QStringLiteral("etagPointer"), 1000, &draft.shape.etagPointer, &error)
            || !readString(o, QStringLiteral("writeEnvelope"), 200, &draft.shape.writeEnvelope, &error))
            return Result<RequestDraft>::failure(QStringLiteral("readModifyWrite.") + error);
        draft.readModifyWrite = true;
        draft.increment = increment;
        draft.shape.readMethod = readMethod.toLatin1();
        draft.shape.writeMethod = writeMethod.toLatin1();
    }

    const QJsonValue fallbacks = object.value(QStringLiteral("fallbacks"));
    if (!fallbacks.isUndefined()) {
        const QJsonArray array = fallbacks.toArray();
        if (!fallbacks.isArray() || array.size() > maxFallbacks) {
            return Result<RequestDraft>::failure(
                Tr::tr("fallbacks: must be a list of at most %1 URLs").arg(maxFallbacks));
        }
        for (qsizetype i = 0; i < array.size(); ++i) {
            const QString url = array.at(i).toString();
            if (!array.at(i).isString() || url.isEmpty() || url.size() > maxUrlLength)
                return Result<RequestDraft>::failure(Tr::tr("fallbacks[%1]: must be a URL").arg(i));
            draft.fallbackTemplates.append(url);
        }
    }

    const QJsonValue seed = object.value(QStringLiteral("seed"));
    if (!seed.isUndefined() && !seed.isNull()) {
        bool ok = false;
        const quint64 value = seed.toString().toULongLong(&ok);
        if (!seed.isString() || !ok || !seed.toString().front().isDigit())
            return Result<RequestDraft>::failure(
                Tr::tr("seed: must be a whole number from 0 to 18446744073709551615, written as a string"));
        draft.seed = value;
    }

    const QJsonValue transport = object.value(QStringLiteral("transport"));
    if (!transport.isUndefined()) {
        if (!transport.isObject())
            return Result<RequestDraft>::failure(Tr::tr("transport: must be an object"));
        auto options = SavedTransport::fromJson(transport.toObject(), QStringLiteral("transport"));
        if (!options)
            return Result<RequestDraft>(options.errorDetail());
        draft.transport = *options;
    }

    const QJsonValue headers = object.value(QStringLiteral("headers"));
    if (!headers.isUndefined()) {
        if (!headers.isArray())
            return Result<RequestDraft>::failure(Tr::tr("headers: must be a list"));
        const QJsonArray array = headers.toArray();
        if (array.size() > maxHeaders)
            return Result<RequestDraft>::failure(Tr::tr("headers: more than %1 entries").arg(maxHeaders));
        for (qsizetype i = 0; i < array.size(); ++i) {
            const QJsonObject entry = array.at(i).toObject();
            const QString where = QStringLiteral("headers[%1].").arg(i);
            DraftHeader header;
            if (!array.at(i).isObject()
                || !readString(entry, QStringLiteral("name"), maxUrlLength, &header.name, &error)
                || !readString(entry, QStringLiteral("value"), maxUrlLength, &header.value, &error)
                || !readBool(entry, QStringLiteral("enabled"), &header.enabled, &error)) {
                return Result<RequestDraft>::failure(error.isEmpty()
                        ? Tr::tr("headers[%1]: must be an object with name and value").arg(i)
                        : where + error);
            }
            draft.headers.append(header);
        }
    }
    return draft;
}

} // namespace RetryLab::Core
