#include "core/util/englishplurals.h"

#include <QCoreApplication>

namespace RetryLab::Core {

QString EnglishPlurals::resolve(const QString &text, int n)
{
    QString out = text;
    out.replace(QLatin1String("(s)"), n == 1 ? QString() : QStringLiteral("s"));
    return out;
}

QString EnglishPlurals::translate(const char *, const char *sourceText, const char *, int n) const
{
    // A null result hands the text on: Qt then uses the source text as it is.
    if (n < 0 || !sourceText)
        return {};
    const QString text = QString::fromUtf8(sourceText);
    if (!text.contains(QLatin1String("(s)")))
        return {};
    return resolve(text, n);
}

void EnglishPlurals::install()
{
    auto *app = QCoreApplication::instance();
    if (!app || app->findChild<EnglishPlurals *>(QString(), Qt::FindDirectChildrenOnly))
        return;
    QCoreApplication::installTranslator(new EnglishPlurals(app));
}

} // namespace RetryLab::Core
