#pragma once

#include "core/util/result.h"

#include <QObject>

class QDockWidget;

namespace RetryLab::Ui {

class CollectionSidebar;
class ImportController;
class MonitorController;
class OpenedRun;
class PolicyPanel;
class WorkspaceTabs;

/// A file given to the window (`retrylab FILE`, the file manager, a second
/// `retrylab FILE` handed over) shown where it belongs, told apart by its content:
/// a run report read-only in the run's views, a scenario's requests and policy in
/// the composer, a collection in the Collections dock, a monitors file in the
/// Monitors tab, a policy in the policy dock; a HAR file or a Postman collection
/// goes to File > Import's picker. The docks are brought to the front.
class FileOpener final : public QObject
{
    Q_OBJECT

public:
    enum class Kind { Unknown, Report, Scenario, Collection, Monitors, Policy, Observation, Other };
    Q_ENUM(Kind)

    /// The window's parts a file goes to; none is owned.
    struct Parts
    {
        OpenedRun *openedRun = nullptr;
        ImportController *imports = nullptr;
        CollectionSidebar *collections = nullptr;
        QDockWidget *collectionsDock = nullptr;
        MonitorController *monitors = nullptr;
        PolicyPanel *policyPanel = nullptr;
        QDockWidget *policyDock = nullptr;
        QDockWidget *requestDock = nullptr;
        WorkspaceTabs *tabs = nullptr;
    };

    explicit FileOpener(const Parts &parts, QObject *parent = nullptr);

    /// The kind of a JSON file from its "format" field (a RetryLab collection from its
    /// "formatVersion" and "items"); Other for JSON of another program, Unknown for
    /// what is no JSON object.
    static Kind kindOf(const QByteArray &bytes);

    /// Shows the file where its kind belongs, or says why it cannot.
    Core::Result<Kind> open(const QString &path);

Q_SIGNALS:
    /// After each open() that showed something.
    void opened(const QString &path, RetryLab::Ui::FileOpener::Kind kind);

private:
    Core::Result<void> openCollection(const QString &path, const QByteArray &bytes);

    Parts m_parts;
};

} // namespace RetryLab::Ui
