#pragma once

#include "app/cli/headlessoptions.h"

#include <QString>
#include <QStringList>

#include <optional>

/// `retrylab run [options] COLLECTION`: runs a RetryLab, Postman or Bruno
/// collection, or a HAR file, request after request, each with its retry
/// policy, scripts and assertions (Core::CollectionRunner).
namespace RetryLab::Cli::RunCollectionCommand {

/// The options only a collection takes; `retrylab run` reads them with the rest.
struct Options
{
    QString collectionPath;
    /// --env FILE: a RetryLab environments file, a Postman environment or, for a
    /// Bruno folder, the name of one of its environments.
    QString environment;
    /// --env-name: which environment of a RetryLab environments file.
    QString environmentName;
    QString globalsPath; ///< --globals FILE: a Postman globals file
    QStringList variables; ///< --var NAME=VALUE, in order
    QStringList folders; ///< --folder NAME
    std::optional<int> iterations; ///< --iterations N
    QString dataPath; ///< --data FILE
    int delayRequestMs = 0; ///< --delay-request MS
    bool bail = false;
    QString policy; ///< --policy PRESET|FILE; empty: one attempt
    std::optional<double> timeoutRequestMs; ///< --timeout-request MS
    int scriptTimeoutMs = 5000; ///< --script-timeout MS
    bool insecure = false;
    HeadlessOptions shared;

    /// The options given that only a collection takes, as typed ("--folder"), for
    /// the message when the file is a scenario.
    QStringList given;
};

/// Whether `path` is to be run as a collection: a folder (Bruno), or a file whose
/// JSON is not a RetryLab scenario.
bool isCollection(const QString &path);

int run(const Options &options);

} // namespace RetryLab::Cli::RunCollectionCommand
