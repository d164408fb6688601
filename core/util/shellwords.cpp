#include "core/util/shellwords.h"

#include "core/util/coretr.h"

#include <QCoreApplication>

#include <algorithm>
#include <cstring>

namespace RetryLab::Core::ShellWords {

namespace {

bool isBlank(QChar c)
{
    return c == QLatin1Char(' ') || c == QLatin1Char('\t') || c == QLatin1Char('\r');
}

bool isOperatorChar(QChar c)
{
    switch (c.unicode()) {
    case '|':
    case '&':
    case ';':
    case '<':
    case '>':
    case '(':
    case ')':
        return true;
    default:
        return false;
    }
}

bool isNameStart(QChar c)
{
    return (c >= QLatin1Char('a') && c <= QLatin1Char('z')) || (c >= QLatin1Char('A') && c <= QLatin1Char('Z'))
        || c == QLatin1Char('_');
}

bool isNameChar(QChar c)
{
    return isNameStart(c) || (c >= QLatin1Char('0') && c <= QLatin1Char('9'));
}

int hexValue(QChar c)
{
    if (c >= QLatin1Char('0') && c <= QLatin1Char('9'))
        return c.unicode() - '0';
    if (c >= QLatin1Char('a') && c <= QLatin1Char('f'))
        return c.unicode() - 'a' + 10;
    if (c >= QLatin1Char('A') && c <= QLatin1Char('F'))
        return c.unicode() - 'A' + 10;
    return -1;
}

// The longest operator starting at `at`: bash's control and redirection operators.
qsizetype operatorLength(const QString &s, qsizetype at)
{
    static const char *const operators[]
        = {"&>>", "<<<", ";;&", "&&", "||", "|&", ";;", ";&", "<<", ">>", ">|", "<>", ">&", "<&", "&>"};
    for (const char *op : operators) {
        const QLatin1StringView text(op);
        if (QStringView(s).mid(at).startsWith(text))
            return text.size();
    }
    return 1;
}

class Splitter
{
public:
    explicit Splitter(const QString &line) : m_s(line) { }

    Result<Split> run()
    {
        while (m_i < m_s.size()) {
            const QChar c = m_s[m_i];
            if (c == QLatin1Char('\n')) {
                endWord();
                m_out.words.append({QByteArray("\n"), m_i, true});
                ++m_i;
            } else if (isBlank(c)) {
                endWord();
                ++m_i;
            } else if (c == QLatin1Char('\\')) {
                backslash();
            } else if (c == QLatin1Char('\'')) {
                if (auto r = singleQuoted(); !r)
                    return r.errorDetail();
            } else if (c == QLatin1Char('"')) {
                if (auto r = doubleQuoted(m_i + 1); !r)
                    return r.errorDetail();
            } else if (c == QLatin1Char('$')) {
                if (auto r = dollar(); !r)
                    return r.errorDetail();
            } else if (c == QLatin1Char('`')) {
                if (auto r = backquoted(); !r)
                    return r.errorDetail();
            } else if (c == QLatin1Char('#') && !m_inWord) {
                while (m_i < m_s.size() && m_s[m_i] != QLatin1Char('\n'))
                    ++m_i;
            } else if (isOperatorChar(c)) {
                operatorWord();
            } else {
                startWord();
                m_word += QString(c).toUtf8();
                ++m_i;
            }
        }
        endWord();
        return m_out;
    }

private:
    void startWord()
    {
        if (!m_inWord) {
            m_inWord = true;
            m_quoted = false;
            m_start = m_i;
            m_word.clear();
        }
    }

    void endWord()
    {
        if (m_inWord)
            m_out.words.append({m_word, m_start, false});
        m_inWord = false;
    }

    // One character as UTF-8 (a surrogate pair as one code point).
    void appendChar(qsizetype at)
    {
        if (m_s[at].isHighSurrogate() && at + 1 < m_s.size() && m_s[at + 1].isLowSurrogate()) {
            m_word += QStringView(m_s).mid(at, 2).toUtf8();
            ++m_i;
        } else {
            m_word += QString(m_s[at]).toUtf8();
        }
    }

