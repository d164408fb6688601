#include "core/util/variablesubstitution.h"

#include <QRegularExpression>

namespace RetryLab::Core::VariableSubstitution {

namespace {

constexpr qsizetype maxNameLength = 200;

// Group 1 is the name. Strict allows spaces inside the braces, as Postman and
// Bruno do, and names the variable without them.
const QRegularExpression &reference(Names names)
{
    static const QRegularExpression strict(QStringLiteral("\\{\\{\\s*([A-Za-z_][A-Za-z0-9_.-]*)\\s*\\}\\}"));
    static const QRegularExpression loose(QStringLiteral("\\{\\{([^{}]+)\\}\\}"));
    return names == Names::Strict ? strict : loose;
}

void addOnce(QStringList *names, const QString &name)
{
    if (names && !names->contains(name))
        names->append(name);
}

// `levels`: how many more times a value is substituted in turn; `reportLeft`:
// whether references in a value past the last level count as unresolved.
QString substituteAt(const QString &text, const QHash<QString, QString> &values, QStringList *unresolved, Names names,
    int levels, bool reportLeft)
{
    if (!text.contains(QLatin1String("{{")))
        return text;
    QString out;
    qsizetype last = 0;
    for (auto it = reference(names).globalMatch(text); it.hasNext();) {
        const QRegularExpressionMatch match = it.next();
        out += QStringView(text).sliced(last, match.capturedStart() - last);
        const QString name = match.captured(1);
        const auto value = values.constFind(name);
        if (value == values.cend()) {
            out += match.captured(0);
            addOnce(unresolved, name);
        } else if (levels > 0) {
            out += substituteAt(*value, values, unresolved, names, levels - 1, reportLeft);
        } else {
            out += *value;
            if (reportLeft) {
                for (const QString &left : referencedNames(*value, names))
                    addOnce(unresolved, left);
            }
        }
        last = match.capturedEnd();
    }
    out += QStringView(text).sliced(last);
    return out;
}

} // namespace

bool isValidName(const QString &name)
{
    static const QRegularExpression valid(QStringLiteral("^[A-Za-z_][A-Za-z0-9_.-]*$"));
    return name.size() <= maxNameLength && valid.match(name).hasMatch();
}

QStringList referencedNames(const QString &text, Names names)
{
    QStringList out;
    for (auto it = reference(names).globalMatch(text); it.hasNext();)
        addOnce(&out, it.next().captured(1));
    return out;
}

QString substitute(const QString &text, const QHash<QString, QString> &values, QStringList *unresolved, Rules rules)
{
    const bool nested = rules.nesting == Nesting::OneLevel;
    return substituteAt(text, values, unresolved, rules.names, nested ? 1 : 0, nested);
}

} // namespace RetryLab::Core::VariableSubstitution
