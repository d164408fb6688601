#include "core/collections/environmentsjson.h"

#include "core/collections/jsontext.h"
#include "core/util/coretr.h"
#include "core/util/jsonreader.h"

#include <QCoreApplication>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSet>

#include <limits>

namespace RetryLab::Core::EnvironmentsJson {

QByteArray toJson(const QList<Environment> &environments, const QString &active)
{
    QJsonArray list;
    for (const Environment &environment : environments)
        list.append(environment.toJson());
    QJsonObject object{
        {QStringLiteral("formatVersion"), formatVersion},
        {QStringLiteral("environments"), list},
    };
    if (!active.isEmpty())
        object.insert(QStringLiteral("active"), active);
    return QJsonDocument(object).toJson(QJsonDocument::Indented);
}

const Environment *Read::find(const QString &name) const
{
    for (const Environment &environment : environments) {
        if (environment.name == name)
            return &environment;
    }
    return nullptr;
}

Result<Read> fromJson(const QByteArray &json)
{
    using R = Result<Read>;
    const auto document = JsonText::object(json, Tr::tr("not a JSON object"));
    if (!document)
        return R(document.errorDetail());

    JsonReader reader(*document, {}, JsonReader::Mode::Salvage);
    const auto version
        = reader.integer(QStringLiteral("formatVersion"), 1, std::numeric_limits<int>::max(), Presence::Required);
    if (version && *version > formatVersion)
        return R::failure(
            QStringLiteral("formatVersion"), Tr::tr("written by a newer RetryLab (format %1)").arg(*version));
    reader.rejectUnknown({QStringLiteral("formatVersion"), QStringLiteral("active"), QStringLiteral("environments")});
    Read read;
    read.active = reader.string(QStringLiteral("active")).value_or(QString());
    read.leftOut = reader.errors();
    const QJsonArray list = document->value(QStringLiteral("environments")).toArray();
    QSet<QString> names;
    for (qsizetype i = 0; i < list.size(); ++i) {
        const QString where = QStringLiteral("environments[%1]").arg(i);
        auto environment = Environment::fromJson(list.at(i).toObject());
        if (!list.at(i).isObject()) {
            read.leftOut.append({where, Tr::tr("must be an object")});
        } else if (!environment) {
            read.leftOut.append(environment.errorDetail().under(where));
        } else if (names.contains(environment->name)) {
            read.leftOut.append(
                {where + QStringLiteral(".name"), Tr::tr("\"%1\" is used twice").arg(environment->name)});
        } else {
            names.insert(environment->name);
            read.environments.append(*environment);
        }
    }
    if (!names.contains(read.active))
        read.active.clear();
    return read;
}

} // namespace RetryLab::Core::EnvironmentsJson
