#pragma once

#include "core/policy/backoffpolicy.h"
#include "core/policy/policyadvice.h"
#include "core/util/result.h"

#include <QString>
#include <QStringList>

#include <optional>

/// `retrylab policy export|check [--preset ID | FILE]`: a retry policy written
/// for another client, or checked for its use.
namespace RetryLab::Cli::PolicyCommand {

enum class Action { Export, Check };

struct Options
{
    QString help; ///< --help: the text to print instead of running
    Action action = Action::Export;
    Core::BackoffPolicy policy; ///< --preset ID or the policy file, read
    Core::PolicyUsage usage; ///< check: --clients, --interactive
    QString format = QStringLiteral("json"); ///< export: a name of Core::PolicyExport::formats()
    /// export --runnable URL (the runnable formats): a program sending one GET there, not a snippet
    std::optional<QString> runnableUrl;
    QString service; ///< export --format grpc: --service, empty for every service
    QString method; ///< and --method within it
    std::optional<QString> outPath; ///< export: --out FILE; without it, standard output
};

/// `arguments` as the command gets them: program, "policy", action, options.
Core::Result<Options> parse(const QStringList &arguments);
int run(const Options &options);

} // namespace RetryLab::Cli::PolicyCommand