    void backslash()
    {
        const qsizetype next = m_i + 1;
        if (next < m_s.size() && m_s[next] == QLatin1Char('\n')) {
            m_i += 2; // a line continuation: both go
            return;
        }
        if (next + 1 < m_s.size() && m_s[next] == QLatin1Char('\r') && m_s[next + 1] == QLatin1Char('\n')) {
            m_i += 3;
            return;
        }
        if (next >= m_s.size()) {
            m_i = next; // a backslash at the very end continues onto nothing
            return;
        }
        startWord();
        m_quoted = true;
        m_i = next;
        appendChar(m_i);
        ++m_i;
    }

    Result<void> singleQuoted()
    {
        startWord();
        m_quoted = true;
        const qsizetype open = m_i;
        const qsizetype close = m_s.indexOf(QLatin1Char('\''), open + 1);
        if (close < 0)
            return unclosed(open, Tr::tr("the single quote opened here is never closed"));
        m_word += QStringView(m_s).mid(open + 1, close - open - 1).toUtf8();
        m_i = close + 1;
        return {};
    }

    // From `from` (just after the opening quote) to the closing one.
    Result<void> doubleQuoted(qsizetype from)
    {
        startWord();
        m_quoted = true;
        const qsizetype open = from - 1;
        m_i = from;
        while (m_i < m_s.size()) {
            const QChar c = m_s[m_i];
            if (c == QLatin1Char('"')) {
                ++m_i;
                return {};
            }
            if (c == QLatin1Char('\\') && m_i + 1 < m_s.size()) {
                const QChar n = m_s[m_i + 1];
                if (n == QLatin1Char('\n')) {
                    m_i += 2;
                } else if (n == QLatin1Char('\r') && m_i + 2 < m_s.size() && m_s[m_i + 2] == QLatin1Char('\n')) {
                    m_i += 3;
                } else if (n == QLatin1Char('$') || n == QLatin1Char('`') || n == QLatin1Char('"')
                    || n == QLatin1Char('\\')) {
                    m_word += QString(n).toUtf8();
                    m_i += 2;
                } else {
                    m_word += '\\';
                    ++m_i;
                }
                continue;
            }
            if (c == QLatin1Char('$') && m_i + 1 < m_s.size()
                && (isNameStart(m_s[m_i + 1]) || m_s[m_i + 1] == QLatin1Char('{')
                    || m_s[m_i + 1] == QLatin1Char('('))) {
                if (auto r = expansion(); !r)
                    return r;
                continue;
            }
            if (c == QLatin1Char('`')) {
                if (auto r = backquoted(); !r)
                    return r;
                continue;
            }
            appendChar(m_i);
            ++m_i;
        }
        return unclosed(open, Tr::tr("the double quote opened here is never closed"));
    }

    Result<void> dollar()
    {
        const qsizetype next = m_i + 1;
        if (next < m_s.size() && m_s[next] == QLatin1Char('\''))
            return ansiC();
        if (next < m_s.size() && m_s[next] == QLatin1Char('"')) {
            startWord(); // $"..." is a translated string: a double-quoted one here
            return doubleQuoted(next + 1);
        }
        startWord();
        if (next < m_s.size()
            && (isNameStart(m_s[next]) || m_s[next] == QLatin1Char('{') || m_s[next] == QLatin1Char('(')))
            return expansion();
        m_word += '$';
        ++m_i;
        return {};
    }

