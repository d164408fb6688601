#pragma once

#include "core/collections/collection.h"
#include "core/collections/environment.h"
#include "core/policy/backoffpolicy.h"
#include "core/record/attemptrecord.h"
#include "core/util/result.h"

#include <QHash>
#include <QString>
#include <QUrl>

#include <optional>

namespace RetryLab::Core {

/// The request `retrylab request --collection FILE --request NAME [--env FILE]`
/// sends: read from a collection file as the window writes it, its {{variables}}
/// filled in from an environments file as the window writes it, and turned into
/// a RequestSpec as the window turns it (RequestTemplate), with the
/// policy, seed and connection saved with it. Whatever stops it from being sent
/// (a file that cannot be read, a damaged one, a name that is not there, a
/// variable without a value) is an error that names the file, the place in it
/// ("items[1].request") or the variable.
class SavedRequest final
{
public:
    struct Source
    {
        QString collectionFile;
        /// A request's name, or its path with its folders: "Orders/Create".
        QString request;
        /// Empty: no environment; every {{name}} is then unresolved.
        QString environmentFile;
        /// Empty: the environment selected last in the window, or the file's only one.
        QString environmentName;
        /// What the four are called where they were given, for the messages: the
        /// command's options, or a monitors file's fields ("monitors[2].collection").
        struct Names
        {
            QString collection = QStringLiteral("--collection");
            QString request = QStringLiteral("--request");
            QString environmentFile = QStringLiteral("--env");
            QString environmentName = QStringLiteral("--env-name");
        };
        Names names = {};
    };

    static Result<SavedRequest> load(const Source &source);

    /// "Orders/Create".
    QString path() const { return m_path; }
    /// What was read, for the messages: "the saved request "Orders/Create" of
    /// shop.json with the environment "Staging" of environments.json".
    QString description() const;
    /// Whether {server} is used once the variables are in: the request needs an
    /// embedded fault server, as it does in the window.
    bool needsServer() const;
    /// The policy saved with the request; an error when it names a preset this
    /// RetryLab does not have.
    Result<BackoffPolicy> policy() const;
    /// Where that policy comes from, for the run's description.
    QString policyOrigin() const;
    /// The jitter seed saved with the request, if any.
    std::optional<quint64> seed() const;
    /// The request to send: {server} stands for `serverUrl` (empty: none is
    /// running) and {id} for a new key.
    Result<RequestSpec> build(const QUrl &serverUrl) const;

private:
    SavedRequest() = default;
    /// Why the request cannot be sent with the values of `environment` (null:
    /// none was given): the {{names}} it uses that have none. Empty when it can.
    QString missingValues(const Environment *environment) const;

    Source m_source;
    CollectionItem m_item;
    QString m_path;
    QString m_environmentName; ///< empty without --env
    QHash<QString, QString> m_values;
};

} // namespace RetryLab::Core
