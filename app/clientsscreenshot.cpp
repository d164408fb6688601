#include "app/clientsscreenshot.h"

#include "app/apptr.h"
#include "app/screenshotcontext.h"
#include "core/executor/retryexecutor.h"
#include "core/observe/observationplan.h"
#include "ui/observe/clientsview.h"
#include "ui/session/hosting/embeddedserver.h"
#include "ui/session/hosting/observation.h"

#include <QDeadlineTimer>
#include <QDockWidget>

#include <memory>

namespace RetryLab::App {

void saveClientsScreenshot(ScreenshotContext &context)
{
    Ui::MainWindow &window = context.window();
    if (!window.server()->isRunning()) {
        context.fail(Tr::tr("the embedded server does not run, so no client can be observed for clients.png"));
        return;
    }
    auto *observation = context.part<Ui::Observation>("observation");
    observation->setPlan(Core::ObservationPlan::defaultPlan());
    observation->setEnabled(true);
    observation->clear();
    // Short, so that the client that gives up is seen to have given up before the picture.
    const double gapWindowMs = observation->gapWindowMs();
    observation->setGapWindowMs(1500);

    struct Client
    {
        QByteArray agent;
        Core::BackoffAlgorithm algorithm;
        double baseMs;
        int requests;
        int maxAttempts = 4;
    };
    const QList<Client> clients{
        {"checkout-service/2.3", Core::BackoffAlgorithm::FullJitter, 60, 10},
        {"legacy-batch/1.0", Core::BackoffAlgorithm::Constant, 120, 4},
        // Two tries and no more: the plan's third 503 is never asked for.
        {"nightly-export/0.9", Core::BackoffAlgorithm::Constant, 100, 2, 2},
    };
    std::vector<std::unique_ptr<Core::RetryExecutor>> executors;
    for (const Client &c : clients) {
        Core::BackoffPolicy policy;
        policy.algorithm = c.algorithm;
        policy.baseDelayMs = c.baseMs;
        policy.multiplier = 2;
        policy.maxBackoffMs = 2000;
        policy.maxAttempts = c.maxAttempts;
        auto executor = std::make_unique<Core::RetryExecutor>();
        executor->setPolicy(policy);
        executor->setSeed(11);
        executor->setConcurrencyLimit(6);
        for (int i = 0; i < c.requests; ++i) {
            Core::RequestSpec spec;
            spec.url = window.server()->baseUrl().resolved(QUrl(QStringLiteral("/orders/%1").arg(i)));
            spec.headers = {{"User-Agent", c.agent}};
            executor->submit(spec);
        }
        executors.push_back(std::move(executor));
    }
    const QDeadlineTimer deadline(30'000);
    while (!deadline.hasExpired()) {
        const bool idle = std::all_of(
            executors.cbegin(), executors.cend(), [](const auto &executor) { return executor->activeCount() == 0; });
        if (idle)
            break;
        ScreenshotContext::settle(50);
    }
    if (deadline.hasExpired())
        context.fail(Tr::tr("the observed clients did not finish within 30 s"));
    // The gap window passes: the client that stopped after a failure is seen to give up.
    ScreenshotContext::settle(2000);
    auto *view = context.part<Ui::ClientsView>("clientsView");
    view->refresh();
    view->selectClient(QStringLiteral("checkout-service/2.3 @ 127.0.0.1"));
    // The tab has the window to itself: the docks come back afterwards.
    auto *policyDock = context.part<QDockWidget>("policyDock");
    auto *requestDock = context.part<QDockWidget>("requestDock");
    policyDock->hide();
    const bool requestShown = requestDock->isVisible();
    requestDock->hide();
    window.showTab(Ui::MainWindow::Tab::Clients);
    ScreenshotContext::settle(400);
    context.save(&window, QStringLiteral("clients.png"));
    view->selectClient(QStringLiteral("nightly-export/0.9 @ 127.0.0.1"));
    ScreenshotContext::settle(300);
    context.save(&window, QStringLiteral("clients-gave-up.png"));
    observation->setGapWindowMs(gapWindowMs);
    requestDock->setVisible(requestShown);
    policyDock->show();
    observation->setEnabled(false);
}

} // namespace RetryLab::App