    // $NAME, ${...} or $(...), kept as written and listed.
    Result<void> expansion()
    {
        const qsizetype start = m_i;
        qsizetype end = m_i + 1;
        const QChar kind = m_s[end];
        if (kind == QLatin1Char('{') || kind == QLatin1Char('(')) {
            const QChar open = kind;
            const QChar close = kind == QLatin1Char('{') ? QLatin1Char('}') : QLatin1Char(')');
            int depth = 0;
            for (; end < m_s.size(); ++end) {
                if (m_s[end] == open)
                    ++depth;
                else if (m_s[end] == close && --depth == 0)
                    break;
            }
            if (end >= m_s.size()) {
                return unclosed(start,
                    Tr::tr("the \"%1\" opened here is never closed").arg(QStringView(m_s).mid(start, 2).toString()));
            }
            ++end;
        } else {
            while (end < m_s.size() && isNameChar(m_s[end]))
                ++end;
        }
        const QString text = m_s.mid(start, end - start);
        m_out.expansions.append(text);
        m_word += text.toUtf8();
        m_i = end;
        return {};
    }

    Result<void> backquoted()
    {
        startWord();
        const qsizetype open = m_i;
        qsizetype close = open + 1;
        while (close < m_s.size() && m_s[close] != QLatin1Char('`'))
            close += m_s[close] == QLatin1Char('\\') ? 2 : 1;
        if (close >= m_s.size())
            return unclosed(open, Tr::tr("the backquote opened here is never closed"));
        const QString text = m_s.mid(open, close - open + 1);
        m_out.expansions.append(text);
        m_word += text.toUtf8();
        m_i = close + 1;
        return {};
    }

    // $'...': bash's ANSI-C quoting.
    Result<void> ansiC()
    {
        startWord();
        m_quoted = true;
        const qsizetype open = m_i;
        m_i += 2;
        // A NUL ends the text bash hands over (an argument is a C string); the
        // rest of the quote is read and dropped.
        const qsizetype kept = m_word.size();
        const auto done = [this, kept] {
            const qsizetype nul = m_word.indexOf('\0', kept);
            if (nul >= 0)
                m_word.truncate(nul);
        };
        while (m_i < m_s.size()) {
            const QChar c = m_s[m_i];
            if (c == QLatin1Char('\'')) {
                ++m_i;
                done();
                return {};
            }
            if (c != QLatin1Char('\\') || m_i + 1 >= m_s.size()) {
                appendChar(m_i);
                ++m_i;
                continue;
            }
            const QChar e = m_s[m_i + 1];
            m_i += 2;
            switch (e.unicode()) {
            case 'a':
                m_word += '\a';
                break;
            case 'b':
                m_word += '\b';
                break;
            case 'e':
            case 'E':
                m_word += '\x1b';
                break;
            case 'f':
                m_word += '\f';
                break;
            case 'n':
                m_word += '\n';
                break;
            case 'r':
                m_word += '\r';
                break;
            case 't':
                m_word += '\t';
                break;
            case 'v':
                m_word += '\v';
                break;
            case '\\':
                m_word += '\\';
                break;
            case '\'':
                m_word += '\'';
                break;
            case '"':
                m_word += '"';
                break;
            case '?':
                m_word += '?';
                break;
            case 'c':
                if (m_i < m_s.size()) {
                    m_word += char(m_s[m_i].toLatin1() & 0x1f);
                    ++m_i;
                }
                break;
            case 'x': {
                int value = 0;
                int digits = 0;
                while (digits < 2 && m_i < m_s.size() && hexValue(m_s[m_i]) >= 0) {
                    value = value * 16 + hexValue(m_s[m_i++]);
                    ++digits;
                }
                if (digits == 0)
                    m_word += "\\x";
                else
                    m_word += char(value);
                break;
            }
            case 'u':
            case 'U': {
                const int maxDigits = e == QLatin1Char('u') ? 4 : 8;
                char32_t value = 0;
                int digits = 0;
                while (digits < maxDigits && m_i < m_s.size() && hexValue(m_s[m_i]) >= 0) {
                    value = value * 16 + char32_t(hexValue(m_s[m_i++]));
                    ++digits;
                }
                if (digits == 0)
                    m_word += QByteArray("\\") + char(e.unicode());
                else
                    m_word += QString::fromUcs4(&value, 1).toUtf8();
                break;
            }
            default:
                if (e >= QLatin1Char('0') && e <= QLatin1Char('7')) {
                    int value = e.unicode() - '0';
                    int digits = 1;
                    while (digits < 3 && m_i < m_s.size() && m_s[m_i] >= QLatin1Char('0')
                        && m_s[m_i] <= QLatin1Char('7')) {
                        value = value * 8 + (m_s[m_i++].unicode() - '0');
                        ++digits;
                    }
                    m_word += char(value & 0xff);
                } else {
                    // Not an escape bash knows: the backslash stays.
                    m_word += '\\';
                    m_word += QString(e).toUtf8();
                }
                break;
            }
        }
        return unclosed(open, Tr::tr("the $' quote opened here is never closed"));
    }

