#include "core/collections/requestdraft.h"

#include "core/auth/authjson.h"
#include "core/collections/savedtransport.h"
#include "core/executor/requestcheck.h"
#include "core/http/redactor.h"
#include "core/policy/backoffpolicy.h"
#include "core/policy/fallbacktriggers.h"
#include "core/util/coretr.h"
#include "core/util/jsonreader.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonValue>
#include <QRegularExpression>
#include <QUrl>

#include <algorithm>

#include <cstdlib>

namespace RetryLab::Core {

namespace {

// Leaves `out` as it is when the field is missing, so that a draft written by
// an older version still loads; the limit keeps a damaged file from filling the
// composer.
void readText(JsonReader &reader, const JsonReader::Key &key, qsizetype maxLength, QString *out)
{
    const auto text = reader.string(key);
    if (!text)
        return;
    if (text->size() > maxLength)
        reader.fail(key, Tr::tr("longer than %1 characters").arg(maxLength));
    else
        *out = *text;
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
    if (!bodyFrom.isRaw())
        object.insert(QStringLiteral("bodyFrom"), bodyFrom.toJson(keepCredentials));
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
    if (!fallbackOn.isEmpty())
        object.insert(QStringLiteral("fallbackOn"), FallbackTriggers::toJson(fallbackOn));
    // A string: JSON numbers lose whole numbers beyond 2^53.
    if (seed)
        object.insert(QStringLiteral("seed"), QString::number(*seed));
    // Never with the secrets or the exempt hosts, whatever keepCredentials says.
    if (!SavedTransport::withoutSessionOnly(transport).isDefault())
        object.insert(QStringLiteral("transport"), SavedTransport::toJson(transport));
    if (auth.kind != AuthSpec::Kind::Inherit)
        object.insert(QStringLiteral("auth"), authToJson(auth, keepCredentials));
    return object;
}

QJsonObject RequestDraft::authToJson(const AuthSpec &auth, bool keepCredentials)
{
    // A secret that is only a {{variable}} is no secret: it stays; any other is masked, as headers are.
    AuthSpec saved = auth;
    if (!keepCredentials) {
        static const QRegularExpression onlyVariable(QStringLiteral(R"(^\s*\{\{[^{}]+\}\}\s*$)"));
        saved.forEachSecret([](QString &secret) {
            if (!secret.isEmpty() && !onlyVariable.match(secret).hasMatch())
                secret = QString::fromLatin1(Redactor::mask());
        });
    }
    return AuthJson::toJson(saved, AuthJson::Secrets::Write);
}

Result<RequestDraft> RequestDraft::fromJson(const QJsonObject &object)
{
    RequestDraft draft;
    JsonReader reader(object);
    readText(reader, QStringLiteral("method"), 64, &draft.method);
    readText(reader, QStringLiteral("url"), maxUrlLength, &draft.urlTemplate);
    readText(reader, QStringLiteral("body"), maxBodyLength, &draft.body);
    draft.bodyFrom = DraftBody::read(reader);
    draft.idempotent = reader.boolean(QStringLiteral("idempotent")).value_or(draft.idempotent);
    draft.attemptHeaders = reader.boolean(QStringLiteral("attemptHeaders")).value_or(draft.attemptHeaders);
    draft.batchCount = int(reader.integer(QStringLiteral("batchCount"), 1, maxBatchCount).value_or(draft.batchCount));
    draft.concurrency
        = int(reader.integer(QStringLiteral("concurrency"), 1, maxConcurrency).value_or(draft.concurrency));
    draft.repeatIntervalMs
        = int(reader.integer(QStringLiteral("repeatIntervalMs"), minRepeatIntervalMs, maxRepeatIntervalMs)
                  .value_or(draft.repeatIntervalMs));

    // More than 0: number()'s range includes its ends.
    if (const auto ms = reader.number(QStringLiteral("attemptTimeoutMs"))) {
        if (*ms <= 0.0 || *ms > PolicyLimits::maxDeadlineMs) {
            reader.fail(QStringLiteral("attemptTimeoutMs"),
                Tr::tr("must be more than 0 and at most %1 ms").arg(PolicyLimits::maxDeadlineMs));
        } else {
            draft.attemptTimeoutMs = ms;
        }
    }

    if (auto rmw = reader.object(QStringLiteral("readModifyWrite"))) {
        // Written as a string, and within 2^52, so that a JSON number reading it stays exact.
        const QJsonValue incrementValue = rmw->value(QStringLiteral("increment"));
        bool ok = false;
        const qint64 increment = incrementValue.toString().toLongLong(&ok);
        if (!incrementValue.isString() || !ok || std::abs(increment) > (qint64(1) << 52))
            rmw->fail(QStringLiteral("increment"), Tr::tr("must be a whole number"));
        QString readMethod = QString::fromLatin1(draft.shape.readMethod);
        QString writeMethod = QString::fromLatin1(draft.shape.writeMethod);
        readText(*rmw, QStringLiteral("readMethod"), 20, &readMethod);
        readText(*rmw, QStringLiteral("writeMethod"), 20, &writeMethod);
        readText(*rmw, QStringLiteral("writeUrl"), maxUrlLength, &draft.writeUrlTemplate);
        readText(*rmw, QStringLiteral("valuePointer"), 1000, &draft.shape.valuePointer);
        readText(*rmw, QStringLiteral("etagPointer"), 1000, &draft.shape.etagPointer);
        readText(*rmw, QStringLiteral("writeEnvelope"), 200, &draft.shape.writeEnvelope);
        draft.readModifyWrite = true;
        draft.increment = increment;
        draft.shape.readMethod = readMethod.toLatin1();
        draft.shape.writeMethod = writeMethod.toLatin1();
    }

    if (auto fallbacks = reader.array(QStringLiteral("fallbacks"))) {
        if (fallbacks->size() > maxFallbacks)
            fallbacks->failHere(Tr::tr("must be a list of at most %1 URLs").arg(maxFallbacks));
        for (qsizetype i = 0; i < fallbacks->size(); ++i) {
            const QJsonValue url = fallbacks->value(i);
            if (!url.isString() || url.toString().isEmpty() || url.toString().size() > maxUrlLength)
                fallbacks->fail(i, Tr::tr("must be a URL"));
            else
                draft.fallbackTemplates.append(url.toString());
        }
    }

    if (auto list = reader.array(QStringLiteral("fallbackOn"))) {
        auto entries = FallbackTriggers::fromJson(list->array());
        if (entries)
            draft.fallbackOn = *entries;
        else
            reader.fail(QStringLiteral("fallbackOn"), entries.errorDetail());
    }

    // A string: JSON numbers lose whole numbers beyond 2^53. Null: no seed.
    const QJsonValue seed = reader.value(QStringLiteral("seed"));
    if (!seed.isUndefined() && !seed.isNull()) {
        bool ok = false;
        const quint64 value = seed.toString().toULongLong(&ok);
        if (!seed.isString() || !ok || !seed.toString().front().isDigit()) {
            reader.fail(QStringLiteral("seed"),
                Tr::tr("must be a whole number from 0 to 18446744073709551615, written as a string"));
        } else {
            draft.seed = value;
        }
    }

    if (auto saved = reader.object(QStringLiteral("auth")))
        draft.auth = AuthJson::read(*saved);

    if (const auto transport = reader.object(QStringLiteral("transport"))) {
        const auto options = SavedTransport::fromJson(transport->object());
        if (options)
            draft.transport = *options;
        else
            reader.fail(QStringLiteral("transport"), options.errorDetail());
    }

    if (auto headers = reader.array(QStringLiteral("headers"))) {
        if (headers->size() > maxHeaders)
            headers->failHere(Tr::tr("more than %1 entries").arg(maxHeaders));
        for (qsizetype i = 0; i < headers->size(); ++i) {
            auto entry = headers->object(i, Presence::Required);
            if (!entry)
                continue;
            DraftHeader header;
            readText(*entry, QStringLiteral("name"), maxUrlLength, &header.name);
            readText(*entry, QStringLiteral("value"), maxUrlLength, &header.value);
            header.enabled = entry->boolean(QStringLiteral("enabled")).value_or(header.enabled);
            draft.headers.append(header);
        }
    }
    return reader.result(draft);
}

} // namespace RetryLab::Core
