#include "core/util/terminaltext.h"

#include <QCoreApplication>

#include <algorithm>

namespace RetryLab::Core::TerminalText {

namespace {

bool needsEscape(char16_t c)
{
    if (c < 0x20 || c == 0x7f || (c >= 0x80 && c <= 0x9f))
        return true;
    // Bidirectional embeddings, overrides and isolates, and the marks that
    // reorder text on screen (the "trojan source" characters), plus U+2028/9.
    return (c >= 0x202a && c <= 0x202e) || (c >= 0x2066 && c <= 0x2069) || c == 0x200e || c == 0x200f || c == 0x061c
        || c == 0x2028 || c == 0x2029;
}

QString escape(QStringView text, bool keepLines)
{
    qsizetype first = 0;
    while (first < text.size()) {
        const char16_t c = text[first].unicode();
        if (needsEscape(c) && !(keepLines && c == u'\n'))
            break;
        ++first;
    }
    if (first == text.size())
        return text.toString();

    QString out;
    out.reserve(text.size() + 16);
    out.append(text.first(first));
    for (qsizetype i = first; i < text.size(); ++i) {
        const char16_t c = text[i].unicode();
        if (!needsEscape(c) || (keepLines && c == u'\n')) {
            out.append(text[i]);
            continue;
        }
        switch (c) {
        case u'\n':
            out.append(QLatin1String("\\n"));
            break;
        case u'\r':
            out.append(QLatin1String("\\r"));
            break;
        case u'\t':
            out.append(QLatin1String("\\t"));
            break;
        case 0x1b:
            out.append(QLatin1String("\\e"));
            break;
        default:
            if (c < 0x100)
                out.append(QLatin1String("\\x")).append(QString::number(c, 16).rightJustified(2, u'0'));
            else
                out.append(QLatin1String("\\u")).append(QString::number(c, 16).rightJustified(4, u'0'));
        }
    }
    return out;
}

} // namespace

QString escaped(QStringView text)
{
    return escape(text, false);
}

QString escapedKeepingLines(QStringView text)
{
    return escape(text, true);
}

QString elided(QStringView text, qsizetype maxChars)
{
    if (text.size() <= maxChars)
        return text.toString();
    qsizetype cut = std::max<qsizetype>(0, maxChars);
    if (cut > 0 && text[cut - 1].isHighSurrogate()) // never split a character
        --cut;
    return text.first(cut).toString() + QChar(0x2026)
        + QCoreApplication::translate("RetryLab::Core", " (%1 characters in all)").arg(text.size());
}

QString elided(const QString &text, qsizetype maxChars)
{
    return text.size() <= maxChars ? text : elided(QStringView(text), maxChars);
}

} // namespace RetryLab::Core::TerminalText
