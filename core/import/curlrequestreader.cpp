#include "core/import/curlrequestreader.h"

#include "core/http/httpheaders.h"
#include "core/import/curloptiontable.h"
#include "core/record/hostpin.h"
#include "core/util/boundedfile.h"
#include "core/util/coretr.h"
#include "core/util/shellwords.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QLocale>
#include <QRegularExpression>
#include <QUrl>

#include <algorithm>
#include <cmath>
#include <optional>
#include <utility>

// One job: curl's options, once the words are split, into one request. The file is the
// table of supported and ignored options and the Reader that carries them out; options
// act on each other (-G moves -d into the query, --head with data is refused), so the
// table and its reader stay in one place, as curlrequestreader.h promises.

namespace RetryLab::Core::CurlRequestReader {

namespace {

using CurlArguments::Item;

// What the reader does with an option. Everything not here is either listed
// as ignored (kIgnored) or unknown.
enum class Opt {
    Request,
    Header,
    Data,
    DataBinary,
    DataRaw,
    DataUrlencode,
    Json,
    UploadFile,
    Get,
    Head,
    Url,
    User,
    OAuth2Bearer,
    Digest,
    AwsSigV4,
    Cookie,
    UserAgent,
    Referer,
    Insecure,
    CaCert,
    Cert,
    Key,
    Pass,
    TlsAny,
    Tls12,
    Tls13,
    Proxy,
    Socks5,
    ProxyUser,
    Http11,
    Http2,
    Http2PriorKnowledge,
    Retry,
    RetryDelay,
    RetryMaxTime,
    RetryAllErrors,
    RetryConnRefused,
    MaxTime,
    ConnectTimeout,
    Resolve,
    Ipv4,
    Ipv6,
    NoKeepalive,
    Form,
    FormString,
    Location,
    LocationTrusted,
    Globoff,
    Basic,
    Ignored,
};

struct Supported
{
    const char *longName;
    Opt opt;
    const char *valueName; ///< for --help; null for a switch
    const char *help; ///< null: not shown in --help
};

#define RL_TR(text) QT_TRANSLATE_NOOP("RetryLab::Core", text)

// The one table of the options the import carries out (and the help text
// `retrylab request --help` shows for them).
constexpr Supported supported[] = {
    {"url", Opt::Url, "URL", RL_TR("The URL (also accepted as the positional argument).")},
    {"request", Opt::Request, "METHOD", RL_TR("The method (default GET, POST with data, HEAD with -I).")},
    {"header", Opt::Header, "\"NAME: VALUE\"",
        RL_TR("A request header; \"NAME:\" removes one, \"NAME;\" sends it empty.")},
    {"data", Opt::Data, "DATA",
        RL_TR("Body data; several are joined with &. @FILE reads a file (without line breaks), @- standard input.")},
    {"data-ascii", Opt::Data, "DATA", nullptr},
    {"data-binary", Opt::DataBinary, "DATA", RL_TR("Body data; @FILE is read byte for byte.")},
    {"data-raw", Opt::DataRaw, "DATA", RL_TR("Body data; @ has no special meaning.")},
    {"data-urlencode", Opt::DataUrlencode, "DATA",
        RL_TR("Body data, URL-encoded: CONTENT, NAME=CONTENT, @FILE, NAME@FILE.")},
    {"json", Opt::Json, "JSON",
        RL_TR("JSON body (POST, Content-Type and Accept: application/json); several are joined as they are.")},
    {"upload-file", Opt::UploadFile, "FILE", RL_TR("PUT the file's bytes.")},
    {"get", Opt::Get, nullptr, RL_TR("Send the data in the URL's query with GET.")},
    {"head", Opt::Head, nullptr, RL_TR("Send HEAD.")},
    {"user", Opt::User, "USER:PASSWORD", RL_TR("Basic authentication.")},
    {"oauth2-bearer", Opt::OAuth2Bearer, "TOKEN", RL_TR("Authorization: Bearer TOKEN.")},
    {"digest", Opt::Digest, nullptr, RL_TR("Digest authentication with -u (MD5 or SHA-256, as the server asks).")},
    {"aws-sigv4", Opt::AwsSigV4, "aws:amz:REGION:SERVICE",
        RL_TR("AWS Signature Version 4 with -u ACCESS_KEY:SECRET_KEY (and an X-Amz-Security-Token header).")},
    {"cookie", Opt::Cookie, "NAME=VALUE", RL_TR("Cookies to send (not a cookie file).")},
    {"user-agent", Opt::UserAgent, "NAME", RL_TR("The User-Agent header.")},
    {"referer", Opt::Referer, "URL", RL_TR("The Referer header.")},
    {"insecure", Opt::Insecure, nullptr, RL_TR("Ignore certificate errors for the URL's host.")},
    {"cacert", Opt::CaCert, "FILE", RL_TR("CA certificates (PEM) to trust besides the system's.")},
    {"cert", Opt::Cert, "FILE[:PASSPHRASE]", RL_TR("Client certificate (PEM, or PKCS#12 with its passphrase).")},
    {"key", Opt::Key, "FILE", RL_TR("The client certificate's private key (PEM).")},
    {"pass", Opt::Pass, "PASSPHRASE", RL_TR("Passphrase of the key or the PKCS#12 file.")},
    {"tlsv1", Opt::TlsAny, nullptr, nullptr},
    {"tlsv1.0", Opt::TlsAny, nullptr, nullptr},
    {"tlsv1.1", Opt::TlsAny, nullptr, nullptr},
    {"tlsv1.2", Opt::Tls12, nullptr, RL_TR("TLS 1.2 or newer.")},
    {"tlsv1.3", Opt::Tls13, nullptr, RL_TR("TLS 1.3 only.")},
    {"proxy", Opt::Proxy, "[SCHEME://][USER:PASSWORD@]HOST[:PORT]",
        RL_TR("Proxy: http:// (the default), socks5:// or socks5h://; port 1080 unless given.")},
    {"socks5", Opt::Socks5, "HOST[:PORT]", nullptr},
    {"socks5-hostname", Opt::Socks5, "HOST[:PORT]", nullptr},
    {"proxy-user", Opt::ProxyUser, "USER:PASSWORD", RL_TR("The proxy's user and password.")},
    {"proxy-basic", Opt::Basic, nullptr, nullptr},
    {"http1.1", Opt::Http11, nullptr, RL_TR("HTTP/1.1 only.")},
    {"http2", Opt::Http2, nullptr, RL_TR("HTTP/2 where the server offers it over TLS.")},
    {"http2-prior-knowledge", Opt::Http2PriorKnowledge, nullptr, RL_TR("HTTP/2 at once, also without TLS.")},
    {"retry", Opt::Retry, "N", RL_TR("Retry up to N times (the policy's attempt limit becomes N + 1).")},
    {"retry-delay", Opt::RetryDelay, "SECONDS", RL_TR("Wait this long before every retry (a constant backoff).")},
    {"retry-max-time", Opt::RetryMaxTime, "SECONDS", RL_TR("Start no retry after this long (the policy's deadline).")},
    {"retry-all-errors", Opt::RetryAllErrors, nullptr, RL_TR("Retry every network fault.")},
    {"retry-connrefused", Opt::RetryConnRefused, nullptr, RL_TR("Retry a refused connection.")},
    {"max-time", Opt::MaxTime, "SECONDS", RL_TR("Time limit of each attempt.")},
    {"connect-timeout", Opt::ConnectTimeout, "SECONDS",
        RL_TR("Time allowed to connect (lookup, TCP and TLS), apart from --max-time; a connection not ready by "
              "then fails the attempt as a connection failure.")},
    {"resolve", Opt::Resolve, "HOST:PORT:ADDRESS",
        RL_TR("Connect to ADDRESS for HOST and PORT; the URL, Host header and certificate check keep HOST. "
              "May be repeated.")},
    {"ipv4", Opt::Ipv4, nullptr, RL_TR("Connect over IPv4 only.")},
    {"ipv6", Opt::Ipv6, nullptr, RL_TR("Connect over IPv6 only.")},
    {"no-keepalive", Opt::NoKeepalive, nullptr,
        RL_TR("Send Connection: close and open a new connection for every attempt.")},
    {"form", Opt::Form, "NAME=VALUE",
        RL_TR("A multipart/form-data part: NAME=VALUE, NAME=@FILE[;type=TYPE][;filename=NAME] (sent from the "
              "file as it is read), NAME=<FILE (the file's text as the value).")},
    {"form-string", Opt::FormString, "NAME=VALUE", RL_TR("A multipart/form-data field, its value taken as it is.")},
    {"location", Opt::Location, nullptr, RL_TR("Follow redirects (RetryLab always does, and lists each).")},
    {"location-trusted", Opt::LocationTrusted, nullptr, nullptr},
    {"globoff", Opt::Globoff, nullptr, nullptr},
    {"basic", Opt::Basic, nullptr, nullptr},
};

#undef RL_TR

// Understood; they change what curl prints or stores, not what it sends.
constexpr const char *ignoredOptions[] = {"compressed", "silent", "show-error", "verbose", "include", "output",
    "remote-name", "remote-name-all", "remote-header-name", "fail", "fail-with-body", "fail-early", "write-out",
    "progress-bar", "no-progress-meter", "no-buffer", "dump-header", "trace", "trace-ascii", "trace-time", "stderr",
    "styled-output", "disable", "raw", "tr-encoding", "create-dirs", "create-file-mode", "output-dir", "remote-time",
    "xattr", "cookie-jar", "keepalive-time", "tcp-nodelay", "tcp-fastopen", "limit-rate", "speed-limit", "speed-time",
    "max-filesize", "no-clobber", "remove-on-error", "max-redirs", "cert-type", "key-type", "post301", "post302",
    "post303", "no-sessionid", "no-alpn", "no-npn", "path-as-is", "http1.0", "noproxy", "libcurl", "parallel",
    "parallel-max", "parallel-immediate", "rate", "etag-save", "alt-svc", "hsts", "metalink", "out-null",
    "skip-existing", "junk-session-cookies"};

const Supported *findSupported(const char *longName)
{
    for (const Supported &s : supported) {
        if (qstrcmp(s.longName, longName) == 0)
            return &s;
    }
    return nullptr;
}

bool isIgnored(const char *longName)
{
    return std::any_of(std::cbegin(ignoredOptions), std::cend(ignoredOptions),
        [longName](const char *name) { return qstrcmp(name, longName) == 0; });
}

QString text(const QByteArray &bytes)
{
    return QString::fromUtf8(bytes);
}

QString shownOption(const Item &item)
{
    return item.value.isNull() || (item.entry && !item.entry->takesValue())
        ? item.written
        : item.written + QLatin1Char(' ') + ShellWords::quote(text(item.value));
}

// A non-negative decimal number ("2.92"), as curl reads seconds.
std::optional<double> decimal(const QByteArray &value)
{
    static const QRegularExpression number(QStringLiteral(R"(^(\d+(\.\d*)?|\.\d+)$)"));
    if (!number.match(text(value)).hasMatch())
        return std::nullopt;
    const double d = value.toDouble();
    return std::isfinite(d) ? std::optional<double>(d) : std::nullopt;
}

class Reader
{
public:
    explicit Reader(const CurlCommandLine::Options &options) : m_options(options) { }

