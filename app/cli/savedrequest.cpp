#include "app/cli/savedrequest.h"

#include "app/cli/clitr.h"
#include "core/collections/collectionjson.h"
#include "core/collections/collectionstore.h"
#include "core/collections/environmentsjson.h"
#include "core/collections/requesttemplate.h"
#include "core/collections/variables.h"

#include <QCoreApplication>
#include <QDir>

#include <algorithm>

namespace RetryLab::Cli {

namespace {

using R = Core::Result<SavedRequest>;

QString native(const QString &path)
{
    return QDir::toNativeSeparators(path);
}

// The first of the problems a file has, and how many more there are: a file
// that is damaged anywhere is not sent from, since what was left out could be
// the very request asked for.
QString damage(const QList<Core::Error> &leftOut)
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

QStringList pathsOf(const QList<Core::Collection::Request> &requests)
{
    QStringList paths;
    for (const Core::Collection::Request &request : requests)
        paths.append(request.path);
    return paths;
}

QStringList namesOf(const QList<Core::Environment> &environments)
{
    QStringList names;
    for (const Core::Environment &environment : environments)
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

} // namespace

R SavedRequest::load(const Source &source)
{
    SavedRequest saved;
    saved.m_source = source;
    const QString file = native(source.collectionFile);
    const auto bytes = Core::CollectionStore::readFile(source.collectionFile);
    if (!bytes)
        return R::failure(Tr::tr("--collection: %1").arg(bytes.error()));
    const auto read = Core::CollectionJson::fromJson(*bytes);
    if (!read)
        return R::failure(Tr::tr("--collection %1: %2").arg(file, read.error()));
    if (!read->leftOut.isEmpty())
        return R::failure(Tr::tr("--collection %1: %2").arg(file, damage(read->leftOut)));

    const QList<Core::Collection::Request> all = read->collection.requests();
    if (all.isEmpty())
        return R::failure(Tr::tr("--collection %1 holds no request").arg(file));
    if (source.request.isEmpty()) {
        return R::failure(
            Tr::tr("--collection needs --request NAME, one of the requests of %1: %2").arg(file, listed(pathsOf(all))));
    }
    const QList<Core::Collection::Request> found = read->collection.find(source.request);
    if (found.isEmpty()) {
        return R::failure(Tr::tr("--request \"%1\": %2 has no request of that name or path; it has %3")
                              .arg(source.request, file, listed(pathsOf(all))));
    }
    if (found.size() > 1) {
        return R::failure(Tr::tr("--request \"%1\" names %2 requests of %3 (%4): give its path")
                              .arg(source.request)
                              .arg(found.size())
                              .arg(file, listed(pathsOf(found))));
    }
    saved.m_item = *found.constFirst().item;
    saved.m_path = found.constFirst().path;

    QStringList unresolved = Core::Variables::referencedNames(saved.m_item.request);
    if (!source.environmentFile.isEmpty()) {
        const QString environmentFile = native(source.environmentFile);
        const auto environmentBytes = Core::CollectionStore::readFile(source.environmentFile);
        if (!environmentBytes)
            return R::failure(Tr::tr("--env: %1").arg(environmentBytes.error()));
        const auto environments = Core::EnvironmentsJson::fromJson(*environmentBytes);
        if (!environments)
            return R::failure(Tr::tr("--env %1: %2").arg(environmentFile, environments.error()));
        if (!environments->leftOut.isEmpty())
            return R::failure(Tr::tr("--env %1: %2").arg(environmentFile, damage(environments->leftOut)));
        const QStringList names = namesOf(environments->environments);
        const Core::Environment *chosen = nullptr;
        if (!source.environmentName.isEmpty()) {
            chosen = environments->find(source.environmentName);
            if (!chosen) {
                return R::failure(Tr::tr("--env-name \"%1\": %2 has no environment of that name; it has %3")
                                      .arg(source.environmentName, environmentFile,
                                          names.isEmpty() ? Tr::tr("none") : listed(names)));
            }
        } else if (!environments->active.isEmpty()) {
            chosen = environments->find(environments->active);
        } else if (names.size() == 1) {
            chosen = &environments->environments.constFirst();
        } else if (names.isEmpty()) {
            return R::failure(Tr::tr("--env %1 holds no environment").arg(environmentFile));
        } else {
            return R::failure(Tr::tr("--env %1 holds %2 environments and none is selected: choose one with --env-name "
                                     "(%3)")
                                  .arg(environmentFile)
                                  .arg(names.size())
                                  .arg(listed(names)));
        }
        saved.m_environmentName = chosen->name;
        saved.m_values = chosen->values();
        unresolved.removeIf([&](const QString &name) { return saved.m_values.contains(name); });
        if (!unresolved.isEmpty()) {
            QString message = Tr::tr("%1 has no value in the environment \"%2\" of %3 (the saved request \"%4\" of %5 "
                                     "uses it)")
                                  .arg(braced(unresolved).join(QStringLiteral(", ")), chosen->name, environmentFile,
                                      saved.m_path, file);
            // A secret's value is in the file only when its environment keeps secrets on disk.
            const auto secret = std::find_if(unresolved.cbegin(), unresolved.cend(), [&](const QString &name) {
                const Core::EnvironmentVariable *variable = chosen->find(name);
                return variable && variable->secret;
            });
            if (secret != unresolved.cend()) {
                message += Tr::tr("; {{%1}} is a secret, and the file keeps its value only when the environment keeps "
                                  "its secrets on disk")
                               .arg(*secret);
            }
            return R::failure(message);
        }
    } else if (!source.environmentName.isEmpty()) {
        return R::failure(Tr::tr("--env-name needs --env FILE, the file that holds the environment"));
    } else if (!unresolved.isEmpty()) {
        return R::failure(Tr::tr("the saved request \"%1\" of %2 uses %3; give --env FILE with an environment that "
                                 "defines a value for each")
                              .arg(saved.m_path, file, braced(unresolved).join(QStringLiteral(", "))));
    }

    // The window refuses these too: sent, they would only earn 401s.
    if (const QStringList masked = saved.m_item.request.maskedCredentialHeaders(); !masked.isEmpty()) {
        return R::failure(Tr::tr("%1: the value of %2 was not saved and reads REDACTED; in the window, put a "
                                 "{{variable}} there instead and give its value with --env")
                              .arg(saved.description(), masked.join(QStringLiteral(", "))));
    }
    return saved;
}

QString SavedRequest::description() const
{
    if (m_environmentName.isEmpty())
        return Tr::tr("the saved request \"%1\" of %2").arg(m_path, native(m_source.collectionFile));
    return Tr::tr("the saved request \"%1\" of %2 with the environment \"%3\" of %4")
        .arg(m_path, native(m_source.collectionFile), m_environmentName, native(m_source.environmentFile));
}

bool SavedRequest::needsServer() const
{
    // After the variables: a variable may hold {server} ("base": "{server}").
    const auto resolved = Core::Variables::apply(m_item.request, m_values, m_environmentName);
    if (!resolved)
        return false; // load() refused it already
    const QString server = Core::RequestTemplate::serverPlaceholder();
    return Core::RequestTemplate::usesServer(*resolved) || resolved->writeUrlTemplate.contains(server)
        || std::any_of(resolved->fallbackTemplates.cbegin(), resolved->fallbackTemplates.cend(),
            [&](const QString &fallback) { return fallback.contains(server); });
}

Core::Result<Core::BackoffPolicy> SavedRequest::policy() const
{
    if (const auto policy = m_item.policy.policy())
        return *policy;
    return Core::Result<Core::BackoffPolicy>::failure(
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

Core::Result<Core::RequestSpec> SavedRequest::build(const QUrl &serverUrl) const
{
    Core::ExpansionContext context;
    context.serverUrl = serverUrl;
    context.requestKey = Core::RequestTemplate::newKeyToken() + QStringLiteral("-1");
    context.variables = m_values;
    context.environmentName = m_environmentName;
    auto spec = Core::RequestTemplate::build(m_item.request, context);
    if (!spec)
        return Core::Result<Core::RequestSpec>::failure(Tr::tr("%1: %2").arg(description(), spec.error()));
    return spec;
}

} // namespace RetryLab::Cli
