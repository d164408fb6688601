#include "core/auth/authchallenge.h"

#include "core/http/httpheaders.h"
#include "core/util/coretr.h"

namespace RetryLab::Core {

namespace {

bool challengeIsSpace(char c)
{
    return c == ' ' || c == '\t';
}

// token68 = 1*( ALPHA / DIGIT / "-" / "." / "_" / "~" / "+" / "/" ) *"="
bool challengeIsToken68Char(char c)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' || c == '.'
        || c == '_' || c == '~' || c == '+' || c == '/';
}

// A reader over one field value; every error names the byte it stopped at.
class ChallengeReader
{
public:
    explicit ChallengeReader(QByteArrayView text) : m_text(text) { }

    bool atEnd() const { return m_at >= m_text.size(); }
    char peek(qsizetype ahead = 0) const { return m_at + ahead < m_text.size() ? m_text[m_at + ahead] : '\0'; }
    qsizetype position() const { return m_at; }
    void setPosition(qsizetype at) { m_at = at; }

    void skipSpace()
    {
        while (!atEnd() && challengeIsSpace(peek()))
            ++m_at;
    }
    // Spaces and the commas of empty list elements (RFC 9110 5.6.1 lets a recipient ignore them).
    void skipSpaceAndCommas()
    {
        while (!atEnd() && (challengeIsSpace(peek()) || peek() == ','))
            ++m_at;
    }
    QByteArray token()
    {
        const qsizetype start = m_at;
        while (!atEnd() && isTokenChar(peek()))
            ++m_at;
        return m_text.sliced(start, m_at - start).toByteArray();
    }
    std::optional<QByteArray> quotedString(QString *error)
    {
        const qsizetype start = m_at;
        ++m_at; // the opening quote
        QByteArray value;
        while (!atEnd()) {
            const char c = peek();
            ++m_at;
            if (c == '"')
                return value;
            if (c == '\\') {
                if (atEnd())
                    break;
                value += peek();
                ++m_at;
                continue;
            }
            value += c;
        }
        *error = Tr::tr("the quoted string that starts at byte %1 is not closed").arg(start + 1);
        return std::nullopt;
    }

private:
    QByteArrayView m_text;
    qsizetype m_at = 0;
};

Result<QList<AuthChallenge>> challengeParseOne(QByteArrayView field)
{
    using R = Result<QList<AuthChallenge>>;
    QList<AuthChallenge> challenges;
    ChallengeReader reader(field);
    QString error;
    reader.skipSpaceAndCommas();
    while (!reader.atEnd()) {
        AuthChallenge challenge;
        challenge.scheme = reader.token();
        if (challenge.scheme.isEmpty())
            return R::failure(Tr::tr("byte %1 ('%2') cannot start an authentication scheme")
                                  .arg(reader.position() + 1)
                                  .arg(QLatin1Char(reader.peek())));
        reader.skipSpace();
        if (reader.atEnd() || reader.peek() == ',') {
            challenges.append(challenge);
            reader.skipSpaceAndCommas();
            continue;
        }
        // A token68 stands alone: characters of its set, '=' padding, then the
        // end or a comma and the next challenge. "realm=x" and "realm=, nonce=1"
        // are parameters: a value or another parameter follows.
        const qsizetype afterScheme = reader.position();
        qsizetype length = 0;
        while (challengeIsToken68Char(reader.peek(length)))
            ++length;
        const qsizetype characters = length;
        while (reader.peek(length) == '=')
            ++length;
        qsizetype end = length;
        while (challengeIsSpace(reader.peek(end)))
            ++end;
        bool token68 = characters > 0 && (reader.peek(end) == '\0' || reader.peek(end) == ',');
        if (token68 && reader.peek(end) == ',' && length > characters) {
            qsizetype next = end;
            while (challengeIsSpace(reader.peek(next)) || reader.peek(next) == ',')
                ++next;
            while (isTokenChar(reader.peek(next)))
                ++next;
            while (challengeIsSpace(reader.peek(next)))
                ++next;
            token68 = reader.peek(next) != '=';
        }
        if (token68) {
            challenge.token68 = field.sliced(afterScheme, length).toByteArray();
            reader.setPosition(afterScheme + end);
            challenges.append(challenge);
            reader.skipSpaceAndCommas();
            continue;
        }
        // auth-params, until a token that is not followed by '=' starts the next challenge.
        while (!reader.atEnd()) {
            const qsizetype paramStart = reader.position();
            const QByteArray name = reader.token();
            if (name.isEmpty())
                return R::failure(Tr::tr("byte %1 ('%2') cannot start a parameter of the %3 challenge")
                                      .arg(reader.position() + 1)
                                      .arg(QLatin1Char(reader.peek()))
                                      .arg(QString::fromLatin1(challenge.scheme)));
            reader.skipSpace();
            if (reader.peek() != '=') {
                // The scheme of the next challenge.
                reader.setPosition(paramStart);
                break;
            }
            reader.setPosition(reader.position() + 1);
            reader.skipSpace();
            QByteArray value;
            if (reader.peek() == '"') {
                const std::optional<QByteArray> quoted = reader.quotedString(&error);
                if (!quoted)
                    return R::failure(error);
                value = *quoted;
            } else {
                value = reader.token();
                if (value.isEmpty())
                    return R::failure(Tr::tr("the parameter %1 of the %2 challenge has no value (byte %3)")
                                          .arg(QString::fromLatin1(name), QString::fromLatin1(challenge.scheme))
                                          .arg(reader.position() + 1));
            }
            challenge.params.append({name.toLower(), value});
            reader.skipSpace();
            if (reader.atEnd())
                break;
            if (reader.peek() != ',')
                return R::failure(Tr::tr("byte %1 ('%2') follows the parameter %3 where a comma belongs")
                                      .arg(reader.position() + 1)
                                      .arg(QLatin1Char(reader.peek()))
                                      .arg(QString::fromLatin1(name)));
            reader.skipSpaceAndCommas();
        }
        challenges.append(challenge);
        reader.skipSpaceAndCommas();
    }
    return challenges;
}

} // namespace

