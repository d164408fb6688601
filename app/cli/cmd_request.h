#pragma once

#include "app/cli/headlessoptions.h"
#include "core/collections/savedrequest.h"

#include "core/import/curlcommandline.h"
#include "core/policy/policyfields.h"
#include "core/util/result.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

/// `retrylab request [options] [curl options] URL`: sends one request, as curl
/// would, under a retry policy. The curl options are read when it runs (they
/// may read files and standard input); parse() reads retrylab's own.
namespace RetryLab::Cli::RequestCommand {

/// A --retry-NAME option: the policy field it sets, and to what.
struct PolicyOverride
{
    const Core::PolicyField *field = nullptr;
    double value = 0.0;
    QString option; ///< as given, for the messages: "--retry-base-ms 100"
};

struct Options
{
    QString help; ///< --help: the text to print instead of running
    HeadlessOptions shared;
    /// --policy, a preset or a policy file; without it the saved request's own, else the default.
    std::optional<QString> policy;
    QList<PolicyOverride> overrides; ///< --retry-*, in the order of the option table
    bool include = false; ///< -i
    QString outputPath; ///< -o: where the body goes; empty: standard output (also for "-o -")
    std::optional<QString> fromCurl; ///< --from-curl: a whole curl command line
    bool insecure = false;
    qint64 bodyLimit = 0; ///< --max-body, else the default for where the body goes
    /// Where the transfer of a body ends: at --max-body, or at what -o can write, else
    /// the executor's default (a body shown on the terminal is counted that far).
    std::optional<qint64> transferLimit;
    bool idempotent = false;
    /// --auth FILE: the request's auth, over what the curl options or the saved request say.
    std::optional<Core::AuthSpec> auth;
    QStringList fallbacks; ///< --fallback URLs, as given
    QStringList fallbackOn; ///< --fallback-on entries, split at commas, as given
    /// --poll: a polling policy preset or file; the request starts a long-running operation.
    std::optional<QString> poll;
    std::optional<Core::SavedRequest::Source> saved; ///< --collection, --request, --env, --env-name
    /// The URL and the curl options as given, retrylab's own options among them
    /// (`ownOptions`, which the curl reading skips).
    QStringList requestArguments;
    QList<Core::CurlCommandLine::ExtraOption> ownOptions;
    bool hasRequestArguments = false; ///< whether a URL or curl option is among requestArguments
};

/// `arguments` as the command gets them: program, "request", options.
Core::Result<Options> parse(const QStringList &arguments);
int run(const Options &options);

} // namespace RetryLab::Cli::RequestCommand
