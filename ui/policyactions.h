#pragma once

#include <QObject>
#include <QString>

#include <functional>

class QMenu;
class QMenuBar;
class QWidget;

namespace RetryLab::Ui {

class ExportController;
class MessageBar;
class PolicyPanel;
class RequestRunner;
class Settings;

/// The Policy menu: the policy imported from or exported to JSON, exported as a
/// gRPC service config or in any export format (PolicyExportDialog), endpoint policies (a policy per host or path for
/// the requests sent), the layer calculator and the comparison of policies. What a file action did, or why not, is said
/// above the tabs.
class PolicyActions final : public QObject
{
    Q_OBJECT

public:
    struct Parts
    {
        PolicyPanel *policyPanel = nullptr;
        RequestRunner *runner = nullptr;
        Settings *settings = nullptr;
        /// Asks for file names (ExportController::chooseFile, which tests answer).
        ExportController *exports = nullptr;
        MessageBar *messages = nullptr;
        /// Parents the dialogs.
        QWidget *dialogParent = nullptr;
        /// The request's URL (template) now: a gRPC path in it names the method a
        /// gRPC service config is for. May be empty.
        std::function<QString()> requestUrl = {};
    };

    /// None of the parts is owned; each must outlive this.
    explicit PolicyActions(const Parts &parts, QObject *parent = nullptr);

    /// Adds the Policy menu to `bar`.
    QMenu *addMenu(QMenuBar *bar);
    /// Policy > Compare policies, made by addMenu() (null before).
    QAction *compareAction() const { return m_compareAction; }

public Q_SLOTS:
    void importPolicy();
    void exportPolicy();
    /// The policy as methodConfig.retryPolicy (GrpcServiceConfig).
    void exportPolicyAsGrpc();
    /// The Export dialog: the policy in any export format, previewed, copied or saved.
    void showExportDialog();
    void editEndpointPolicies();
    void showLayerCalculator();
    void showCompare();

private:
    QString chooseJsonFile(const QString &title, const QString &fileName, const QString &filter) const;

    Parts m_parts;
    QAction *m_compareAction = nullptr;
    QString m_grpcService; ///< what the last gRPC export was for, offered again
    QString m_grpcMethod;
};

} // namespace RetryLab::Ui
