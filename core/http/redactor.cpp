#include "core/http/redactor.h"

#include <QHash>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QLoggingCategory>
#include <QRegularExpression>

#include <array>

namespace {

// Whether `text` has a ':' or '=' or an auth scheme word (any case), in one pass:
// the fault server asks this of every line it logs.
bool mayHoldCredentials(QStringView text)
{
    static const QLatin1StringView schemes[] = {QLatin1StringView("bearer"), QLatin1StringView("basic"),
        QLatin1StringView("token"), QLatin1StringView("digest")};
    for (qsizetype i = 0; i < text.size(); ++i) {
        const char16_t c = text[i].unicode();
        if (c == u':' || c == u'=')
            return true;
        const char16_t lower = c >= u'A' && c <= u'Z' ? char16_t(c + (u'a' - u'A')) : c;
        if (lower != u'b' && lower != u't' && lower != u'd')
            continue;
        // The second letter too before the call, which is what costs: a log line's target and
        // detail are full of t's and d's. Only an ASCII one rules a scheme out here.
        const char16_t next = i + 1 < text.size() ? text[i + 1].unicode() : u'\0';
        const char16_t nextLower = next >= u'A' && next <= u'Z' ? char16_t(next + (u'a' - u'A')) : next;
        for (QLatin1StringView scheme : schemes) {
            if (scheme.front().unicode() != lower || (next < 0x80 && nextLower != scheme[1].unicode()))
                continue;
            if (text.sliced(i).startsWith(scheme, Qt::CaseInsensitive))
                return true;
        }
    }
    return false;
}
Q_LOGGING_CATEGORY(lcRedactor, "retrylab.core.redactor")
} // namespace