    Result<ImportedRequest> run(const QList<Argument> &arguments)
    {
        const auto items = CurlArguments::walk(arguments, m_options.extraOptions);
        if (!items)
            return items.errorDetail();
        for (const Item &item : *items) {
            Result<void> handled;
            switch (item.kind) {
            case Item::Kind::Extra:
                break;
            case Item::Kind::Positional:
                handled = setUrl(item);
                break;
            case Item::Kind::Curl:
                handled = option(item);
                break;
            }
            if (!handled)
                return handled.errorDetail();
        }
        if (auto finished = finish(); !finished)
            return finished.errorDetail();
        return m_out;
    }

private:
    Error error(const Item &item, const QString &message) const { return item.where.error(message); }

    Result<void> setUrl(const Item &item)
    {
        if (m_hasUrl) {
            return error(item,
                Tr::tr("a second URL, \"%1\" (the first is \"%2\"); RetryLab imports one request per command")
                    .arg(text(item.value), m_urlText));
        }
        m_urlText = text(item.value);
        m_urlWhere = item.where;
        m_hasUrl = true;
        return {};
    }

    Result<void> option(const Item &item)
    {
        if (!item.entry) {
            m_out.unknown.append(item.written);
            return {};
        }
        const Supported *s = findSupported(item.entry->longName);
        if (!s) {
            if (isIgnored(item.entry->longName))
                m_out.ignored.append(shownOption(item));
            else
                m_out.unknown.append(shownOption(item));
            noteAboutUnknown(item);
            return {};
        }
        const QByteArray &v = item.value;
        TransportOptions &t = m_out.spec.transport;
        switch (s->opt) {
        case Opt::Url:
            return setUrl(item);
        case Opt::Request:
            return setMethod(item);
        case Opt::Header:
            return addHeader(item);
        case Opt::Data:
        case Opt::DataBinary:
        case Opt::DataRaw:
        case Opt::Json:
            return addData(item, s->opt);
        case Opt::DataUrlencode:
            return addUrlencoded(item);
        case Opt::UploadFile:
            return setUpload(item);
        case Opt::Get:
            m_get = !item.negated;
            m_getWhere = item.where;
            return {};
        case Opt::Head:
            m_head = !item.negated;
            m_headWhere = item.where;
            return {};
        case Opt::User:
            return setUser(item);
        case Opt::OAuth2Bearer:
            if (auto valid = checkFieldValue(item); !valid)
                return valid;
            m_bearer = v;
            return {};
        case Opt::Digest:
            m_digest = !item.negated;
            return {};
        case Opt::AwsSigV4:
            return setAwsSigV4(item);
        case Opt::Cookie:
            return addCookie(item);
        case Opt::UserAgent:
            if (auto valid = checkFieldValue(item); !valid)
                return valid;
            m_userAgent = v;
            return {};
        case Opt::Referer:
            if (auto valid = checkFieldValue(item); !valid)
                return valid;
            m_referer = v.endsWith(";auto") ? v.chopped(5) : v;
            return {};
        case Opt::Insecure:
            m_insecure = !item.negated;
            return {};
        case Opt::CaCert:
            t.caBundlePath = absolutePath(text(v));
            return {};
        case Opt::Cert:
            setCert(v);
            return {};
        case Opt::Key:
            t.clientKeyPath = absolutePath(text(v));
            return {};
        case Opt::Pass:
            t.clientKeyPassphrase = text(v);
            return {};
        case Opt::TlsAny:
            t.tlsFloor = TransportOptions::TlsFloor::Any;
            return {};
        case Opt::Tls12:
            t.tlsFloor = TransportOptions::TlsFloor::Tls12;
            return {};
        case Opt::Tls13:
            t.tlsFloor = TransportOptions::TlsFloor::Tls13;
            return {};
        case Opt::Proxy:
            return setProxy(item, v);
        case Opt::Socks5:
            // --socks5 resolves names locally in curl, --socks5-hostname through the proxy.
            return setProxy(item,
                v.isEmpty()
                    ? v
                    : QByteArray(qstrcmp(item.entry->longName, "socks5") == 0 ? "socks5://" : "socks5h://") + v);
        case Opt::ProxyUser:
            setProxyUser(v);
            return {};
        case Opt::Http11:
            t.httpVersion = TransportOptions::HttpVersion::Http1;
            return {};
        case Opt::Http2:
            t.httpVersion = TransportOptions::HttpVersion::Http2;
            return {};
        case Opt::Http2PriorKnowledge:
            t.httpVersion = TransportOptions::HttpVersion::Http2PriorKnowledge;
            return {};
        case Opt::Retry:
            return setRetry(item);
        case Opt::RetryDelay:
            return seconds(item, PolicyLimits::maxDelayMs, m_out.retry.delayMs);
        case Opt::RetryMaxTime:
            return seconds(item, PolicyLimits::maxDeadlineMs, m_out.retry.maxTimeMs);
        case Opt::RetryAllErrors:
            m_out.retry.retryAllErrors = !item.negated;
            return {};
        case Opt::RetryConnRefused:
            m_out.retry.retryConnectionRefused = !item.negated;
            return {};
        case Opt::MaxTime:
            return seconds(item, PolicyLimits::maxDeadlineMs, m_out.retry.attemptTimeoutMs);
        case Opt::ConnectTimeout:
            return connectTimeout(item);
        case Opt::Resolve:
            return addResolve(item);
        case Opt::Ipv4:
            t.ipFamily = item.negated ? TransportOptions::IpFamily::Any : TransportOptions::IpFamily::V4;
            return {};
        case Opt::Ipv6:
            t.ipFamily = item.negated ? TransportOptions::IpFamily::Any : TransportOptions::IpFamily::V6;
            return {};
        case Opt::NoKeepalive:
            t.keepAlive = item.negated;
            return {};
        case Opt::Form:
        case Opt::FormString:
            return addFormPart(item, s->opt == Opt::FormString);
        case Opt::Location:
            m_out.followRedirects = !item.negated;
            return {};
        case Opt::LocationTrusted:
            m_out.followRedirects = !item.negated;
            m_out.notes.append(Tr::tr("--location-trusted would send credentials to every host a redirect leads to; "
                                      "RetryLab never sends Authorization or cookies to another origin."));
            return {};
        case Opt::Globoff:
            m_globoff = !item.negated;
            return {};
        case Opt::Basic:
            return {};
        case Opt::Ignored:
            m_out.ignored.append(shownOption(item));
            return {};
        }
        return {};
    }

