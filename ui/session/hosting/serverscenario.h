#pragma once

#include "core/util/result.h"

#include <QJsonObject>
#include <QList>
#include <QString>
#include <QStringList>

namespace RetryLab::Ui {

/// A script for the embedded fault server (core/faultinstruction.h steps), and
/// whether each logical request gets its own copy of it or all requests share one.
/// Requests select it with the X-Retry-Test-Id header; once the steps are used up,
/// the server answers by the URL's path again.
struct ServerScenario
{
    enum class Sharing {
        PerRequest, ///< every logical request gets a fresh copy (createTest per request)
        Shared, ///< one copy; requests use its steps in the order they arrive
    };

    QString presetId; ///< the preset it was loaded from, empty when edited
    QStringList instructions; ///< empty: no script, the URL decides
    Sharing sharing = Sharing::PerRequest;

    bool isActive() const { return !instructions.isEmpty(); }

    /// Why the steps cannot be used ("line 2: ..."), or an empty string.
    QString problem() const;

    /// The presets offered in the Server tab, the first being "no script".
    struct Preset
    {
        QString id;
        QString title;
        QString description;
        QStringList instructions;
        Sharing sharing = Sharing::PerRequest;
    };
    static QList<Preset> presets();
    static ServerScenario fromPreset(const QString &id);

    QJsonObject toJson() const;
    static Core::Result<ServerScenario> fromJson(const QJsonObject &object);

    friend bool operator==(const ServerScenario &, const ServerScenario &) = default;
};

} // namespace RetryLab::Ui
