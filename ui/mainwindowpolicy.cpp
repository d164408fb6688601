#include "ui/mainwindow.h"

#include "core/export/grpcserviceconfig.h"
#include "core/util/exportfile.h"
#include "ui/exportcontroller.h"
#include "ui/policy/comparedialog.h"
#include "ui/policy/endpointpoliciesdialog.h"
#include "ui/policy/layercalculator.h"
#include "ui/policy/policyeditor.h"
#include "ui/policy/policypanel.h"
#include "ui/session/requestrunner.h"
#include "ui/session/settings.h"
#include "ui/widgets/messagebar.h"

#include <QDir>
#include <QFileDialog>
#include <QFileInfo>
#include <QStandardPaths>

// The Policy menu's actions: import, export, the gRPC service config, endpoint
// policies and the layer calculator.

namespace RetryLab::Ui {

void MainWindow::importPolicy()
{
    const QString path = m_exports->chooseFile(QFileDialog::AcceptOpen, tr("Import a policy"),
        m_settings->exportDirectory(), tr("Policy JSON (*.json);;All files (*)"));
    if (path.isEmpty())
        return;
    const bool ok = m_policyPanel->editor()->presetBar()->importFile(path);
    m_messages->showMessage(ok ? FieldMessage::Kind::Success : FieldMessage::Kind::Error,
        m_policyPanel->editor()->presetBar()->lastMessage());
}

void MainWindow::exportPolicy()
{
    QString directory = m_settings->exportDirectory();
    if (directory.isEmpty())
        directory = QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation);
    const QString name
        = m_policyPanel->policy().name.simplified().replace(QLatin1Char(' '), QLatin1Char('-')).toLower();
    QString path = m_exports->chooseFile(QFileDialog::AcceptSave, tr("Export the policy"),
        QDir(directory).filePath((name.isEmpty() ? QStringLiteral("policy") : name) + QStringLiteral(".json")),
        tr("Policy JSON (*.json)"));
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".json");
    const bool ok = m_policyPanel->editor()->presetBar()->exportFile(path);
    m_messages->showMessage(ok ? FieldMessage::Kind::Success : FieldMessage::Kind::Error,
        m_policyPanel->editor()->presetBar()->lastMessage());
}

void MainWindow::showLayerCalculator()
{
    auto *calculator = new LayerCalculator(this);
    calculator->setAttribute(Qt::WA_DeleteOnClose);
    calculator->setCurrentPolicy(m_policyPanel->editor()->policy());
    calculator->show();
}

void MainWindow::showCompare()
{
    auto *compare = new CompareDialog(this);
    compare->setAttribute(Qt::WA_DeleteOnClose);
    compare->setCurrentPolicy(m_policyPanel->editor()->policy());
    compare->show();
}

void MainWindow::editEndpointPolicies()
{
    EndpointPoliciesDialog dialog(m_settings->userPresets(), this);
    dialog.setPolicies(m_runner->endpointPolicies());
    if (dialog.exec() != QDialog::Accepted)
        return;
    m_runner->setEndpointPolicies(dialog.policies());
    m_settings->setEndpointPolicies(dialog.policies());
}

void MainWindow::exportPolicyAsGrpc()
{
    const QString directory = m_settings->exportDirectory().isEmpty()
        ? QStandardPaths::writableLocation(QStandardPaths::DocumentsLocation)
        : m_settings->exportDirectory();
    QString path = m_exports->chooseFile(QFileDialog::AcceptSave, tr("Export the policy as a gRPC service config"),
        QDir(directory).filePath(QStringLiteral("service-config.json")), tr("gRPC service config (*.json)"));
    if (path.isEmpty())
        return;
    if (QFileInfo(path).suffix().isEmpty())
        path += QStringLiteral(".json");
    const auto exported = Core::GrpcServiceConfig::fromPolicy(m_policyPanel->policy());
    const auto written = Core::ExportFile::write(path, Core::GrpcServiceConfig::toJson(exported));
    if (!written) {
        m_messages->showMessage(FieldMessage::Kind::Error, tr("Could not export: %1").arg(written.error()));
        return;
    }
    QString text = tr("Exported %1 (methodConfig.retryPolicy for every method; load it as the channel's service "
                      "config).")
                       .arg(QDir::toNativeSeparators(path));
    if (!exported.warnings.isEmpty())
        text += tr(" What gRPC does differently: %1").arg(exported.warnings.join(QLatin1Char(' ')));
    m_messages->showMessage(FieldMessage::Kind::Success, text);
}

} // namespace RetryLab::Ui
