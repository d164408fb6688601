#include "core/policy/presets.h"

#include "core/policy/policyjson.h"

#include <QDir>
#include <QLoggingCategory>

#include <algorithm>

namespace RetryLab::Core::Presets {

namespace {
namespace {
Q_LOGGING_CATEGORY(lcPresets, "retrylab.core.presets")
} // namespace
} // namespace

const QList<Preset> &all()
{
    static const QList<Preset> presets = [] {
        QList<Preset> list;
        const QDir dir(QStringLiteral(":/presets"));
        const auto entries = dir.entryList({QStringLiteral("*.json")}, QDir::Files, QDir::Name);
        for (const QString &entry : entries) {
            auto result = PolicyJson::readFile(dir.filePath(entry));
            if (!result) {
                qCWarning(lcPresets) << "built-in preset" << entry << "is invalid:" << result.error();
                continue;
            }
            list.append({entry.chopped(5), std::move(result).value()});
        }
        std::sort(list.begin(), list.end(), [](const Preset &a, const Preset &b) { return a.id < b.id; });
        return list;
    }();
    return presets;
}

std::optional<BackoffPolicy> find(const QString &idOrName)
{
    for (const Preset &preset : all()) {
        if (preset.id == idOrName || preset.policy.name.compare(idOrName, Qt::CaseInsensitive) == 0)
            return preset.policy;
    }
    return std::nullopt;
}

QStringList ids()
{
    QStringList list;
    for (const Preset &preset : all())
        list.append(preset.id);
    return list;
}

} // namespace RetryLab::Core::Presets
