#include "core/collections/variables.h"

#include "core/collections/dynamicvariables.h"
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
    // Only the body that is sent: the typed text stays in the draft in another mode.
    if (draft.bodyFrom.isRaw()) {
        addNames(draft.body, &names);
    } else {
        DraftBody bodyFrom = draft.bodyFrom;
        bodyFrom.forEachText([&names](QString &text) { addNames(text, &names); });
    }
    for (const QString &fallback : draft.fallbackTemplates)
        addNames(fallback, &names);
    addNames(draft.writeUrlTemplate, &names);
    return names;
}

QString resolve(const QString &text, const QHash<QString, QString> &values, DynamicVariables *dynamic,
    QStringList *unresolved, QStringList *unknownDynamic)
{
    const QString substituted = substitute(text, values, unresolved);
    return dynamic ? dynamic->expand(substituted, unknownDynamic) : substituted;
}

Result<RequestDraft> apply(const RequestDraft &draft, const QHash<QString, QString> &values,
    const QString &environmentName, DynamicVariables *dynamic)
{
    QStringList unresolved;
    QStringList unknown;
    const auto fill = [&](const QString &text) { return resolve(text, values, dynamic, &unresolved, &unknown); };
    RequestDraft out = draft;
    out.urlTemplate = fill(draft.urlTemplate);
    for (DraftHeader &header : out.headers) {
        if (!header.enabled)
            continue;
        header.name = fill(header.name);
        header.value = fill(header.value);
    }
    if (draft.bodyFrom.isRaw())
        out.body = fill(draft.body);
    else
        out.bodyFrom.forEachText([&fill](QString &text) { text = fill(text); });
    for (QString &fallback : out.fallbackTemplates)
        fallback = fill(fallback);
    out.writeUrlTemplate = fill(draft.writeUrlTemplate);
    out.auth.forEachText([&fill](QString &text) { text = fill(text); });
    if (unresolved.isEmpty() && unknown.isEmpty())
        return out;
    if (unresolved.isEmpty()) {
        QStringList quoted;
        for (const QString &name : unknown)
            quoted.append(QStringLiteral("{{%1}}").arg(name));
        return Result<RequestDraft>::failure(
            Tr::tr("%1 is not a dynamic variable (known: %2).")
                .arg(quoted.join(QStringLiteral(", ")), DynamicVariables::names().join(QStringLiteral(", "))));
    }
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
