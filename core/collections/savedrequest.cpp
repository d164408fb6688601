#include "core/collections/savedrequest.h"

#include "core/collections/collectionjson.h"
#include "core/collections/collectionstore.h"
#include "core/collections/environmentsjson.h"
#include "core/collections/requesttemplate.h"
#include "core/collections/variables.h"
#include "core/util/coretr.h"

#include <QCoreApplication>
#include <QDir>

#include <algorithm>

namespace RetryLab::Core {

namespace {

using R = Result<SavedRequest>;

QString nativePath(const QString &path)
{
    return QDir::toNativeSeparators(path);
}

// The first of the problems a file has, and how many more there are.
QString damage(const QList<Error> &leftOut)
{
    if (leftOut.size() == 1)
        return leftOut.constFirst().text();
    return Tr::tr("%1 (and %n more problem(s))", nullptr, int(leftOut.size() - 1)).arg(leftOut.constFirst().text());
}

// "Health, Orders/Create, ..." for a message: the first twenty.
QString listed(const QStringList &names)
{
    constexpr qsizetype shown = 20;
    QString text = names.mid(0, shown).join(QStringLiteral(", "));
    if (names.size() > shown)
        text += Tr::tr(" and %n more", nullptr, int(names.size() - shown));
    return text;
}

QStringList pathsOf(const QList<Collection::Request> &requests)
{
    QStringList paths;
    for (const Collection::Request &request : requests)
        paths.append(request.path);
    return paths;
}

QStringList namesOf(const QList<Environment> &environments)
{
    QStringList names;
    for (const Environment &environment : environments)
        names.append(environment.name);
    return names;
}

QStringList braced(const QStringList &names)
{
    QStringList out;
    for (const QString &name : names)
        out.append(QStringLiteral("{{%1}}").arg(name));
    return out;
}

// A collection or environments file named by `option`, read whole: a file that
// is damaged anywhere is not sent from, since what was left out could be the
// very request or variable asked for.
template<typename Read>
Result<Read> readWhole(const QString &option, const QString &path, Result<Read> (*parse)(const QByteArray &))
{
    using Failure = Result<Read>;
    const auto bytes = CollectionStore::readFile(path);
    if (!bytes)
        return Failure::failure(Tr::tr("%1: %2").arg(option, bytes.error()));
    auto read = parse(*bytes);
    if (!read)
        return Failure::failure(Tr::tr("%1 %2: %3").arg(option, nativePath(path), read.error()));
    if (!read->leftOut.isEmpty())
        return Failure::failure(Tr::tr("%1 %2: %3").arg(option, nativePath(path), damage(read->leftOut)));
    return read;
}

struct Found
{
    CollectionItem item;
    QString path;
};

Result<Found> findRequest(
    const Collection &collection, const QString &file, const QString &name, const SavedRequest::Source::Names &n)
{
    using Failure = Result<Found>;
    const QList<Collection::Request> all = collection.requests();
    if (all.isEmpty())
        return Failure::failure(Tr::tr("%1 %2 holds no request").arg(n.collection, file));
    if (name.isEmpty()) {
        return Failure::failure(Tr::tr("%1 needs %2 NAME, one of the requests of %3: %4")
                                    .arg(n.collection, n.request, file, listed(pathsOf(all))));
    }
    const QList<Collection::Request> found = collection.find(name);
    if (found.isEmpty()) {
        return Failure::failure(Tr::tr("%1 \"%2\": %3 has no request of that name or path; it has %4")
                                    .arg(n.request, name, file, listed(pathsOf(all))));
    }
    if (found.size() > 1) {
        return Failure::failure(Tr::tr("%1 \"%2\" names %3 requests of %4 (%5): give its path")
                                    .arg(n.request, name)
                                    .arg(found.size())
                                    .arg(file, listed(pathsOf(found))));
    }
    // Sent with what it inherits from its folders or the collection when its own auth is Inherit.
    CollectionItem item = *found.constFirst().item;
    item.request.auth = found.constFirst().effectiveAuth();
    return Found{item, found.constFirst().path};
}

// --env-name's environment, else the one selected last in the window, else the only one.
Result<Environment> chooseEnvironment(
    const EnvironmentsJson::Read &read, const QString &file, const QString &name, const SavedRequest::Source::Names &n)
{
    using Failure = Result<Environment>;
    const QStringList names = namesOf(read.environments);
    if (!name.isEmpty()) {
        if (const Environment *named = read.find(name))
            return *named;
        return Failure::failure(
            Tr::tr("%1 \"%2\": %3 has no environment of that name; it has %4")
                .arg(n.environmentName, name, file, names.isEmpty() ? Tr::tr("none") : listed(names)));
    }
    if (const Environment *active = read.find(read.active))
        return *active;
    if (names.size() == 1)
        return read.environments.constFirst();
    if (names.isEmpty())
        return Failure::failure(Tr::tr("%1 %2 holds no environment").arg(n.environmentFile, file));
    return Failure::failure(Tr::tr("%1 %2 holds %3 environments and none is selected: choose one with %4 (%5)")
                                .arg(n.environmentFile, file)
                                .arg(names.size())
                                .arg(n.environmentName, listed(names)));
}

} // namespace

R SavedRequest::load(const Source &source)
{
    SavedRequest saved;
    saved.m_source = source;
    const QString file = nativePath(source.collectionFile);
    const auto read = readWhole(source.names.collection, source.collectionFile, &CollectionJson::fromJson);
    if (!read)
        return R(read.errorDetail());
    auto found = findRequest(read->collection, file, source.request, source.names);
    if (!found)
        return R(found.errorDetail());
    saved.m_item = std::move(found.value().item);
    saved.m_path = found.value().path;

    std::optional<Environment> environment;
    if (!source.environmentFile.isEmpty()) {
        const auto environments
            = readWhole(source.names.environmentFile, source.environmentFile, &EnvironmentsJson::fromJson);
        if (!environments)
            return R(environments.errorDetail());
        auto chosen = chooseEnvironment(
            *environments, nativePath(source.environmentFile), source.environmentName, source.names);
        if (!chosen)
            return R(chosen.errorDetail());
        environment = std::move(chosen).value();
        saved.m_environmentName = environment->name;
        saved.m_values = environment->values();
    } else if (!source.environmentName.isEmpty()) {
        return R::failure(Tr::tr("%1 needs %2 FILE, the file that holds the environment")
                              .arg(source.names.environmentName, source.names.environmentFile));
    }
    if (const QString missing = saved.missingValues(environment ? &*environment : nullptr); !missing.isEmpty())
        return R::failure(missing);

    // The window refuses these too: sent, they would only earn 401s.
    if (const QStringList masked = saved.m_item.request.maskedCredentialHeaders(); !masked.isEmpty()) {
        return R::failure(
            Tr::tr("%1: the value of %2 was not saved and reads REDACTED; in the window, put a "
                   "{{variable}} there instead and give its value with %3")
                .arg(saved.description(), masked.join(QStringLiteral(", ")), source.names.environmentFile));
    }
    return saved;
}

QString SavedRequest::missingValues(const Environment *environment) const
{
    QStringList unresolved = Variables::referencedNames(m_item.request);
    unresolved.removeIf([this](const QString &name) { return m_values.contains(name); });
    if (unresolved.isEmpty())
        return {};
    const QString names = braced(unresolved).join(QStringLiteral(", "));
    const QString file = nativePath(m_source.collectionFile);
    if (!environment) {
        return Tr::tr("the saved request \"%1\" of %2 uses %3; give %4 FILE with an environment that defines a "
                      "value for each")
            .arg(m_path, file, names, m_source.names.environmentFile);
    }
    QString message = Tr::tr("%1 has no value in the environment \"%2\" of %3 (the saved request \"%4\" of %5 uses it)")
                          .arg(names, environment->name, nativePath(m_source.environmentFile), m_path, file);
    // A secret's value is in the file only when its environment keeps secrets on disk.
    const auto secret = std::find_if(unresolved.cbegin(), unresolved.cend(), [&](const QString &name) {
        const EnvironmentVariable *variable = environment->find(name);
        return variable && variable->secret;
    });
    if (secret != unresolved.cend()) {
        message += Tr::tr("; {{%1}} is a secret, and the file keeps its value only when the environment keeps its "
                          "secrets on disk")
                       .arg(*secret);
    }
    return message;
}

QString SavedRequest::description() const
{
    if (m_environmentName.isEmpty())
        return Tr::tr("the saved request \"%1\" of %2").arg(m_path, nativePath(m_source.collectionFile));
    return Tr::tr("the saved request \"%1\" of %2 with the environment \"%3\" of %4")
        .arg(m_path, nativePath(m_source.collectionFile), m_environmentName, nativePath(m_source.environmentFile));
}

bool SavedRequest::needsServer() const
{
    // After the variables: a variable may hold {server} ("base": "{server}").
    const auto resolved = Variables::apply(m_item.request, m_values, m_environmentName);
    if (!resolved)
        return false; // load() refused it already
    const QString server = RequestTemplate::serverPlaceholder();
    return RequestTemplate::usesServer(*resolved) || resolved->writeUrlTemplate.contains(server)
        || std::any_of(resolved->fallbackTemplates.cbegin(), resolved->fallbackTemplates.cend(),
            [&](const QString &fallback) { return fallback.contains(server); });
}

Result<BackoffPolicy> SavedRequest::policy() const
{
    if (const auto policy = m_item.policy.policy())
        return *policy;
    return Result<BackoffPolicy>::failure(
        Tr::tr("%1 uses the preset \"%2\", which this RetryLab does not have; give --policy")
            .arg(description(), m_item.policy.preset));
}

QString SavedRequest::policyOrigin() const
{
    if (!m_item.policy.preset.isEmpty())
        return Tr::tr("preset %1, saved with the request").arg(m_item.policy.preset);
    return Tr::tr("saved with the request");
}

std::optional<quint64> SavedRequest::seed() const
{
    return m_item.request.seed;
}

Result<RequestSpec> SavedRequest::build(const QUrl &serverUrl) const
{
    ExpansionContext context;
    context.serverUrl = serverUrl;
    context.requestKey = RequestTemplate::newKeyToken() + QStringLiteral("-1");
    context.variables = m_values;
    context.environmentName = m_environmentName;
    auto spec = RequestTemplate::build(m_item.request, context);
    if (!spec)
        return Result<RequestSpec>::failure(Tr::tr("%1: %2").arg(description(), spec.error()));
    return spec;
}

} // namespace RetryLab::Core
