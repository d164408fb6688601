#include "core/collections/jsontext.h"

#include "core/util/coretr.h"

#include <QCoreApplication>
#include <QJsonDocument>
#include <QJsonParseError>

namespace RetryLab::Core::JsonText {

Result<QJsonObject> object(const QByteArray &json, const QString &notAnObject)
{
    using R = Result<QJsonObject>;
    QJsonParseError parseError;
    const QJsonDocument document = QJsonDocument::fromJson(json, &parseError);
    if (parseError.error != QJsonParseError::NoError)
        return R::failure(
            Tr::tr("not valid JSON (%1 at byte %2)").arg(parseError.errorString()).arg(parseError.offset));
    if (!document.isObject())
        return R::failure(notAnObject);
    return document.object();
}

} // namespace RetryLab::Core::JsonText
