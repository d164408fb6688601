#include "core/collections/variables.h"

#include "core/util/coretr.h"

#include <QCoreApplication>
#include <QRegularExpression>

namespace RetryLab::Core::Variables {

namespace {

// {{ name }}: spaces inside the braces are allowed, as Postman and Bruno allow them.
const QRegularExpression &reference()
{
    static const QRegularExpression expression(QStringLiteral("\\{\\{\\s*([A-Za-z_][A-Za-z0-9_.-]*)\\s*\\}\\}"));
    return expression;
}

void addNames(const QString &text, QStringList *names)
{
    for (auto it = reference().globalMatch(text); it.hasNext();) {
        const QString name = it.next().captured(1);
        if (!names->contains(name))
            names->append(name);
    }
}

} // namespace

bool isValidName(const QString &name)
{
    static const QRegularExpression valid(QStringLiteral("^[A-Za-z_][A-Za-z0-9_.-]*$"));
    return name.size() <= 200 && valid.match(name).hasMatch();
}

QStringList referencedNames(const QString &text)
{
    QStringList names;
    addNames(text, &names);
    return names;
}

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

QString substitute(const QString &text, const QHash<QString, QString> &values, QStringList *unresolved)
{
    if (!text.contains(QLatin1String("{{")))
        return text;
    QString out;
    qsizetype last = 0;
    for (auto it = reference().globalMatch(text); it.hasNext();) {
        const QRegularExpressionMatch match = it.next();
        const QString name = match.captured(1);
        out += QStringView(text).mid(last, match.capturedStart() - last);
        const auto value = values.constFind(name);
        if (value != values.cend()) {
            out += *value;
        } else {
            out += match.captured(0);
            if (unresolved && !unresolved->contains(name))
                unresolved->append(name);
        }
        last = match.capturedEnd();
    }
    out += QStringView(text).mid(last);
    return out;
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
