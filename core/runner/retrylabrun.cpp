#include "core/runner/retrylabrun.h"

#include "core/collections/collectionjson.h"
#include "core/import/importjson.h"
#include "core/util/coretr.h"

#include <QLoggingCategory>

namespace RetryLab::Core::RetryLabRun {

namespace {

Q_LOGGING_CATEGORY(lcRetryLabRun, "retrylab.core.retrylabrun")

std::optional<Error> convert(const QList<CollectionItem> &items, const QString &prefix, QList<RunItem> &into)
{
    for (qsizetype i = 0; i < items.size(); ++i) {
        const CollectionItem &item = items.at(i);
        RunItem run;
        run.place = QStringLiteral("%1items[%2]").arg(prefix).arg(i);
        run.id = item.id;
        run.name = item.name;
        if (item.isFolder()) {
            run.kind = RunItem::Kind::Folder;
            run.auth = item.auth;
            if (auto error = convert(item.items, run.place + QLatin1Char('.'), run.items))
                return error;
        } else {
            run.kind = RunItem::Kind::Request;
            if (!item.policy.policy()) {
                return Error{run.place + QStringLiteral(".policy.preset"),
                    Tr::tr("\"%1\" is not a built-in preset").arg(item.policy.preset)};
            }
            run.policy = item.policy;
            run.request = item.request;
            // Its own auth goes with its draft (sent by the executor); only Inherit takes its folders'.
            if (item.request.auth.kind != AuthSpec::Kind::Inherit)
                run.auth.kind = AuthSpec::Kind::None;
            run.assertions = item.assertions;
            run.extract = item.extract;
        }
        into.append(std::move(run));
    }
    return std::nullopt;
}

} // namespace

Result<RunCollection> fromCollection(const Collection &c, const QString &source)
{
    RunCollection out;
    out.format = RunCollection::Format::RetryLab;
    out.dialect = ScriptDialect::Postman;
    out.name = c.name;
    out.auth = c.auth;
    out.source = source;
    if (auto error = convert(c.items, {}, out.items))
        return *error;
    return out;
}

Result<RunCollection> readFile(const QString &path)
{
    const auto bytes = ImportJson::readFile(path, maxFileBytes, Tr::tr("RetryLab collections"));
    if (!bytes)
        return Error{path, bytes.errorDetail().message};
    // CollectionJson names the byte of a syntax error; a command line names the line and column.
    if (const auto document = ImportJson::parseObject(*bytes, Tr::tr("a RetryLab collection")); !document) {
        const Error error = document.errorDetail();
        return Error{path, error.text(), error.offset};
    }
    const auto read = CollectionJson::fromJson(*bytes);
    if (!read) {
        const Error error = read.errorDetail();
        return Error{path, error.text(), error.offset};
    }
    if (!read->leftOut.isEmpty()) {
        const Error &first = read->leftOut.constFirst();
        QString message = first.text();
        if (read->leftOut.size() > 1)
            message += Tr::tr(" (and %n more)", nullptr, int(read->leftOut.size() - 1));
        return Error{path, message};
    }
    auto collection = fromCollection(read->collection, path);
    if (!collection) {
        const Error error = collection.errorDetail();
        return Error{path, error.text()};
    }
    qCDebug(lcRetryLabRun) << "read" << collection->requestCount() << "requests of" << collection->name;
    return collection;
}

} // namespace RetryLab::Core::RetryLabRun