    void operatorWord()
    {
        const qsizetype length = operatorLength(m_s, m_i);
        const QString op = m_s.mid(m_i, length);
        const bool redirection = op.startsWith(QLatin1Char('<')) || op.startsWith(QLatin1Char('>'));
        // "2>file": unquoted digits right before a redirection are its descriptor.
        bool allDigits = m_inWord && !m_quoted && !m_word.isEmpty();
        for (char ch : std::as_const(m_word))
            allDigits = allDigits && ch >= '0' && ch <= '9';
        if (redirection && allDigits) {
            m_out.words.append({m_word + op.toUtf8(), m_start, true});
            m_inWord = false;
        } else {
            endWord();
            m_out.words.append({op.toUtf8(), m_i, true});
        }
        m_i += length;
    }

    Error unclosed(qsizetype at, const QString &message) const { return {position(m_s, at), message, at}; }

    const QString &m_s;
    qsizetype m_i = 0;
    Split m_out;
    QByteArray m_word;
    qsizetype m_start = 0;
    bool m_inWord = false;
    bool m_quoted = false;
};

} // namespace

Result<Split> split(const QString &line)
{
    return Splitter(line).run();
}

QString quote(const QString &word)
{
    const auto safe = [](QChar c) {
        if (c.unicode() > 0x7F)
            return false;
        const char ascii = char(c.unicode());
        return (ascii >= 'a' && ascii <= 'z') || (ascii >= 'A' && ascii <= 'Z') || (ascii >= '0' && ascii <= '9')
            || std::strchr("_@%+=:,./-", ascii) != nullptr;
    };
    if (!word.isEmpty() && std::all_of(word.cbegin(), word.cend(), safe))
        return word;
    QString quoted = word;
    quoted.replace(QLatin1Char('\''), QLatin1String("'\\''"));
    return QLatin1Char('\'') + quoted + QLatin1Char('\'');
}

QString position(const QString &line, qsizetype offset)
{
    offset = std::clamp<qsizetype>(offset, 0, line.size());
    const qsizetype lineStart = offset == 0 ? 0 : line.lastIndexOf(QLatin1Char('\n'), offset - 1) + 1;
    const qsizetype column = offset - lineStart + 1;
    if (!line.contains(QLatin1Char('\n')))
        return Tr::tr("column %1").arg(column);
    const qsizetype lineNumber = QStringView(line).left(lineStart).count(QLatin1Char('\n')) + 1;
    return Tr::tr("line %1, column %2").arg(lineNumber).arg(column);
}

bool isCommandSeparator(const Word &word)
{
    if (!word.isOperator)
        return false;
    const QByteArray &t = word.text;
    return t == "\n" || t == ";" || t == "&" || t == "&&" || t == "||" || t == ";;" || t == ";&" || t == ";;&"
        || t == "(" || t == ")";
}

bool isRedirection(const Word &word)
{
    return word.isOperator && (word.text.contains('<') || word.text.contains('>'));
}

} // namespace RetryLab::Core::ShellWords