    void noteAboutUnknown(const Item &item)
    {
        const QLatin1StringView name(item.entry->longName);
        if (name == QLatin1StringView("http1.0"))
            m_out.notes.append(Tr::tr("--http1.0: RetryLab sends HTTP/1.1."));
        if (name == QLatin1StringView("noproxy"))
            m_out.notes.append(Tr::tr("--noproxy is not used: the proxy, if any, is used for this request's host."));
        if (name == QLatin1StringView("digest") || name == QLatin1StringView("ntlm")
            || name == QLatin1StringView("negotiate") || name == QLatin1StringView("anyauth"))
            m_authScheme = item.written;
    }

    Result<void> setMethod(const Item &item)
    {
        if (!isToken(QByteArrayView(item.value))) {
            // Quoted only when it holds nothing a terminal would act on; else the bad byte is placed.
            if (!fieldValueProblem(item.value).isEmpty()) {
                return error(item,
                    Tr::tr("%1 is not a method name: %2").arg(item.written, tokenProblem(QByteArrayView(item.value))));
            }
            return error(item, Tr::tr("%1 \"%2\" is not a method name").arg(item.written, text(item.value)));
        }
        m_method = item.value;
        return {};
    }

    bool hasHeader(QByteArrayView name) const
    {
        return headerValue(m_headers, name).has_value()
            || std::any_of(m_removed.cbegin(), m_removed.cend(),
                [name](const QByteArray &n) { return n.compare(name, Qt::CaseInsensitive) == 0; });
    }