namespace RetryLab::Core {

namespace {

constexpr QLatin1StringView maskText("REDACTED");

// RetryLab's own {id} (RequestTemplate::newKeyToken(): four base-36 characters, a dash and a
// counter) under the name the default URL gives it, key=: it names a logical request for the
// fault server and is no secret, and masked it hid which request an attempt belonged to.
bool isOwnRequestKey(QStringView name, const QString &value)
{
    static const QRegularExpression shape(QStringLiteral("^[0-9a-z]{4}-[0-9]{1,9}$"));
    return name.compare(QLatin1String("key"), Qt::CaseInsensitive) == 0 && shape.match(value).hasMatch();
}

constexpr std::array<QLatin1StringView, 21> sensitiveWords{
    QLatin1StringView("key"),
    QLatin1StringView("keys"),
    QLatin1StringView("token"),
    QLatin1StringView("tokens"),
    QLatin1StringView("secret"),
    QLatin1StringView("secrets"),
    QLatin1StringView("password"),
    QLatin1StringView("passwords"),
    QLatin1StringView("passwd"),
    QLatin1StringView("pwd"),
    QLatin1StringView("pass"),
    QLatin1StringView("passphrase"),
    QLatin1StringView("apikey"),
    QLatin1StringView("auth"),
    QLatin1StringView("authorization"),
    QLatin1StringView("credential"),
    QLatin1StringView("credentials"),
    QLatin1StringView("signature"),
    QLatin1StringView("sig"),
    QLatin1StringView("sessionid"),
    QLatin1StringView("jsessionid"),
};

constexpr std::array<QLatin1StringView, 5> sensitiveSuffixes{
    QLatin1StringView("token"),
    QLatin1StringView("secret"),
    QLatin1StringView("password"),
    QLatin1StringView("passwd"),
    QLatin1StringView("apikey"),
};

// Always masked, whatever the name rule says.
constexpr std::array<QLatin1StringView, 5> fixedHeaders{
    QLatin1StringView("authorization"),
    QLatin1StringView("proxy-authorization"),
    QLatin1StringView("cookie"),
    QLatin1StringView("set-cookie"),
    QLatin1StringView("x-api-key"),
};

// Their names contain "key", but their values are not secrets and matter when
// reading a report (an Idempotency-Key is what makes a POST safe to retry).
constexpr std::array<QLatin1StringView, 6> harmlessHeaders{
    QLatin1StringView("idempotency-key"),
    QLatin1StringView("x-idempotency-key"),
    QLatin1StringView("sec-websocket-key"),
    // "true" or a list of names: what the server allows, not a credential.
    QLatin1StringView("access-control-allow-credentials"),
    QLatin1StringView("access-control-allow-headers"),
    QLatin1StringView("access-control-expose-headers"),
};

// Names that are credentials only as a whole (an OAuth "code", a "jwt", a
// SAML "assertion", a "session"): "X-Error-Code" or "session_count" are not.
constexpr std::array<QLatin1StringView, 8> sensitiveWholeNames{
    QLatin1StringView("code"),
    QLatin1StringView("jwt"),
    QLatin1StringView("session"),
    QLatin1StringView("assertion"),
    QLatin1StringView("id_token"),
    QLatin1StringView("client_assertion"),
    QLatin1StringView("saml"),
    QLatin1StringView("samlresponse"),
};

bool isAsciiLetterOrDigit(QChar c)
{
    const char16_t u = c.unicode();
    return (u >= u'a' && u <= u'z') || (u >= u'A' && u <= u'Z') || (u >= u'0' && u <= u'9');
}

bool isSensitiveWord(QString word)
{
    while (!word.isEmpty() && word.back().isDigit())
        word.chop(1);
    if (word.isEmpty())
        return false;
    for (QLatin1StringView w : sensitiveWords) {
        if (word == w)
            return true;
    }
    for (QLatin1StringView s : sensitiveSuffixes) {
        if (word.size() > s.size() && word.endsWith(s))
            return true;
    }
    return false;
}

bool containsName(const auto &list, QByteArrayView name)
{
    const QByteArray lower = name.toByteArray().toLower();
    for (QLatin1StringView entry : list) {
        if (QLatin1StringView(lower) == entry)
            return true;
    }
    return false;
}

QString decodeFormName(QStringView encoded)
{
    QByteArray bytes = encoded.toLatin1();
    bytes.replace('+', ' ');
    return QUrl::fromPercentEncoding(bytes);
}

// Masks the values of sensitive parameters in an encoded `a=1&b=2` string.
QString redactParameters(const QString &encoded, bool *changed)
{
    QStringList parts = encoded.split(QLatin1Char('&'));
    for (QString &part : parts) {
        const qsizetype eq = part.indexOf(QLatin1Char('='));
        if (eq < 0)
            continue;
        const QString value = part.mid(eq + 1);
        if (value == maskText || isOwnRequestKey(decodeFormName(part.left(eq)), value))
            continue;
        if (!Redactor::isSensitiveName(decodeFormName(part.left(eq)))) {
            // A URL inside a value (?to=http%3A%2F%2Fbob%3APW%40host%2F%3Faccess_token%3D...):
            // decoded, redacted as a URL, and encoded again.
            const QString decoded = decodeFormName(value);
            if (decoded.contains(QLatin1String("://"))) {
                const QUrl inner(decoded, QUrl::TolerantMode);
                const QUrl redacted = Redactor().url(inner);
                if (inner.isValid() && redacted != inner) {
                    part = part.left(eq + 1)
                        + QString::fromLatin1(QUrl::toPercentEncoding(redacted.toString(QUrl::FullyEncoded)));
                    *changed = true;
                }
            }
            continue;
        }
        part = part.left(eq + 1) + maskText;
        *changed = true;
    }
    return parts.join(QLatin1Char('&'));
}

// Bytes as text for the text rules: UTF-8 when they are UTF-8, Latin-1 otherwise,
// remembering which so that the result can be turned back into the same kind of bytes.
struct DecodedBytes
{
    QString text;
    bool utf8 = true;
};

DecodedBytes decode(const QByteArray &bytes)
{
    const QString asUtf8 = QString::fromUtf8(bytes);
    if (asUtf8.toUtf8() == bytes)
        return {asUtf8, true};
    return {QString::fromLatin1(bytes), false};
}

QByteArray encode(const QString &text, bool utf8)
{
    return utf8 ? text.toUtf8() : text.toLatin1();
}

QJsonValue redactJson(const QJsonValue &value, bool *changed)
{
    if (value.isObject()) {
        QJsonObject object = value.toObject();
        for (auto it = object.begin(); it != object.end(); ++it) {
            if (Redactor::isSensitiveName(it.key()) && !isOwnRequestKey(it.key(), it.value().toString())) {
                if (it.value() != QJsonValue(maskText)) {
                    it.value() = maskText;
                    *changed = true;
                }
            } else {
                it.value() = redactJson(it.value(), changed);
            }
        }
        return object;
    }
    if (value.isArray()) {
        QJsonArray array = value.toArray();
        for (auto it = array.begin(); it != array.end(); ++it)
            *it = redactJson(*it, changed);
        return array;
    }
    return value;
}

// A credential after an auth scheme: token68 characters, long enough and not a
// plain word, so that prose such as "basic authentication" is left alone.
bool looksLikeCredential(QStringView value)
{
    if (value.size() < 8 || value == maskText)
        return false;
    for (QChar c : value) {
        if (c.isDigit() || QStringView(u"-._~+/=").contains(c))
            return true;
    }
    return false;
}

template<typename Replace>
QString replaceMatches(const QString &input, const QRegularExpression &re, Replace replace)
{
    QString out;
    qsizetype last = 0;
    auto it = re.globalMatch(input);
    while (it.hasNext()) {
        const QRegularExpressionMatch m = it.next();
        out += QStringView(input).mid(last, m.capturedStart() - last);
        out += replace(m);
        last = m.capturedEnd();
    }
    if (last == 0)
        return input;
    out += QStringView(input).mid(last);
    return out;
}

} // namespace

bool Redactor::isSensitiveName(QStringView name)
{
    const QString whole = name.toString().toLower();
    for (QLatin1StringView exact : sensitiveWholeNames) {
        if (whole == exact)
            return true;
    }
    QString word;
    QChar previous;
    for (QChar c : name) {
        if (!isAsciiLetterOrDigit(c)) {
            if (isSensitiveWord(word))
                return true;
            word.clear();
        } else {
            if (c.isUpper() && previous.isLower()) {
                if (isSensitiveWord(word))
                    return true;
                word.clear();
            }
            word += c.toLower();
        }
        previous = c;
    }
    return isSensitiveWord(word);
}

namespace {

bool judgeHeaderName(QByteArrayView name)
{
    if (containsName(fixedHeaders, name))
        return true;
    // "Code" or "Session" alone are parameters' credentials, not headers' ("status code: 503").
    if (containsName(harmlessHeaders, name) || containsName(sensitiveWholeNames, name))
        return false;
    return Redactor::isSensitiveName(QString::fromLatin1(name));
}

} // namespace

bool Redactor::isSensitiveHeader(QByteArrayView name)
{
    // Asked for every header of every request the fault server and the proxies log, and
    // judged through lower-case copies and words: remembered per name instead, for the
    // few dozen names clients send. A client that sends ever new names empties the memo
    // now and then, so it stays small; one per thread, as the servers' threads are.
    constexpr qsizetype maxRemembered = 512;
    thread_local QHash<QByteArray, bool> judged;
    if (const auto found = judged.constFind(QByteArray::fromRawData(name.data(), name.size())); found != judged.cend())
        return *found;
    const bool sensitive = judgeHeaderName(name);
    if (judged.size() >= maxRemembered)
        judged.clear();
    judged.insert(name.toByteArray(), sensitive);
    return sensitive;
}

QByteArray Redactor::headerValue(QByteArrayView name, const QByteArray &value) const
{
    if (!m_enabled)
        return value;
    if (!isSensitiveHeader(name)) {
        const DecodedBytes decoded = decode(value);
        const QString redacted = text(decoded.text);
        return redacted == decoded.text ? value : encode(redacted, decoded.utf8);
    }

    const QByteArray lower = name.toByteArray().toLower();
    if (lower == "authorization" || lower == "proxy-authorization") {
        // Keep the scheme: "Bearer REDACTED" still says how the client authenticated.
        const QByteArray trimmed = value.trimmed();
        const qsizetype space = trimmed.indexOf(' ');
        if (space > 0)
            return trimmed.left(space) + ' ' + mask();
        return mask();
    }
    if (lower == "cookie") {
        QList<QByteArray> pairs = value.split(';');
        for (QByteArray &pair : pairs) {
            const qsizetype eq = pair.indexOf('=');
            pair = eq < 0 ? QByteArray(pair.startsWith(' ') ? " " : "") + mask() : pair.left(eq + 1) + mask();
        }
        return pairs.join(';');
    }
    if (lower == "set-cookie") {
        // name=value; Path=/; HttpOnly: only the value is secret.
        const qsizetype semicolon = value.indexOf(';');
        const QByteArray first = semicolon < 0 ? value : value.left(semicolon);
        const QByteArray attributes = semicolon < 0 ? QByteArray() : value.mid(semicolon);
        const qsizetype eq = first.indexOf('=');
        return (eq < 0 ? mask() : first.left(eq + 1) + mask()) + attributes;
    }
    return mask();
}

HeaderList Redactor::headers(const HeaderList &headers) const
{
    if (!m_enabled)
        return headers;
    HeaderList out;
    out.reserve(headers.size());
    for (const auto &[name, value] : headers)
        out.append({name, headerValue(name, value)});
    return out;
}

QUrl Redactor::url(const QUrl &url) const
{
    if (!m_enabled || !url.isValid())
        return url;
    QUrl out = url;
    if (!out.userName().isEmpty())
        out.setUserName(maskText);
    if (!out.password().isEmpty())
        out.setPassword(maskText);
    bool changed = false;
    if (out.hasQuery()) {
        const QString query = redactParameters(out.query(QUrl::FullyEncoded), &changed);
        out.setQuery(query, QUrl::StrictMode);
    }
    if (out.hasFragment() && out.fragment(QUrl::FullyEncoded).contains(QLatin1Char('='))) {
        const QString fragment = redactParameters(out.fragment(QUrl::FullyEncoded), &changed);
        out.setFragment(fragment, QUrl::StrictMode);
    }
    return out;
}

QString Redactor::urlString(const QUrl &url) const
{
    return this->url(url).toString(QUrl::FullyEncoded);
}

namespace {

/// Redactor::text() past its quick checks: the expressions.
QString redactText(const Redactor &redactor, const QString &input)
{
    static const QRegularExpression urlPattern(QStringLiteral(R"re([A-Za-z][A-Za-z0-9+.\-]*://[^\s"'<>\\]+)re"));
    static const QRegularExpression headerLine(
        QStringLiteral(
            R"re(\b(authorization|proxy-authorization|cookie|set-cookie|x-api-key)([ \t]*[:=][ \t]*)([^\r\n]*))re"),
        QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression schemeCredential(
        QStringLiteral(R"re(\b(bearer|basic|token|digest)([ \t]+)([A-Za-z0-9\-._~+/]+=*))re"),
        QRegularExpression::CaseInsensitiveOption);
    static const QRegularExpression jsonPair(
        QStringLiteral(R"re("([^"\\\r\n]{1,100})"(\s*:\s*)"((?:[^"\\]|\\.)*)")re"));
    static const QRegularExpression assignment(
        QStringLiteral(R"re((?<![A-Za-z0-9_.\-\[\]%])([A-Za-z0-9_.\-\[\]%]{1,100})=([^\s&;,"'<>]+))re"));
    static const QRegularExpression colonPair(
        // Not after "/" or ".": "/etc/passwd: Permission denied" names a file, not a password.
        QStringLiteral(R"re((?<![A-Za-z0-9_\-/.])([A-Za-z][A-Za-z0-9_\-]{0,99})([ \t]*:[ \t]*)([^\s,;"'<>]+))re"));

    QString out = replaceMatches(input, urlPattern, [&redactor](const QRegularExpressionMatch &m) -> QString {
        const QString original = m.captured(0);
        const QUrl parsed(original, QUrl::TolerantMode);
        const QUrl redacted = redactor.url(parsed);
        return redacted == parsed ? original : redacted.toString(QUrl::FullyEncoded);
    });
    out = replaceMatches(out, headerLine, [&redactor](const QRegularExpressionMatch &m) -> QString {
        const QByteArray value = redactor.headerValue(m.captured(1).toLatin1(), m.captured(3).toUtf8());
        return m.captured(1) + m.captured(2) + QString::fromUtf8(value);
    });
    out = replaceMatches(out, schemeCredential, [](const QRegularExpressionMatch &m) -> QString {
        if (!looksLikeCredential(m.capturedView(3)))
            return m.captured(0);
        return m.captured(1) + m.captured(2) + maskText;
    });
    out = replaceMatches(out, jsonPair, [](const QRegularExpressionMatch &m) -> QString {
        if (!Redactor::isSensitiveName(m.capturedView(1)) || isOwnRequestKey(m.capturedView(1), m.captured(3)))
            return m.captured(0);
        return QLatin1Char('"') + m.captured(1) + QLatin1Char('"') + m.captured(2) + QLatin1Char('"') + maskText
            + QLatin1Char('"');
    });
    out = replaceMatches(out, assignment, [](const QRegularExpressionMatch &m) -> QString {
        if (!Redactor::isSensitiveName(decodeFormName(m.capturedView(1)))
            || isOwnRequestKey(decodeFormName(m.capturedView(1)), m.captured(2)))
            return m.captured(0);
        return m.captured(1) + QLatin1Char('=') + maskText;
    });
    out = replaceMatches(out, colonPair, [](const QRegularExpressionMatch &m) -> QString {
        // "scheme://" and "host:port" look like pairs too; only names that are sensitive headers count.
        // The fixed headers were handled as whole lines above.
        const QByteArray name = m.capturedView(1).toLatin1();
        if (!Redactor::isSensitiveHeader(name) || containsName(fixedHeaders, name)
            || m.capturedView(3).startsWith(QLatin1String("//")) || m.capturedView(3) == maskText)
            return m.captured(0);
        return m.captured(1) + m.captured(2) + maskText;
    });
    return out;
}

} // namespace

QString Redactor::text(const QString &input) const
{
    if (!m_enabled || input.isEmpty())
        return input;
    // A server logs its fixed details as one shared string again and again ("the upstream
    // answered 200 OK"): the last long text found clean is known by its data, which cannot
    // change while it is shared with the copy kept here (isSharedWith() is false for a text
    // without data of its own). Very long text is not kept, as below.
    constexpr qsizetype minRememberedCleanChars = 16;
    constexpr qsizetype maxRememberedChars = 2048;
    thread_local QString lastClean;
    if (input.isSharedWith(lastClean) && input.constData() == lastClean.constData() && input.size() == lastClean.size())
        return input;
    // Every rule below needs a ':' or '=' or an auth scheme word; most text has none
    // of them, and a large header value should not go through six expressions for nothing.
    if (!mayHoldCredentials(input)) {
        if (input.size() >= minRememberedCleanChars && input.size() <= maxRememberedChars)
            lastClean = input;
        return input;
    }
    // A server's log and the observer redact the same targets over and over (a client
    // polling one URL, every request of a forward proxy naming http://host:port/...):
    // the last few redactions of the thread are kept, as six expressions and a URL
    // parse cost some 25,000 instructions. Long text is not kept.
    struct Remembered
    {
        QString input;
        QString output;
    };
    thread_local std::array<Remembered, 4> remembered;
    thread_local size_t nextSlot = 0;
    for (const Remembered &r : remembered) {
        if (!r.input.isNull() && r.input == input)
            return r.output;
    }
    const QString out = redactText(*this, input);
    if (input.size() <= maxRememberedChars) {
        remembered[nextSlot] = {input, out};
        nextSlot = (nextSlot + 1) % remembered.size();
    }
    return out;
}

QByteArray Redactor::body(const QByteArray &body, const HeaderList &headers) const
{
    if (!m_enabled || body.isEmpty())
        return body;
    const QByteArray contentType = Core::headerValue(headers, "Content-Type").value_or(QByteArray()).toLower();
    const QByteArray trimmed = body.trimmed();

    if (contentType.contains("application/x-www-form-urlencoded")) {
        bool changed = false;
        const QString redacted = redactParameters(QString::fromLatin1(body), &changed);
        return changed ? redacted.toLatin1() : body;
    }
    const bool looksJson = contentType.contains("json")
        || (contentType.isEmpty() && (trimmed.startsWith('{') || trimmed.startsWith('[')));
    if (looksJson) {
        QJsonParseError error;
        const QJsonDocument document = QJsonDocument::fromJson(body, &error);
        if (error.error == QJsonParseError::NoError) {
            bool changed = false;
            const QJsonValue root = redactJson(
                document.isObject() ? QJsonValue(document.object()) : QJsonValue(document.array()), &changed);
            if (!changed)
                return body;
            return root.isObject() ? QJsonDocument(root.toObject()).toJson(QJsonDocument::Compact)
                                   : QJsonDocument(root.toArray()).toJson(QJsonDocument::Compact);
        }
        qCDebug(lcRedactor) << "body announced as JSON does not parse; redacting it as text";
    }

    const DecodedBytes decoded = decode(body);
    if (!decoded.utf8)
        return body; // binary: nothing the text rules could find
    const QString redacted = text(decoded.text);
    return redacted == decoded.text ? body : redacted.toUtf8();
}

QString Redactor::logLine(const QString &line)
{
    return Redactor(true).text(line);
}

} // namespace RetryLab::Core
