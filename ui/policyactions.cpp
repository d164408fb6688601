#include "ui/policyactions.h"

#include "core/export/grpcserviceconfig.h"
#include "core/faultserver/faultserver.h" // complete for RequestRunner::server()
#include "core/util/exportfile.h"
#include "ui/exportcontroller.h"
#include "ui/policy/comparedialog.h"
#include "ui/policy/endpointpoliciesdialog.h"
#include "ui/policy/grpcmethoddialog.h"
#include "ui/policy/layercalculator.h"
#include "ui/policy/policyeditor.h"
#include "ui/policy/policyexportdialog.h"
#include "ui/policy/policypanel.h"
#include "ui/session/request/requestrunner.h"
#include "ui/session/settings/settings.h"
#include "ui/widgets/messagebar.h"

#include <QAction>
#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QMenuBar>
#include <QStandardPaths>

namespace RetryLab::Ui {

PolicyActions::PolicyActions(const Parts &parts, QObject *parent) : QObject(parent), m_parts(parts)
{ }

QMenu *PolicyActions::addMenu(QMenuBar *bar)
{
    QMenu *policy = bar->addMenu(tr("&Policy"));
    policy->addAction(tr("&Import policy\u2026"), this, &PolicyActions::importPolicy)
        ->setObjectName(QStringLiteral("importPolicy"));
    policy->addAction(tr("&Export policy\u2026"), this, &PolicyActions::exportPolicy)
        ->setObjectName(QStringLiteral("exportPolicy"));
    policy->addAction(tr("Export as &gRPC service config\u2026"), this, &PolicyActions::exportPolicyAsGrpc)
        ->setObjectName(QStringLiteral("exportPolicyGrpc"));
    policy->addAction(tr("E&xport\u2026"), this, &PolicyActions::showExportDialog)
        ->setObjectName(QStringLiteral("exportPolicyFormats"));
    policy->addSeparator();
    policy->addAction(tr("Endpoint &policies\u2026"), this, &PolicyActions::editEndpointPolicies)
        ->setObjectName(QStringLiteral("endpointPolicies"));
    policy->addAction(tr("&Layer calculator\u2026"), this, &PolicyActions::showLayerCalculator)
        ->setObjectName(QStringLiteral("layerCalculator"));
    m_compareAction = policy->addAction(tr("&Compare policies\u2026"), this, &PolicyActions::showCompare);
    m_compareAction->setObjectName(QStringLiteral("comparePolicies"));
    // The button beside Send says it short; the menu in full.
    m_compareAction->setIconText(tr("Compare\u2026"));
    m_compareAction->setToolTip(tr("Compare policies: the same requests against the same faults under two policies, "
                                   "side by side, with the attempts each sent"));
    return policy;
}

void PolicyActions::importPolicy()
{
    const QString path = m_parts.exports->chooseFile(QFileDialog::AcceptOpen, tr("Import a policy"),
        m_parts.settings->exportDirectory(), tr("Policy JSON (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    PolicyEditor *editor = m_parts.policyPanel->editor();
    const bool ok = editor->presetBar()->importFile(path);
    m_parts.messages->showMessage(
        ok ? FieldMessage::Kind::Success : FieldMessage::Kind::Error, editor->presetBar()->lastMessage());
}

// Both exports suggest a JSON file in the last export folder (or Documents) and add
// ".json" when the name chosen has no suffix.
QString PolicyActions::chooseJsonFile(const QString &title, const QString &fileName, const QString &filter) const
{
    QString directory = m_parts.settings->exportDirectory();
    if (directory.isEmpty())
        directory = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    QString path
        = m_parts.exports->chooseFile(QFileDialog::AcceptSave, title, QDir(directory).filePath(fileName), filter);
    if (!path.isEmpty() && QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".json");
    return path;
}

void PolicyActions::exportPolicy()
{
    const QString name
        = m_parts.policyPanel->policy().name.simplified().replace(QLatin1Char(' '), QLatin1Char('-')).toLower();
    const QString path = chooseJsonFile(tr("Export the policy"),
        (name.isEmpty() ? QStringLiteral("policy") : name) + QStringLiteral(".json"), tr("Policy JSON (*.json)"));
    if (path.isEmpty())
        return;
    PolicyEditor *editor = m_parts.policyPanel->editor();
    const bool ok = editor->presetBar()->exportFile(path);
    m_parts.messages->showMessage(
        ok ? FieldMessage::Kind::Success : FieldMessage::Kind::Error, editor->presetBar()->lastMessage());
}

void PolicyActions::showExportDialog()
{
    auto *dialog = new PolicyExportDialog(m_parts.dialogParent);
    dialog->setObjectName(QStringLiteral("policyExportDialog"));
    dialog->setAttribute(Qt::WA_DeleteOnClose);
    dialog->setPolicy(m_parts.policyPanel->policy());
    if (m_parts.requestUrl)
        dialog->setRequestUrl(m_parts.requestUrl());
    QString directory = m_parts.settings->exportDirectory();
    if (directory.isEmpty())
        directory = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    dialog->setDirectory(directory);
    ExportController *exports = m_parts.exports;
    dialog->setFileChooser([exports](const QString &title, const QString &suggestion, const QString &filter) {
        return exports->chooseFile(QFileDialog::AcceptSave, title, suggestion, filter);
    });
    connect(dialog, &PolicyExportDialog::saved, this, [this](const QString &path) {
        m_parts.messages->showMessage(
            FieldMessage::Kind::Success, tr("Exported %1.").arg(QDir::toNativeSeparators(path)));
    });
    dialog->show();
}

void PolicyActions::showLayerCalculator()
{
    auto *calculator = new LayerCalculator(m_parts.dialogParent);
    calculator->setAttribute(Qt::WA_DeleteOnClose);
    calculator->setCurrentPolicy(m_parts.policyPanel->editor()->policy());
    calculator->show();
}

void PolicyActions::showCompare()
{
    auto *compare = new CompareDialog(m_parts.dialogParent);
    compare->setAttribute(Qt::WA_DeleteOnClose);
    compare->setCurrentPolicy(m_parts.policyPanel->editor()->policy());
    compare->show();
}

void PolicyActions::editEndpointPolicies()
{
    EndpointPoliciesDialog dialog(m_parts.settings->userPresets(), m_parts.dialogParent);
    dialog.setPolicies(m_parts.runner->endpointPolicies());
    if (dialog.exec() != QDialog::Accepted)
        return;
    m_parts.runner->setEndpointPolicies(dialog.policies());
    m_parts.settings->setEndpointPolicies(dialog.policies());
}

void PolicyActions::exportPolicyAsGrpc()
{
    // gRPC applies a methodConfig to the methods it names: ask which, offering the request's
    // gRPC path (/pkg.Orders/Create) or what the last export was for.
    GrpcMethodDialog dialog(m_parts.dialogParent);
    std::optional<GrpcMethodDialog::Method> offered;
    if (m_parts.requestUrl)
        offered = GrpcMethodDialog::fromUrl(m_parts.requestUrl());
    dialog.setMethod(offered.value_or(GrpcMethodDialog::Method{m_grpcService, m_grpcMethod}));
    if (dialog.exec() != QDialog::Accepted)
        return;
    const GrpcMethodDialog::Method target = dialog.method();
    m_grpcService = target.service;
    m_grpcMethod = target.method;
    const QString path = chooseJsonFile(tr("Export the policy as a gRPC service config"),
        QStringLiteral("service-config.json"), tr("gRPC service config (*.json)"));
    if (path.isEmpty())
        return;
    const auto exported
        = Core::GrpcServiceConfig::fromPolicy(m_parts.policyPanel->policy(), target.service, target.method);
    const auto written = Core::ExportFile::write(path, Core::GrpcServiceConfig::toJson(exported));
    if (!written) {
        m_parts.messages->showMessage(FieldMessage::Kind::Error, tr("Could not export: %1").arg(written.error()));
        return;
    }
    const QString calls = target.method.isEmpty() ? tr("every method of %1").arg(target.service)
                                                  : QStringLiteral("/%1/%2").arg(target.service, target.method);
    QString text = tr("Exported %1 (methodConfig.retryPolicy for %2; load it as the channel's service config).")
                       .arg(QDir::toNativeSeparators(path), calls);
    if (!exported.warnings.isEmpty())
        text += tr(" What gRPC does differently: %1").arg(exported.warnings.join(QLatin1Char(' ')));
    m_parts.messages->showMessage(FieldMessage::Kind::Success, text);
}

} // namespace RetryLab::Ui
