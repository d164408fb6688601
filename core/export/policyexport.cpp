#include "core/export/policyexport.h"

#include "core/export/botocoreexport.h"
#include "core/export/curlretryflags.h"
#include "core/export/curlscript.h"
#include "core/export/envoyretrypolicy.h"
#include "core/export/gobackoffexport.h"
#include "core/export/googlehttpjavaexport.h"
#include "core/export/grpcserviceconfig.h"
#include "core/export/pollyexport.h"
#include "core/export/resilience4jexport.h"
#include "core/export/tenacityexport.h"
#include "core/export/urllib3export.h"
#include "core/policy/policyjson.h"
#include "core/util/coretr.h"
#include "core/util/shellwords.h"

#include <QCoreApplication>
#include <QLoggingCategory>

namespace {
Q_LOGGING_CATEGORY(lcPolicyExport, "retrylab.core.policyexport")
} // namespace

namespace RetryLab::Core::PolicyExport {

namespace {

using Writer = SourceText::Code (*)(const BackoffPolicy &);
using ProgramWriter = SourceText::Code (*)(const BackoffPolicy &, const QString &);

SourceText::Code curlFlags(const BackoffPolicy &policy)
{
    const auto flags = CurlRetryFlags::fromPolicy(policy);
    QStringList words;
    for (const QString &a : flags.arguments)
        words << ShellWords::quote(a);
    return {words.join(QLatin1Char(' ')), flags.notes};
}

SourceText::Code policyJson(const BackoffPolicy &policy)
{
    return {QString::fromUtf8(PolicyJson::toJson(policy)), {}};
}

struct Entry
{
    Format format;
    Writer snippet = nullptr;
    ProgramWriter program = nullptr;
};

const QList<Entry> &entries()
{
    static const QList<Entry> list{
        {{QStringLiteral("grpc"), Tr::tr("gRPC service config"), QStringLiteral("json")}, nullptr},
        {{QStringLiteral("curl"), Tr::tr("curl retry flags"), QStringLiteral("sh"), true}, &curlFlags,
            &CurlScript::program},
        {{QStringLiteral("json"), Tr::tr("RetryLab policy JSON"), QStringLiteral("json")}, &policyJson},
        {{QStringLiteral("tenacity"), Tr::tr("tenacity (Python)"), QStringLiteral("py"), true},
            &TenacityExport::snippet, &TenacityExport::program},
        {{QStringLiteral("urllib3"), Tr::tr("urllib3 Retry (Python)"), QStringLiteral("py"), true},
            &Urllib3Export::snippet, &Urllib3Export::program},
        {{QStringLiteral("botocore"), Tr::tr("botocore Config (Python)"), QStringLiteral("py"), true},
            &BotocoreExport::snippet, &BotocoreExport::program},
        {{QStringLiteral("polly"), Tr::tr("Polly 8 pipeline (C#)"), QStringLiteral("cs")}, &PollyExport::snippet},
        {{QStringLiteral("polly-options"), Tr::tr("Microsoft.Extensions.Http.Resilience options (JSON)"),
             QStringLiteral("json")},
            &PollyExport::options},
        {{QStringLiteral("resilience4j"), Tr::tr("Resilience4j (Spring Boot YAML)"), QStringLiteral("yaml")},
            &Resilience4jExport::yaml},
        {{QStringLiteral("envoy"), Tr::tr("Envoy route retry_policy (YAML)"), QStringLiteral("yaml")},
            &EnvoyRetryPolicy::yaml},
        {{QStringLiteral("go-backoff"), Tr::tr("cenkalti/backoff v4 (Go)"), QStringLiteral("go"), true},
            &GoBackoffExport::snippet, &GoBackoffExport::program},
        {{QStringLiteral("google-http-java"), Tr::tr("Google HTTP Client for Java"), QStringLiteral("java")},
            &GoogleHttpJavaExport::snippet},
    };
    return list;
}

const Entry *entry(const QString &name)
{
    for (const Entry &e : entries()) {
        if (e.format.name == name)
            return &e;
    }
    return nullptr;
}

} // namespace

const QList<Format> &formats()
{
    static const QList<Format> list = [] {
        QList<Format> out;
        for (const Entry &e : entries())
            out << e.format;
        return out;
    }();
    return list;
}

std::optional<Format> find(const QString &name)
{
    if (const Entry *e = entry(name))
        return e->format;
    return std::nullopt;
}

QStringList names()
{
    QStringList out;
    for (const Format &f : formats())
        out << f.name;
    return out;
}

QStringList runnableNames()
{
    QStringList out;
    for (const Format &f : formats()) {
        if (f.runnable)
            out << f.name;
    }
    return out;
}

SourceText::Code write(const QString &format, const BackoffPolicy &policy, const Options &options)
{
    SourceText::Code out;
    const Entry *e = entry(format);
    if (format == QLatin1String("grpc")) {
        const auto config = GrpcServiceConfig::fromPolicy(policy, options.grpcService, options.grpcMethod);
        out = {QString::fromUtf8(GrpcServiceConfig::toJson(config)), config.warnings};
    } else if (e && e->program && options.runnableUrl) {
        out = e->program(policy, *options.runnableUrl);
    } else if (e && e->snippet) {
        out = e->snippet(policy);
    } else {
        out = policyJson(policy);
    }
    if (!out.text.endsWith(QLatin1Char('\n')))
        out.text += QLatin1Char('\n');
    qCDebug(lcPolicyExport) << policy.name << "as" << format << (options.runnableUrl ? "program" : "snippet") << ","
                            << out.notes.size() << "notes";
    return out;
}

} // namespace RetryLab::Core::PolicyExport
