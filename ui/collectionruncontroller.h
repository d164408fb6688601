#pragma once

#include "core/record/runrecord.h"
#include "core/runner/collectionrunner.h"
#include "core/runner/runcollection.h"

#include <QObject>
#include <QString>
#include <QUrl>

#include <functional>

class QWidget;

namespace RetryLab::Ui {

class CollectionRunHost;
class CollectionRunPanel;
class CollectionSidebar;
class MessageBar;

/// Runs collections from the Collections dock: the sidebar's "Run collection"
/// and "Run folder" start a run on CollectionRunHost (the runner of `retrylab
/// run`, on a thread of its own), whose requests the results panel shows as they
/// end. The panel's "Open attempts" goes to `openRecord` (the timeline and the
/// inspector), its Stop to the host. A run asked for while one goes on is
/// refused, and the message bar says why.
class CollectionRunController final : public QObject
{
    Q_OBJECT

public:
    struct Parts
    {
        CollectionSidebar *collections = nullptr;
        /// Where the results panel goes (a dock or a tab page); its layout is the window's.
        QWidget *panelParent = nullptr;
        MessageBar *messages = nullptr;
        /// What {server} stands for: the embedded fault server's base URL; empty when none runs.
        std::function<QUrl()> serverUrl;
        /// Shows one request's attempts in the run views (OpenedRun::showRecord).
        std::function<void(const Core::RunRecord &record, const QString &title)> openRecord;
        /// Brings the results panel forward when a run starts.
        std::function<void()> showPanel;
    };

    explicit CollectionRunController(const Parts &parts, QObject *parent = nullptr);
    ~CollectionRunController() override;

    CollectionRunPanel *panel() const { return m_panel; }
    CollectionRunHost *host() const { return m_host; }

    /// Starts a run (what the sidebar's runRequested asks); false, said on the
    /// message bar, when another run goes on.
    bool run(const Core::RunCollection &collection, Core::CollectionRunOptions options);

private:
    Parts m_parts;
    CollectionRunHost *m_host;
    CollectionRunPanel *m_panel;
};

} // namespace RetryLab::Ui