    Result<void> addHeader(const Item &item)
    {
        const QByteArray &v = item.value;
        if (v.startsWith('@')) {
            return error(item,
                Tr::tr("%1 %2: reading headers from a file is not supported; give each header with its own %1")
                    .arg(item.written, text(v)));
        }
        if (v.contains('\r') || v.contains('\n'))
            return error(item, Tr::tr("%1: a header cannot hold a line break").arg(item.written));
        if (auto valid = checkFieldValue(item); !valid)
            return valid;
        qsizetype colon = v.indexOf(':');
        if (colon < 0) {
            const QByteArray trimmed = v.trimmed();
            if (trimmed.endsWith(';') && trimmed.size() > 1 && !trimmed.chopped(1).contains(';')) {
                // "Name;" is curl's way to send a header with an empty value.
                const QByteArray name = trimmed.chopped(1).trimmed();
                if (auto valid = checkName(item, name); !valid)
                    return valid;
                m_headers.append({name, QByteArray()});
                return {};
            }
            m_out.notes.append(Tr::tr("%1 %2 is not a header (it has no colon); curl does not send it either.")
                                   .arg(item.written, ShellWords::quote(text(v))));
            return {};
        }
        const QByteArray name = v.left(colon).trimmed();
        if (auto valid = checkName(item, name); !valid)
            return valid;
        const QByteArray value = v.mid(colon + 1).trimmed();
        if (value.isEmpty()) {
            // "Name:" removes the header, the ones given before and the one curl would add.
            m_headers.removeIf([&name](const auto &h) { return h.first.compare(name, Qt::CaseInsensitive) == 0; });
            m_removed.append(name);
            return {};
        }
        m_headers.append({name, value});
        return {};
    }

    Result<void> checkName(const Item &item, const QByteArray &name) const
    {
        if (!isToken(QByteArrayView(name)))
            return error(item, Tr::tr("%1: \"%2\" is not a header name").arg(item.written, text(name)));
        return {};
    }

    Result<QByteArray> standardInput(const Item &item)
    {
        if (m_stdin)
            return *m_stdin;
        if (!m_options.standardInput) {
            return error(item,
                Tr::tr("%1 reads standard input, which this command line does not feed; save the data to a file and "
                       "use @FILE")
                    .arg(shownOption(item)));
        }
        auto data = m_options.standardInput();
        if (!data)
            return error(item, Tr::tr("%1: %2").arg(shownOption(item), data.error()));
        if (data->size() > m_options.maxFileBytes) {
            return error(item,
                Tr::tr("%1: standard input is larger than %2, the most a file given to it may be")
                    .arg(shownOption(item), BoundedFile::sizeText(m_options.maxFileBytes)));
        }
        m_stdin = *data;
        return data;
    }

    // @FILE or @- after an option, or the value itself.
    Result<QByteArray> dataValue(const Item &item, const QByteArray &value, bool stripLineBreaks)
    {
        if (!value.startsWith('@'))
            return value;
        const QString name = text(value.mid(1));
        Result<QByteArray> data = name == QLatin1String("-")
            ? standardInput(item)
            : readFile(name, m_options, item.where, QStringLiteral("%1 %2").arg(item.written, text(value)));
        if (!data || !stripLineBreaks)
            return data;
        // curl drops carriage returns and line feeds of a file read by -d.
        QByteArray bytes = data.value();
        bytes.replace("\r", "").replace("\n", "");
        return bytes;
    }

    void appendData(const QByteArray &piece, bool json)
    {
        // curl joins pieces with '&', except a --json piece, which it appends as it is.
        if (!m_data.isEmpty() && !json)
            m_data += '&';
        m_data += piece;
        m_hasData = true;
    }

    // The streamed file of a lone --data-binary @FILE, read into the data once another piece joins it.
    Result<void> holdStreamedData()
    {
        if (m_dataFile.isEmpty())
            return {};
        const QString path = std::exchange(m_dataFile, QString());
        auto bytes = readFile(path, m_options, m_dataWhere, QStringLiteral("%1 @%2").arg(m_dataName, path));
        if (!bytes)
            return bytes.errorDetail();
        m_data = *bytes;
        return {};
    }

    Result<void> addData(const Item &item, Opt kind)
    {
        if (kind == Opt::DataBinary && !m_hasData && item.value.startsWith('@') && item.value != "@-") {
            // Sent from the file as it is read, not held: unless another piece joins it (or -G needs it as text).
            const QString name = text(item.value.mid(1));
            const QString path = absolutePath(name);
            const QFileInfo info(path);
            if (!info.exists()) {
                return error(
                    item, Tr::tr("%1: there is no file %2").arg(shownOption(item), QDir::toNativeSeparators(path)));
            }
            if (info.isFile()) {
                m_dataFile = path;
                m_dataWhere = item.where;
                m_dataName = item.written;
                m_hasData = true;
                return {};
            }
        }
        if (auto held = holdStreamedData(); !held)
            return held;
        Result<QByteArray> piece
            = kind == Opt::DataRaw ? Result<QByteArray>(item.value) : dataValue(item, item.value, kind == Opt::Data);
        if (!piece)
            return piece.errorDetail();
        if (m_dataWhere.text.isEmpty()) {
            m_dataWhere = item.where;
            m_dataName = item.written;
        }
        m_json = m_json || kind == Opt::Json;
        appendData(piece.value(), kind == Opt::Json);
        return {};
    }

