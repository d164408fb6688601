#include "core/export/curlcommand.h"

#include "core/export/curlconnectionflags.h"
#include "core/export/curlretryflags.h"
#include "core/policy/classifier.h"
#include "core/record/recordredactor.h"
#include "core/util/coretr.h"
#include "core/util/shellwords.h"

#include <QCoreApplication>
#include <QLoggingCategory>
#include <QRegularExpression>

namespace {
Q_LOGGING_CATEGORY(lcCurlCommand, "retrylab.core.curlcommand")
} // namespace

namespace RetryLab::Core::CurlCommand {

namespace {

// Text a single-quoted shell argument carries unchanged: UTF-8 without control
// characters other than tab and line ends.
bool isPlainText(const QByteArray &bytes)
{
    if (QString::fromUtf8(bytes).toUtf8() != bytes)
        return false;
    for (char c : bytes) {
        const auto u = static_cast<unsigned char>(c);
        if ((u < 0x20 && c != '\t' && c != '\n' && c != '\r') || u == 0x7F)
            return false;
    }
    return true;
}

// A printf format that prints exactly `bytes`: printable ASCII as itself, the
// rest as octal escapes (which POSIX printf understands in its format).
QString printfFormat(const QByteArray &bytes)
{
    QString format;
    format.reserve(bytes.size() * 2);
    for (char c : bytes) {
        const auto u = static_cast<unsigned char>(c);
        if (c == '%')
            format += QLatin1String("%%");
        else if (c == '\\')
            format += QLatin1String("\\\\");
        else if (u >= 0x20 && u < 0x7F && c != '\'')
            format += QLatin1Char(c);
        else
            format += QStringLiteral("\\%1").arg(u, 3, 8, QLatin1Char('0'));
    }
    return format;
}

// The Content-Type the executor adds when the request has a body but no type.
QByteArray defaultContentType(const QByteArray &body)
{
    const QByteArray trimmed = body.trimmed();
    return (trimmed.startsWith('{') || trimmed.startsWith('[')) ? QByteArray("application/json")
                                                                : QByteArray("application/octet-stream");
}

// curl's own options for the auth curl knows; a note for the kinds it does not.
QStringList authArguments(const AuthSpec &auth, QStringList &notes)
{
    const QString user = auth.username + QLatin1Char(':') + auth.password;
    switch (auth.kind) {
    case AuthSpec::Kind::Inherit:
    case AuthSpec::Kind::None:
        break;
    case AuthSpec::Kind::Basic:
        return {QStringLiteral("-u"), user};
    case AuthSpec::Kind::Digest:
        return {QStringLiteral("--digest"), QStringLiteral("-u"), user};
    case AuthSpec::Kind::Bearer:
        return {QStringLiteral("--oauth2-bearer"), auth.token};
    case AuthSpec::Kind::ApiKey:
        if (auth.inQuery) {
            notes.append(Tr::tr("The API key %1 goes in the query: add %1=... to the URL.").arg(auth.key));
            return {};
        }
        return {QStringLiteral("-H"), auth.key + QLatin1String(": ") + auth.value};
    case AuthSpec::Kind::AwsSigV4: {
        QStringList args{QStringLiteral("--aws-sigv4"), QStringLiteral("aws:amz:%1:%2").arg(auth.region, auth.service),
            QStringLiteral("-u"), auth.accessKeyId + QLatin1Char(':') + auth.secretAccessKey};
        if (!auth.sessionToken.isEmpty())
            args << QStringLiteral("-H") << QStringLiteral("X-Amz-Security-Token: ") + auth.sessionToken;
        if (auth.presign)
            notes.append(
                Tr::tr("curl signs with headers; RetryLab presigns the URL (the query carries the signature)."));
        notes.append(Tr::tr("curl 7.88 signs a query with parameters out of order differently from AWS: such a "
                            "signature is refused."));
        return args;
    }
    case AuthSpec::Kind::OAuth2ClientCredentials:
    case AuthSpec::Kind::OAuth2RefreshToken:
    case AuthSpec::Kind::OAuth2AuthorizationCode:
    case AuthSpec::Kind::GoogleServiceAccount:
        notes.append(Tr::tr("curl fetches no access token (%1): get one from %2 and add --oauth2-bearer TOKEN.")
                         .arg(AuthSpec::kindTitle(auth.kind),
                             auth.kind == AuthSpec::Kind::GoogleServiceAccount ? Tr::tr("the key file's token_uri")
                                                                               : auth.tokenUrl));
        return {};
    }
    return {};
}

} // namespace

Command build(const RequestSpec &request, const ExportOptions &options, const std::optional<BackoffPolicy> &policy)
{
    Command command;
    // Redacted as a whole, once; the command is built from the copy.
    const RequestSpec shown = RecordRedactor(options.redactCredentials).redacted(request);

    QByteArray method = request.method.trimmed().toUpper();
    if (method.isEmpty())
        method = "GET";
    if (request.kind == RequestSpec::Kind::ReadModifyWrite) {
        command.notes.append(Tr::tr("A read-modify-write request is a GET, a change and a PUT with If-Match; this "
                                    "command sends only the request as composed."));
    }

    // The Content-Type the executor adds says JSON exactly when the redactor would read the body
    // as JSON without it, so the body redacted without it reads the same.
    HeaderList shownHeaders = shown.headers;
    if (!request.body.isEmpty() && !headerValue(shownHeaders, "Content-Type"))
        shownHeaders.append({QByteArray("Content-Type"), defaultContentType(request.body)});
    const QByteArray &body = shown.body;
    const QUrl &url = shown.url;
    command.credentialsRedacted = options.redactCredentials
        && (shown.headers != request.headers || shown.body != request.body || shown.url != request.url
            || shown.auth != request.auth || shown.bodySource != request.bodySource);
    if (command.credentialsRedacted) {
        command.notes.append(Tr::tr("Credentials are redacted: the command will not authenticate until they are put "
                                    "back."));
    }
    if (!options.redactCredentials)
        command.notes.append(ExportOptions::credentialsWarning());

    QStringList args{QStringLiteral("curl")};
    const bool hasBody = !body.isEmpty();
    // From the redacted copy: a form field named like a credential is masked.
    const QStringList streamedBody = CurlConnectionFlags::bodyArguments(shown);
    if (method == "HEAD") {
        args << QStringLiteral("--head");
    } else if (!streamedBody.isEmpty()) {
        if (!CurlConnectionFlags::impliesMethod(request, method))
            args << QStringLiteral("-X") << QString::fromLatin1(method);
    } else if (!(method == "GET" && !hasBody) && !(method == "POST" && hasBody)) {
        // Without -X curl sends GET, or POST when there is data.
        args << QStringLiteral("-X") << QString::fromLatin1(method);
    }

    for (const auto &[name, rawValue] : shownHeaders) {
        QByteArray value = rawValue;
        if (value.contains('\r') || value.contains('\n')) {
            value.replace('\r', ' ').replace('\n', ' ');
            command.notes.append(Tr::tr("Line breaks in header %1 were replaced by spaces: a header value cannot hold "
                                        "them.")
                                     .arg(QString::fromLatin1(name)));
        }
        QString shownValue = QString::fromUtf8(value);
        if (shownValue.toUtf8() != value) {
            shownValue = QString::fromLatin1(value);
            command.notes.append(
                Tr::tr("Header %1 is not UTF-8; it was read as Latin-1.").arg(QString::fromLatin1(name)));
        }
        // "Name;" is curl's way to send a header with an empty value.
        const QString header = shownValue.isEmpty()
            ? QString(QString::fromLatin1(name) + QLatin1Char(';'))
            : QString(QString::fromLatin1(name) + QLatin1String(": ") + shownValue);
        args << QStringLiteral("-H") << header;
    }

    args += authArguments(shown.auth, command.notes);

    QString pipe;
    if (hasBody) {
        if (isPlainText(body) && body.size() <= maxInlineBodyBytes) {
            args << QStringLiteral("--data-raw") << QString::fromUtf8(body);
        } else {
            pipe = QStringLiteral("printf %1 | ").arg(ShellWords::quote(printfFormat(body)));
            args << QStringLiteral("--data-binary") << QStringLiteral("@-");
        }
    }

    args += streamedBody;

    QStringList retryArgs;
    if (policy) {
        const CurlRetryFlags::Flags flags = CurlRetryFlags::fromPolicy(*policy);
        retryArgs = flags.arguments;
        command.notes += flags.notes;
    }
    if (request.attemptTimeoutMs && *request.attemptTimeoutMs > 0.0) {
        // The request's own timeout wins over the policy's, as in the executor.
        const QString seconds = CurlRetryFlags::decimalSeconds(*request.attemptTimeoutMs);
        const qsizetype at = retryArgs.indexOf(QStringLiteral("--max-time"));
        if (at >= 0 && at + 1 < retryArgs.size())
            retryArgs[at + 1] = seconds;
        else
            retryArgs << QStringLiteral("--max-time") << seconds;
    }
    args += retryArgs;
    args += CurlConnectionFlags::connectionArguments(request.transport);

    const QString urlText = url.toString(QUrl::FullyEncoded);
    // curl reads [] and {} in a URL as a glob pattern.
    static const QRegularExpression globCharacters(QStringLiteral(R"([\[\]{}])"));
    if (urlText.contains(globCharacters))
        args << QStringLiteral("--globoff");
    args << urlText;

    QStringList quoted;
    quoted.reserve(args.size());
    for (const QString &arg : std::as_const(args))
        quoted.append(ShellWords::quote(arg));
    command.commandLine = pipe + quoted.join(QLatin1Char(' '));
    qCDebug(lcCurlCommand) << "built a command of" << command.commandLine.size() << "characters";
    return command;
}

} // namespace RetryLab::Core::CurlCommand
