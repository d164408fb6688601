#include "app/cli/policyargument.h"

#include "app/cli/clitr.h"
#include "core/policy/policyjson.h"
#include "core/policy/presets.h"

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>

namespace RetryLab::Cli {

Core::Result<NamedPolicy> resolvePolicy(const QString &text)
{
    if (QFileInfo(text).isFile()) {
        auto policy = Core::PolicyJson::readFile(text);
        if (!policy)
            return Core::Result<NamedPolicy>::failure(policy.error());
        return NamedPolicy{QDir::toNativeSeparators(text), std::move(policy).value()};
    }
    if (const auto preset = Core::Presets::find(text))
        return NamedPolicy{Tr::tr("preset %1").arg(text), *preset};
    return Core::Result<NamedPolicy>::failure(Tr::tr("\"%1\" is neither a policy file nor a preset (presets: %2)")
                                                  .arg(text, Core::Presets::ids().join(QStringLiteral(", "))));
}

Core::Result<QList<NamedPolicy>> resolvePolicyOptions(const QStringList &names)
{
    QList<NamedPolicy> policies;
    for (const QString &name : names) {
        auto resolved = resolvePolicy(name);
        if (!resolved) {
            return Core::Result<QList<NamedPolicy>>::failure(Tr::tr("--policy %1: %2").arg(name, resolved.error()));
        }
        policies.append(std::move(resolved).value());
    }
    return policies;
}

} // namespace RetryLab::Cli