    Result<void> addUrlencoded(const Item &item)
    {
        // curl: NAME=CONTENT (the first '='), else NAME@FILE (the first '@'), else CONTENT.
        const QByteArray &v = item.value;
        qsizetype separator = v.indexOf('=');
        if (separator < 0)
            separator = v.indexOf('@');
        QByteArray name;
        QByteArray content = v;
        if (separator >= 0) {
            name = v.left(separator);
            content = v.mid(separator + 1);
            if (v[separator] == '@') {
                auto data = dataValue(item, QByteArray("@") + content, false);
                if (!data)
                    return data.errorDetail();
                content = data.value();
            }
        }
        QByteArray piece = content.toPercentEncoding();
        if (!name.isEmpty())
            piece = name + '=' + piece;
        if (m_dataWhere.text.isEmpty()) {
            m_dataWhere = item.where;
            m_dataName = item.written;
        }
        appendData(piece, false);
        return {};
    }

    Result<void> setUpload(const Item &item)
    {
        const QString name = text(item.value);
        if (name != QLatin1String("-") && name != QLatin1String(".")) {
            // Sent from the file as it is read, however large.
            const QString path = absolutePath(name);
            const QFileInfo info(path);
            if (!info.exists()) {
                return error(
                    item, Tr::tr("%1: there is no file %2").arg(shownOption(item), QDir::toNativeSeparators(path)));
            }
            if (!info.isFile()) {
                return error(item,
                    Tr::tr("%1: %2 is not a regular file").arg(shownOption(item), QDir::toNativeSeparators(path)));
            }
            m_uploadFile = path;
            m_upload = QByteArray();
            m_uploadName = info.fileName();
            m_uploadWhere = item.where;
            return {};
        }
        m_uploadFile.clear();
        Result<QByteArray> data = (name == QLatin1String("-") || name == QLatin1String("."))
            ? standardInput(item)
            : readFile(name, m_options, item.where, shownOption(item));
        if (!data)
            return data.errorDetail();
        m_upload = data.value();
        m_uploadName
            = name == QLatin1String("-") || name == QLatin1String(".") ? QString() : QFileInfo(name).fileName();
        m_uploadWhere = item.where;
        return {};
    }

    // curl's "provider1[:provider2[:region[:service]]]"; the region and service
    // are taken from the host (service.region.amazonaws.com) when not given, as curl does.
    Result<void> setAwsSigV4(const Item &item)
    {
        const QStringList parts = text(item.value).split(QLatin1Char(':'));
        if (parts.size() > 4 || parts.constFirst().isEmpty()) {
            return error(item,
                Tr::tr("%1 takes provider1[:provider2[:region[:service]]], such as aws:amz:us-east-1:s3, not \"%2\"")
                    .arg(item.written, text(item.value)));
        }
        if (parts.constFirst().compare(QLatin1String("aws"), Qt::CaseInsensitive) != 0) {
            return error(item,
                Tr::tr("%1: only the \"aws\" provider is signed (AWS4-HMAC-SHA256), not \"%2\"")
                    .arg(item.written, parts.constFirst()));
        }
        m_awsRegion = parts.value(2);
        m_awsService = parts.value(3);
        m_aws = true;
        m_awsWhere = item.where;
        return {};
    }

    Result<void> setUser(const Item &item)
    {
        const QByteArray &v = item.value;
        if (!v.contains(':')) {
            m_out.notes.append(Tr::tr("%1 gives no password; curl would ask for one, the import sends an empty one.")
                                   .arg(item.written));
        }
        m_user = v.contains(':') ? v : v + ':';
        return {};
    }

    // A value that goes into a header as it is: checked here, where the option can be named.
    // The executor checks every header again before sending (checkRequest).
    Result<void> checkFieldValue(const Item &item) const
    {
        if (const QString problem = fieldValueProblem(item.value); !problem.isEmpty())
            return error(item, Tr::tr("%1 is refused: %2").arg(item.written, problem));
        return {};
    }

    Result<void> addCookie(const Item &item)
    {
        if (!item.value.contains('=')) {
            m_out.unknown.append(shownOption(item));
            m_out.notes.append(
                Tr::tr("%1 reads cookies from a file, which the import does not do; give them as NAME=VALUE.")
                    .arg(shownOption(item)));
            return {};
        }
        if (auto valid = checkFieldValue(item); !valid)
            return valid;
        if (!m_cookies.isEmpty())
            m_cookies += "; ";
        m_cookies += item.value;
        return {};
    }

    // curl's FILE:PASSPHRASE, where "\:" is a colon of the file name.
    void setCert(const QByteArray &v)
    {
        QByteArray file;
        qsizetype i = 0;
        for (; i < v.size(); ++i) {
            if (v[i] == '\\' && i + 1 < v.size() && (v[i + 1] == ':' || v[i + 1] == '\\')) {
                file += v[++i];
            } else if (v[i] == ':') {
                break;
            } else {
                file += v[i];
            }
        }
        m_out.spec.transport.clientCertificatePath = absolutePath(text(file));
        if (i < v.size())
            m_out.spec.transport.clientKeyPassphrase = text(v.mid(i + 1));
    }

    Result<void> setProxy(const Item &item, const QByteArray &v)
    {
        TransportOptions &t = m_out.spec.transport;
        if (v.isEmpty()) {
            // An empty proxy switches the proxy off.
            t.proxyMode = TransportOptions::ProxyMode::None;
            t.proxyHost.clear();
            t.proxyPort = 0;
            return {};
        }
        QString s = text(v);
        const qsizetype schemeEnd = s.indexOf(QLatin1String("://"));
        const QString scheme = schemeEnd >= 0 ? s.left(schemeEnd).toLower() : QStringLiteral("http");
        if (schemeEnd < 0)
            s.prepend(QLatin1String("http://"));
        TransportOptions::ProxyMode mode;
        if (scheme == QLatin1String("http")) {
            mode = TransportOptions::ProxyMode::Http;
        } else if (scheme == QLatin1String("socks5") || scheme == QLatin1String("socks5h")) {
            mode = TransportOptions::ProxyMode::Socks5;
            if (scheme == QLatin1String("socks5"))
                m_out.notes.append(Tr::tr("socks5://: Qt lets the SOCKS5 proxy resolve host names, as curl's "
                                          "socks5h:// does."));
        } else {
            return error(item,
                Tr::tr("%1 %2: RetryLab uses http:// and socks5:// proxies, not %3://")
                    .arg(item.written, displayedProxy(v), scheme));
        }
        const QUrl url(s, QUrl::StrictMode);
        if (!url.isValid() || url.host().isEmpty()) {
            return error(item, Tr::tr("%1 %2: not a proxy address (HOST[:PORT])").arg(item.written, displayedProxy(v)));
        }
        t.proxyMode = mode;
        t.proxyHost = url.host();
        t.proxyPort = quint16(url.port(1080)); // curl's default proxy port, whatever the scheme
        if (!url.userName().isEmpty() && !m_proxyUserGiven) {
            t.proxyUser = url.userName();
            t.proxyPassword = url.password();
        }
        return {};
    }

