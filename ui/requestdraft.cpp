#include "ui/requestdraft.h"

#include "core/backoffpolicy.h"
#include "core/redactor.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonValue>

#include <cmath>

namespace RetryLab::Ui {

namespace {

QString tr(const char *text)
{
    return QCoreApplication::translate("RetryLab::Ui::RequestDraft", text);
}

// Each reader leaves the default in place when the key is missing, so that a
// draft written by an older version still loads.
bool readString(const QJsonObject &object, const QString &key, qsizetype maxLength, QString *out, QString *error)
{
    const QJsonValue value = object.value(key);
    if (value.isUndefined())
        return true;
    if (!value.isString()) {
        *error = tr("%1: must be text").arg(key);
        return false;
    }
    if (value.toString().size() > maxLength) {
        *error = tr("%1: longer than %2 characters").arg(key).arg(maxLength);
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
        *error = tr("%1: must be a whole number from %2 to %3").arg(key).arg(min).arg(max);
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
        *error = tr("%1: must be true or false").arg(key);
        return false;
    }
    *out = value.toBool();
    return true;
}

} // namespace

QJsonObject RequestDraft::toJson(bool keepCredentials) const
{
    QJsonArray headerArray;
    for (const DraftHeader &header : headers) {
        const bool secret = !keepCredentials && Core::Redactor::isSensitiveHeader(header.name.toLatin1());
        headerArray.append(QJsonObject{
            {QStringLiteral("name"), header.name},
            {QStringLiteral("value"), secret ? QString() : header.value},
            {QStringLiteral("enabled"), header.enabled},
        });
    }
    QJsonObject object{
        {QStringLiteral("method"), method},
        {QStringLiteral("url"), urlTemplate},
        {QStringLiteral("headers"), headerArray},
        {QStringLiteral("body"), body},
        {QStringLiteral("idempotent"), idempotent},
        {QStringLiteral("batchCount"), batchCount},
        {QStringLiteral("concurrency"), concurrency},
        {QStringLiteral("repeatIntervalMs"), repeatIntervalMs},
    };
    if (attemptTimeoutMs)
        object.insert(QStringLiteral("attemptTimeoutMs"), *attemptTimeoutMs);
    return object;
}

Core::Result<RequestDraft> RequestDraft::fromJson(const QJsonObject &object)
{
    RequestDraft draft;
    QString error;
    if (!readString(object, QStringLiteral("method"), 64, &draft.method, &error)
        || !readString(object, QStringLiteral("url"), maxUrlLength, &draft.urlTemplate, &error)
        || !readString(object, QStringLiteral("body"), maxBodyLength, &draft.body, &error)
        || !readBool(object, QStringLiteral("idempotent"), &draft.idempotent, &error)
        || !readInt(object, QStringLiteral("batchCount"), 1, maxBatchCount, &draft.batchCount, &error)
        || !readInt(object, QStringLiteral("concurrency"), 1, maxConcurrency, &draft.concurrency, &error)
        || !readInt(object, QStringLiteral("repeatIntervalMs"), minRepeatIntervalMs, maxRepeatIntervalMs,
            &draft.repeatIntervalMs, &error))
        return Core::Result<RequestDraft>::failure(error);

    const QJsonValue timeout = object.value(QStringLiteral("attemptTimeoutMs"));
    if (!timeout.isUndefined()) {
        const double ms = timeout.toDouble(-1.0);
        if (!timeout.isDouble() || !std::isfinite(ms) || ms <= 0.0 || ms > Core::PolicyLimits::maxDeadlineMs) {
            return Core::Result<RequestDraft>::failure(
                tr("attemptTimeoutMs: must be more than 0 and at most %1 ms").arg(Core::PolicyLimits::maxDeadlineMs));
        }
        draft.attemptTimeoutMs = ms;
    }

    const QJsonValue headers = object.value(QStringLiteral("headers"));
    if (!headers.isUndefined()) {
        if (!headers.isArray())
            return Core::Result<RequestDraft>::failure(tr("headers: must be a list"));
        const QJsonArray array = headers.toArray();
        if (array.size() > maxHeaders)
            return Core::Result<RequestDraft>::failure(tr("headers: more than %1 entries").arg(maxHeaders));
        for (qsizetype i = 0; i < array.size(); ++i) {
            const QJsonObject entry = array.at(i).toObject();
            const QString where = QStringLiteral("headers[%1].").arg(i);
            DraftHeader header;
            if (!array.at(i).isObject()
                || !readString(entry, QStringLiteral("name"), maxUrlLength, &header.name, &error)
                || !readString(entry, QStringLiteral("value"), maxUrlLength, &header.value, &error)
                || !readBool(entry, QStringLiteral("enabled"), &header.enabled, &error)) {
                return Core::Result<RequestDraft>::failure(
                    error.isEmpty() ? tr("headers[%1]: must be an object with name and value").arg(i) : where + error);
            }
            draft.headers.append(header);
        }
    }
    return draft;
}

} // namespace RetryLab::Ui
