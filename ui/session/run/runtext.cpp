#include "ui/session/run/runtext.h"

#include "ui/session/uitr.h"

#include <QMetaEnum>

namespace RetryLab::Ui::RunText {

using namespace RetryLab::Core;

QString laneTitle(const AttemptStore &store, qsizetype laneIndex)
{
    if (laneIndex < 0 || laneIndex >= store.laneCount())
        return {};
    const AttemptStore::Lane &l = store.lane(laneIndex);
    const QString id = QLatin1Char('#') + QString::number(l.requestId);
    const RequestSpec *s = store.spec(laneIndex);
    const QString host = store.mixedHosts() && s ? AttemptStore::hostOf(s->url) : QString();
    if (l.label != 0)
        return id + QLatin1Char(' ') + store.string(l.label)
            + (host.isEmpty() ? QString() : QStringLiteral(" @ ") + host);
    if (s) {
        const QString path = s->url.path().isEmpty() ? QStringLiteral("/") : s->url.path();
        return id + QLatin1Char(' ') + QString::fromLatin1(s->method) + QLatin1Char(' ') + host + path;
    }
    return id;
}

QString statusText(const AttemptStore &store, const AttemptStore::AttemptRow &row)
{
    if (row.inFlight())
        return Tr::tr("in flight");
    const auto end = static_cast<AttemptEnd>(row.end);
    const bool cut = end == AttemptEnd::AttemptTimeout || end == AttemptEnd::Deadline || end == AttemptEnd::Cancelled;
    if (row.httpStatus >= 0 && !cut) {
        const QByteArray phrase = store.reasonPhraseOf(row);
        return phrase.isEmpty() ? QString::number(row.httpStatus)
                                : QString::number(row.httpStatus) + QLatin1Char(' ') + QString::fromLatin1(phrase);
    }
    if (row.errorString != 0)
        return store.string(row.errorString);
    if (row.networkError != 0) {
        const char *key
            = QMetaEnum::fromType<QNetworkReply::NetworkError>().valueToKey(static_cast<int>(row.networkError));
        return key ? QString::fromLatin1(key) : Tr::tr("network error %1").arg(row.networkError);
    }
    return attemptEndName(end);
}

QString detailText(const AttemptStore &store, quint32 detail)
{
    if (qsizetype(detail) >= store.detailCount())
        return {};
    const AttemptStore::Detail &d = store.detail(detail);
    return QString::fromLatin1(d.method) + QLatin1Char(' ') + d.step + QLatin1Char(' ')
        + QString::fromLatin1(d.reasonPhrase);
}

} // namespace RetryLab::Ui::RunText