    // A proxy URL for an error message: the password never shows.
    static QString displayedProxy(const QByteArray &v)
    {
        QString s = text(v);
        static const QRegularExpression credentials(QStringLiteral("^([a-z0-9]+://)?[^@/]*@"));
        s.replace(credentials, QStringLiteral("\\1REDACTED@"));
        return ShellWords::quote(s);
    }

    void setProxyUser(const QByteArray &v)
    {
        TransportOptions &t = m_out.spec.transport;
        const qsizetype colon = v.indexOf(':');
        t.proxyUser = text(colon >= 0 ? v.left(colon) : v);
        t.proxyPassword = colon >= 0 ? text(v.mid(colon + 1)) : QString();
        m_proxyUserGiven = true;
    }

    Result<void> setRetry(const Item &item)
    {
        static const QRegularExpression digits(QStringLiteral("^\\d{1,9}$"));
        const int max = PolicyLimits::maxAttempts - 1;
        if (!digits.match(text(item.value)).hasMatch() || item.value.toInt() > max) {
            return error(item,
                Tr::tr("%1 takes a whole number of retries from 0 to %2, not \"%3\"")
                    .arg(item.written)
                    .arg(max)
                    .arg(text(item.value)));
        }
        m_out.retry.retries = item.value.toInt();
        return {};
    }

    Result<void> seconds(const Item &item, double maxMs, std::optional<double> &target)
    {
        const std::optional<double> s = decimal(item.value);
        if (!s || *s * 1000.0 > maxMs) {
            return error(item,
                Tr::tr("%1 takes seconds, a number from 0 to %2, not \"%3\"")
                    .arg(item.written)
                    .arg(maxMs / 1000.0, 0, 'f', 0)
                    .arg(text(item.value)));
        }
        target = *s * 1000.0;
        return {};
    }

    Result<void> connectTimeout(const Item &item)
    {
        std::optional<double> ms;
        if (auto valid = seconds(item, PolicyLimits::maxDeadlineMs, ms); !valid)
            return valid;
        // 0, as for curl, is no connect timeout of its own.
        if (ms && *ms > 0.0)
            m_out.spec.transport.connectTimeoutMs = *ms;
        else
            m_out.spec.transport.connectTimeoutMs.reset();
        return {};
    }

    Result<void> addResolve(const Item &item)
    {
        // curl takes several, comma separated or repeated; an entry for a host and port replaces an earlier one.
        Result<HostPin> pin = HostPin::parse(text(item.value));
        if (!pin)
            return error(item, Tr::tr("%1: %2").arg(shownOption(item), pin.error()));
        QList<HostPin> &pins = m_out.spec.transport.resolve;
        pins.removeIf([&pin](const HostPin &p) { return p.host == pin->host && p.port == pin->port; });
        pins.append(*pin);
        if (text(item.value).section(QLatin1Char(':'), 2).contains(QLatin1Char(','))) {
            m_out.notes.append(
                Tr::tr("%1: RetryLab connects to the first address given; curl tries the others when it fails.")
                    .arg(shownOption(item)));
        }
        return {};
    }

    // -F NAME=VALUE, NAME=@FILE;type=T;filename=F, NAME=<FILE; --form-string NAME=VALUE as it is.
    Result<void> addFormPart(const Item &item, bool literal)
    {
        const QByteArray &v = item.value;
        const qsizetype equals = v.indexOf('=');
        if (equals <= 0)
            return error(
                item, Tr::tr("%1: a form part is NAME=VALUE, NAME=@FILE or NAME=<FILE").arg(shownOption(item)));
        FormPart part;
        part.name = v.left(equals);
        QByteArray content = v.mid(equals + 1);
        if (literal) {
            part.value = content;
            m_formParts.append(part);
            notePlace(item);
            return {};
        }
        // Parameters after ';' (type=, filename=); a value of its own may hold ';' elsewhere.
        QList<QByteArray> pieces = content.split(';');
        QByteArray head = pieces.takeFirst();
        QList<QByteArray> rest;
        for (const QByteArray &piece : std::as_const(pieces)) {
            const QByteArray trimmed = piece.trimmed();
            if (trimmed.startsWith("type="))
                part.contentType = trimmed.mid(5);
            else if (trimmed.startsWith("filename="))
                part.fileName = trimmed.mid(9);
            else if (trimmed.startsWith("headers=") || trimmed.startsWith("encoder="))
                m_out.notes.append(Tr::tr("%1: the part's %2 is not sent").arg(shownOption(item), text(trimmed)));
            else
                rest.append(piece);
        }
        if (!rest.isEmpty())
            head += ';' + rest.join(';');
        if (part.fileName.startsWith('"') && part.fileName.endsWith('"') && part.fileName.size() >= 2)
            part.fileName = part.fileName.mid(1, part.fileName.size() - 2);
        if (head.startsWith('@') || head.startsWith('<')) {
            const QString name = text(head.mid(1));
            if (name == QLatin1String("-"))
                return error(
                    item, Tr::tr("%1: a form part from standard input is not supported").arg(shownOption(item)));
            const QString path = absolutePath(name);
            const QFileInfo info(path);
            if (!info.exists())
                return error(
                    item, Tr::tr("%1: there is no file %2").arg(shownOption(item), QDir::toNativeSeparators(path)));
            if (!info.isFile()) {
                return error(item,
                    Tr::tr("%1: %2 is not a regular file").arg(shownOption(item), QDir::toNativeSeparators(path)));
            }
            if (head.startsWith('@')) {
                part.filePath = path;
            } else {
                auto bytes = readFile(name, m_options, item.where, shownOption(item));
                if (!bytes)
                    return bytes.errorDetail();
                part.value = *bytes;
            }
        } else {
            part.value = head;
        }
        m_formParts.append(part);
        notePlace(item);
        return {};
    }