bool AuthChallenge::isScheme(QByteArrayView name) const
{
    return scheme.compare(name, Qt::CaseInsensitive) == 0;
}

std::optional<QByteArray> AuthChallenge::param(QByteArrayView name) const
{
    for (const auto &[key, value] : params) {
        if (key == name)
            return value;
    }
    return std::nullopt;
}

Result<QList<AuthChallenge>> AuthChallenge::parse(QByteArrayView fieldValue)
{
    return challengeParseOne(fieldValue);
}

Result<QList<AuthChallenge>> AuthChallenge::parse(const QList<QByteArray> &fieldValues)
{
    // Qt may hand repeated fields over joined by line feeds: each line is a field.
    QList<QByteArray> fields;
    for (const QByteArray &value : fieldValues)
        fields += value.split('\n');
    QList<AuthChallenge> all;
    for (qsizetype i = 0; i < fields.size(); ++i) {
        const Result<QList<AuthChallenge>> one = challengeParseOne(fields[i].trimmed());
        if (!one) {
            const QString message = fields.size() == 1
                ? Tr::tr("the authentication challenge is malformed: %1").arg(one.error())
                : Tr::tr("authentication challenge %1 of %2 is malformed: %3")
                      .arg(i + 1)
                      .arg(fields.size())
                      .arg(one.error());
            return Result<QList<AuthChallenge>>::failure(message);
        }
        all += *one;
    }
    return all;
}

QByteArray AuthChallenge::quoted(QByteArrayView value)
{
    QByteArray result;
    result.reserve(value.size() + 2);
    result += '"';
    for (const char c : value) {
        if (c == '"' || c == '\\')
            result += '\\';
        result += c;
    }
    result += '"';
    return result;
}

} // namespace RetryLab::Core
