#pragma once

#include "core/import/importedrequest.h"
#include "core/policy/backoffpolicy.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QList>
#include <QString>
#include <QStringList>

#include <functional>

namespace RetryLab::Core {

/// "Import from curl": a curl command line, as pasted from documentation, a
/// browser's "Copy as cURL" or RetryLab's own "Copy as curl", read into the
/// request it sends (method, URL, headers in order, body, TLS, proxy and HTTP
/// version) and what it says about retrying.
///
/// The line is split as a shell would split it (ShellWords), without running
/// anything: a leading `curl` word, `printf ... |`, `echo ... |` or `cat F |`
/// feeding curl's standard input, and `< file` are understood; output
/// redirections and later pipes are listed in `ignored`. Options follow curl
/// 7.88's rules: clusters (`-sSL`), values attached (`-XPUT`, `-d@f`), unique
/// starts of long names (`--retry-conn`), `--no-` for booleans, `--` ending the
/// options. What the method and the headers become follows curl: GET, POST with
/// data, HEAD with -I, `-G` moving the data into the query, data pieces joined
/// with `&`, `Content-Type: application/x-www-form-urlencoded` for data unless
/// a header says otherwise, `-H "Name:"` removing a header and `-H "Name;"`
/// sending it empty.
///
/// Options curl has that do not change what is sent (`-s`, `-v`, `-o F`,
/// `--compressed`, ...) go to ImportedRequest::ignored; options RetryLab cannot
/// carry out (`-F`, `--digest`, ...) and words that are no curl option go to
/// ImportedRequest::unknown, each as written; nothing is dropped unsaid.
namespace CurlCommandLine {

/// An option of the caller's own that may stand among curl's options (the
/// `retrylab request` command's `--policy`, `-o`, ...): it is taken before
/// curl's table is asked, so `-i` and `-o` mean the caller's, not curl's.
struct ExtraOption
{
    QStringList names; ///< "o", "output": one letter for a short name
    bool takesValue = false;
};

struct Options
{
    /// Where `@file`, `-T file`, `< file` and certificate paths are read from
    /// when they are relative. Empty: the current directory.
    QString baseDirectory;
    /// What `@-` and `-T -` read when the line itself does not feed curl's
    /// standard input. Unset: such a line is refused.
    std::function<Result<QByteArray>()> standardInput;
    /// parseArguments() only: skipped with their values (see separate()).
    QList<ExtraOption> extraOptions;
    /// Files larger than this are refused (the body is held in memory).
    qint64 maxFileBytes = 64 * 1024 * 1024;
};

/// Reads a whole command line. Errors (an unbalanced quote, an option missing
/// its value, no URL or two, a bad number, a file that cannot be read) name
/// the option and where it is ("column 14", "line 2, column 5").
Result<ImportedRequest> parse(const QString &commandLine, const Options &options = {});

/// Reads arguments already split (a program's argv after its own name, no
/// `curl` word): the same rules, errors placed as "argument N" (1-based).
Result<ImportedRequest> parseArguments(const QStringList &arguments, const Options &options = {});

/// The caller's own options among `arguments`, as `--name=value` / `--name`
/// (the first long name) for QCommandLineParser, and whether any request
/// option or URL is left for parseArguments().
struct Separated
{
    QStringList extraArguments;
    bool hasRequestArguments = false;
};
Result<Separated> separate(const QStringList &arguments, const QList<ExtraOption> &extraOptions);

/// One of the options this reader carries out, for a command's --help.
struct OptionHelp
{
    QString names; ///< "-d, --data"
    QString valueName; ///< "DATA", empty for a switch
    QString description;
};
QList<OptionHelp> supportedOptions();

/// What a retry hint changed in a policy, and which curl option said so.
struct PolicyChange
{
    QString field; ///< the policy field's path in the policy file (PolicyField::path()): "maxAttempts"
    QString option; ///< "--retry 7"
    QString description; ///< "at most 8 attempts"
};

/// Fills a policy from curl's retry options: --retry N as N + 1 attempts,
/// --retry-delay S (above 0) as a constant wait of S, --retry-max-time S as the
/// deadline, --max-time S as the per-attempt timeout, --retry-connrefused and
/// --retry-all-errors as retrying those network faults after a delay. The
/// statuses retried stay the policy's. A policy that changed is named as edited ("AWS SDK
/// standard mode (edited by curl --retry flags)") and says so in its description. Returns
/// what changed, in that order.
QList<PolicyChange> applyRetryHints(const ImportedRequest::RetryHints &hints, BackoffPolicy &policy);

} // namespace CurlCommandLine

} // namespace RetryLab::Core
