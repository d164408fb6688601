#pragma once

#include "core/export/sourcetext.h"
#include "core/policy/backoffpolicy.h"

#include <QList>
#include <QString>
#include <QStringList>

#include <optional>

namespace RetryLab::Core {

/// Every format a retry policy is exported to, in one list that
/// `retrylab policy export` and the window's Export dialog share: its name (a
/// public interface: `--format NAME`), title, file suffix and whether it can
/// be a program, and the one function that writes a policy in it.
namespace PolicyExport {

struct Format
{
    QString name; ///< "grpc", "tenacity", "polly-options", ...: stable, used on command lines
    QString title; ///< for people: "Polly 8 (C#)"
    QString suffix; ///< the file suffix without the dot: "cs", "yaml"
    /// Whether `runnableUrl` makes it a complete program sending one GET there.
    bool runnable = false;
};

/// The formats in the order they are offered.
const QList<Format> &formats();
/// The format of that name, if there is one.
std::optional<Format> find(const QString &name);
/// The names of formats() in order.
QStringList names();
/// The names of the runnable formats in order.
QStringList runnableNames();

struct Options
{
    /// A program sending one GET to this URL instead of a snippet (runnable formats only).
    std::optional<QString> runnableUrl;
    /// gRPC: methodConfig[].name's service and method; empty for every one.
    QString grpcService;
    QString grpcMethod;
};

/// The policy in `format` (a name from formats(); an unknown name writes the
/// policy JSON) and what the format cannot express, one sentence each. A
/// `runnableUrl` for a format that is not runnable is ignored. The text ends
/// with a line break.
SourceText::Code write(const QString &format, const BackoffPolicy &policy, const Options &options = {});

} // namespace PolicyExport

} // namespace RetryLab::Core