    void notePlace(const Item &item)
    {
        if (m_formWhere.text.isEmpty()) {
            m_formWhere = item.where;
            m_formName = item.written;
        }
    }

    QString absolutePath(const QString &path) const
    {
        if (path.isEmpty())
            return path;
        return QDir::cleanPath(QDir(m_options.baseDirectory.isEmpty() ? QDir::currentPath() : m_options.baseDirectory)
                                   .absoluteFilePath(path));
    }

    Result<void> finish();
    /// --digest and --aws-sigv4 make -u the credentials of RequestSpec::auth.
    Result<void> setAuth(RequestSpec &spec, const QUrl &url, HeaderList &headers);

    const CurlCommandLine::Options &m_options;
    ImportedRequest m_out;
    QString m_urlText;
    bool m_hasUrl = false;
    CurlArguments::Place m_urlWhere;
    QByteArray m_method;
    HeaderList m_headers;
    QList<QByteArray> m_removed;
    QByteArray m_data;
    bool m_hasData = false;
    bool m_json = false;
    CurlArguments::Place m_dataWhere;
    QString m_dataName;
    std::optional<QByteArray> m_upload;
    QString m_uploadFile; ///< -T FILE: streamed from this path (m_upload then empty)
    QString m_dataFile; ///< a lone --data-binary @FILE: streamed from this path
    QList<FormPart> m_formParts;
    CurlArguments::Place m_formWhere;
    QString m_formName;
    QString m_uploadName;
    CurlArguments::Place m_uploadWhere;
    std::optional<QByteArray> m_stdin;
    bool m_get = false;
    CurlArguments::Place m_getWhere;
    bool m_head = false;
    CurlArguments::Place m_headWhere;
    QByteArray m_user;
    QByteArray m_bearer;
    bool m_digest = false;
    bool m_aws = false;
    QString m_awsRegion;
    QString m_awsService;
    CurlArguments::Place m_awsWhere;
    QByteArray m_cookies;
    QByteArray m_userAgent;
    QByteArray m_referer;
    QString m_authScheme;
    bool m_insecure = false;
    bool m_globoff = false;
    bool m_proxyUserGiven = false;
};

Result<void> Reader::setAuth(RequestSpec &spec, const QUrl &url, HeaderList &headers)
{
    const auto userAndPassword = [this] {
        const qsizetype colon = m_user.indexOf(':');
        return std::pair{QString::fromUtf8(m_user.left(colon)), QString::fromUtf8(m_user.mid(colon + 1))};
    };
    if (m_aws) {
        if (m_user.isEmpty()) {
            return m_awsWhere.error(
                Tr::tr("--aws-sigv4 signs with the keys -u gives: add -u ACCESS_KEY_ID:SECRET_ACCESS_KEY"));
        }
        AuthSpec auth;
        auth.kind = AuthSpec::Kind::AwsSigV4;
        std::tie(auth.accessKeyId, auth.secretAccessKey) = userAndPassword();
        // service.region.amazonaws.com, as curl reads the host when the option does not say.
        const QStringList labels = url.host().toLower().split(QLatin1Char('.'));
        const bool awsHost
            = labels.size() >= 4 && url.host().endsWith(QLatin1String(".amazonaws.com"), Qt::CaseInsensitive);
        auth.region = m_awsRegion.isEmpty() && awsHost ? labels.value(1) : m_awsRegion;
        auth.service = m_awsService.isEmpty() && awsHost ? labels.value(0) : m_awsService;
        if (auth.region.isEmpty()) {
            return m_awsWhere.error(
                Tr::tr("--aws-sigv4 names no region and the host %1 gives none: write aws:amz:REGION:SERVICE")
                    .arg(url.host()));
        }
        if (auth.service.isEmpty()) {
            return m_awsWhere.error(
                Tr::tr("--aws-sigv4 names no service and the host %1 gives none: write aws:amz:REGION:SERVICE")
                    .arg(url.host()));
        }
        // The session token is signed with the rest: it moves from the headers into the auth.
        headers.removeIf([&auth](const auto &h) {
            if (h.first.compare("X-Amz-Security-Token", Qt::CaseInsensitive) != 0)
                return false;
            auth.sessionToken = QString::fromUtf8(h.second);
            return true;
        });
        spec.auth = auth;
        if (m_digest)
            m_out.notes.append(Tr::tr("--digest is not used: --aws-sigv4 signs the request."));
        return {};
    }
    if (m_digest && !m_user.isEmpty()) {
        AuthSpec auth;
        auth.kind = AuthSpec::Kind::Digest;
        std::tie(auth.username, auth.password) = userAndPassword();
        spec.auth = auth;
    } else if (m_digest) {
        m_out.notes.append(Tr::tr("--digest without -u sends no credentials."));
    }
    return {};
}

Result<void> Reader::finish()
{
    if (!m_hasUrl)
        return Error{QString(), Tr::tr("no URL: give the address to send the request to")};
    if (m_head && m_hasData && !m_get) {
        return m_dataWhere.error(
            Tr::tr("%1 and -I/--head cannot be used together: a HEAD request has no body (use -G to put the data "
                   "in the URL)")
                .arg(m_dataName));
    }
    if (m_upload && m_hasData && !m_get) {
        return m_dataWhere.error(
            Tr::tr("%1 and -T/--upload-file cannot be used together: the request has one body").arg(m_dataName));
    }
    if (!m_formParts.isEmpty() && (m_hasData || m_upload)) {
        return m_formWhere.error(Tr::tr("%1 and %2 cannot be used together: the request has one body")
                                     .arg(m_formName, m_hasData ? m_dataName : QStringLiteral("-T")));
    }
    if (!m_formParts.isEmpty() && m_head)
        return m_formWhere.error(
            Tr::tr("%1 and -I/--head cannot be used together: a HEAD request has no body").arg(m_formName));
    if (m_get) {
        if (auto held = holdStreamedData(); !held)
            return held.errorDetail();
    }

    QString urlText = m_urlText;
    if (!urlText.contains(QLatin1String("://")))
        urlText.prepend(QLatin1String("http://")); // curl's guess for a URL without a scheme
    if (m_upload && urlText.endsWith(QLatin1Char('/')) && !m_uploadName.isEmpty())
        urlText += QString::fromLatin1(QUrl::toPercentEncoding(m_uploadName));
    QUrl url(urlText);
    const QString scheme = url.scheme().toLower();
    if (!url.isValid())
        return m_urlWhere.error(Tr::tr("\"%1\" is not a URL: %2").arg(m_urlText, url.errorString()));
    if (url.host().isEmpty())
        return m_urlWhere.error(Tr::tr("\"%1\" is not a URL: it names no host").arg(m_urlText));
    if (scheme != QLatin1String("http") && scheme != QLatin1String("https"))
        return m_urlWhere.error(Tr::tr("\"%1\": RetryLab sends http and https requests only").arg(m_urlText));
    static const QRegularExpression glob(QStringLiteral(R"([\[\]{}])"));
    if (!m_globoff && m_urlText.contains(glob)) {
        m_out.notes.append(Tr::tr("Without -g curl would read [] and {} in the URL as a pattern of several URLs; the "
                                  "import sends the URL as written."));
    }

    RequestSpec &spec = m_out.spec;
    if (m_get && m_hasData) {
        QString query = url.query(QUrl::FullyEncoded);
        if (!query.isEmpty())
            query += QLatin1Char('&');
        query += QString::fromUtf8(m_data);
        url.setQuery(query, QUrl::TolerantMode);
    }
    spec.url = url;

    if (!m_method.isEmpty())
        spec.method = m_method;
    else if (m_head)
        spec.method = "HEAD";
    else if (m_get)
        spec.method = "GET";
    else if (m_upload)
        spec.method = "PUT";
    else if (m_hasData || !m_formParts.isEmpty())
        spec.method = "POST";
    else
        spec.method = "GET";

    const bool dataBody = m_hasData && !m_get;
    if (dataBody && !m_dataFile.isEmpty()) {
        spec.bodySource.kind = BodySource::Kind::File;
        spec.bodySource.filePath = m_dataFile;
    } else if (dataBody) {
        spec.body = m_data;
    } else if (m_upload && !m_uploadFile.isEmpty()) {
        spec.bodySource.kind = BodySource::Kind::File;
        spec.bodySource.filePath = m_uploadFile;
    } else if (m_upload) {
        spec.body = *m_upload;
    } else if (!m_formParts.isEmpty()) {
        // Qt writes the Content-Type with its boundary.
        spec.bodySource.kind = BodySource::Kind::Multipart;
        spec.bodySource.parts = m_formParts;
    }

    HeaderList headers = m_headers;
    const auto addDefault = [this, &headers](const QByteArray &name, const QByteArray &value) {
        if (!hasHeader(name))
            headers.append({name, value});
    };
    if (auto signing = setAuth(spec, url, headers); !signing)
        return signing;
    if (!m_user.isEmpty() && spec.auth.isNone())
        addDefault("Authorization", "Basic " + m_user.toBase64());
    else if (!m_bearer.isEmpty())
        addDefault("Authorization", "Bearer " + m_bearer);
    if (!m_userAgent.isEmpty())
        addDefault("User-Agent", m_userAgent);
    if (!m_referer.isEmpty())
        addDefault("Referer", m_referer);
    if (!m_cookies.isEmpty())
        addDefault("Cookie", m_cookies);
    if (dataBody)
        addDefault("Content-Type", m_json ? "application/json" : "application/x-www-form-urlencoded");
    if (m_json)
        addDefault("Accept", "application/json");
    spec.headers = headers;

    if (m_out.retry.attemptTimeoutMs && *m_out.retry.attemptTimeoutMs > 0.0)
        spec.attemptTimeoutMs = m_out.retry.attemptTimeoutMs;
    if (m_insecure)
        spec.transport.insecureHosts = QStringList{url.host()};
    if (!m_authScheme.isEmpty() && !m_user.isEmpty() && spec.auth.isNone()) {
        m_out.notes.append(Tr::tr("-u is sent as Basic authentication; RetryLab does not do %1.").arg(m_authScheme));
    }
    return {};
}

} // namespace

Result<QByteArray> readFile(const QString &path, const CurlCommandLine::Options &options,
    const CurlArguments::Place &where, const QString &option)
{
    const QString absolute = QDir::cleanPath(
        QDir(options.baseDirectory.isEmpty() ? QDir::currentPath() : options.baseDirectory).absoluteFilePath(path));
    const QFileInfo info(absolute);
    if (!info.exists())
        return where.error(Tr::tr("%1: there is no file %2").arg(option, QDir::toNativeSeparators(absolute)));
    if (info.isDir())
        return where.error(Tr::tr("%1: %2 is a folder, not a file").arg(option, QDir::toNativeSeparators(absolute)));
    if (info.size() > options.maxFileBytes) {
        return where.error(Tr::tr("%1: %2 is larger than %3 MiB")
                               .arg(option, QDir::toNativeSeparators(absolute))
                               .arg(options.maxFileBytes / (1024 * 1024)));
    }
    // A device or FIFO only when named as one (-d @/dev/stdin), and never beyond the limit.
    const auto bytes = BoundedFile::read(
        absolute, {options.maxFileBytes, Tr::tr("a file given to %1").arg(option)}, BoundedFile::Accept::AnyReadable);
    if (!bytes)
        return where.error(Tr::tr("%1: %2").arg(option, bytes.error()));
    return *bytes;
}

Result<ImportedRequest> read(const QList<Argument> &arguments, const CurlCommandLine::Options &options)
{
    return Reader(options).run(arguments);
}

QList<CurlCommandLine::OptionHelp> optionHelp()
{
    QList<CurlCommandLine::OptionHelp> help;
    for (const Supported &s : supported) {
        if (!s.help)
            continue;
        const CurlOptionTable::Entry *entry = CurlOptionTable::findExact(QLatin1StringView(s.longName));
        QString names = QStringLiteral("--") + QLatin1String(s.longName);
        if (entry && entry->shortName)
            names = QStringLiteral("-%1, %2").arg(QLatin1Char(entry->shortName)).arg(names);
        help.append({names, s.valueName ? QString::fromLatin1(s.valueName) : QString(),
            QCoreApplication::translate("RetryLab::Core", s.help)});
    }
    return help;
}

} // namespace RetryLab::Core::CurlRequestReader
