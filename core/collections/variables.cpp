#include "core/collections/variables.h"

#include "core/util/coretr.h"

#include <QCoreApplication>

namespace RetryLab::Core::Variables {

namespace {

void addNames(const QString &text, QStringList *names)
{
    for (const QString &name : referencedNames(text)) {
        if (!names->contains(name))
            names->append(name);
    }
}

} // namespace

QStringList referencedNames(const RequestDraft &draft)
{
    QStringList names;
    addNames(draft.urlTemplate, &names);
    for (const DraftHeader &header : draft.headers) {
        if (!header.enabled)
            continue;
        addNames(header.name, &names);
        addNames(header.value, &names);
    }
    addNames(draft.body, &names);
    for (const QString &fallback : draft.fallbackTemplates)
        addNames(fallback, &names);
    addNames(draft.writeUrlTemplate, &names);
    return names;
}

Result<RequestDraft> apply(
    const RequestDraft &draft, const QHash<QString, QString> &values, const QString &environmentName)
{
    QStringList unresolved;
    RequestDraft out = draft;
    out.urlTemplate = substitute(draft.urlTemplate, values, &unresolved);
    for (DraftHeader &header : out.headers) {
        if (!header.enabled)
            continue;
        header.name = substitute(header.name, values, &unresolved);
        header.value = substitute(header.value, values, &unresolved);
    }
    out.body = substitute(draft.body, values, &unresolved);
    for (QString &fallback : out.fallbackTemplates)
        fallback = substitute(fallback, values, &unresolved);
    out.writeUrlTemplate = substitute(draft.writeUrlTemplate, values, &unresolved);
    if (unresolved.isEmpty())
        return out;
    QStringList quoted;
    for (const QString &name : unresolved)
        quoted.append(QStringLiteral("{{%1}}").arg(name));
    if (environmentName.isEmpty()) {
        return Result<RequestDraft>::failure(
            Tr::tr("%1 needs an environment: choose one in the toolbar, or define the variable.")
                .arg(quoted.join(QStringLiteral(", "))));
    }
    return Result<RequestDraft>::failure(
        Tr::tr("%1 has no value in the environment \"%2\" (Environment: Edit\u2026; a secret is typed again after a "
               "restart unless it is kept on disk).")
            .arg(quoted.join(QStringLiteral(", ")), environmentName));
}

} // namespace RetryLab::Core::Variables
