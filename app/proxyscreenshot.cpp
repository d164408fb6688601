#include "app/proxyscreenshot.h"

#include "app/apptr.h"
#include "app/screenshotcontext.h"
#include "core/executor/retryexecutor.h"
#include "core/proxy/faultrule.h"
#include "ui/proxy/proxyview.h"
#include "ui/session/hosting/embeddedserver.h"
#include "ui/session/hosting/proxyinstance.h"

#include <QDeadlineTimer>
#include <QDockWidget>
#include <QTabWidget>

#include <memory>

namespace RetryLab::App {

void saveProxyScreenshot(ScreenshotContext &context)
{
    Ui::MainWindow &window = context.window();
    if (!window.server()->isRunning()) {
        context.fail(Tr::tr("the embedded server does not run, so the proxy has no upstream for proxy.png"));
        return;
    }
    auto *view = context.part<Ui::ProxyView>("proxy");
    Ui::ProxySettings settings;
    settings.name = QStringLiteral("orders-api");
    settings.upstream = window.server()->baseUrl();
    const auto rules = Core::FaultRuleList::fromSpecs({QStringLiteral("status=503 retry-after=0.2 p=0.4 name=flaky"),
        QStringLiteral("latency=lognormal:40:0.5 name=slow-network"),
        QStringLiteral("reset=before every=7 name=drops off")});
    if (!rules) {
        context.fail(Tr::tr("the proxy's rules for proxy.png do not read: %1").arg(rules.error()));
        return;
    }
    settings.rules = *rules;
    settings.rules.seed = 7;
    view->setProxies({settings});
    Ui::ProxyInstance *proxy = view->currentProxy();
    if (!proxy || !proxy->start()) {
        context.fail(Tr::tr("the proxy for proxy.png did not start: %1").arg(proxy ? proxy->errorString() : QString()));
        return;
    }

    Core::BackoffPolicy policy;
    policy.algorithm = Core::BackoffAlgorithm::FullJitter;
    policy.baseDelayMs = 100;
    policy.multiplier = 2;
    policy.maxBackoffMs = 2000;
    policy.maxAttempts = 5;
    Core::RetryExecutor executor;
    executor.setPolicy(policy);
    executor.setSeed(5);
    executor.setConcurrencyLimit(4);
    for (int i = 0; i < 12; ++i) {
        Core::RequestSpec spec;
        spec.url = proxy->listenUrl().resolved(QUrl(QStringLiteral("/status/200?order=%1").arg(i)));
        spec.headers = {{"User-Agent", "mobile-app/5.2"}};
        executor.submit(spec);
    }
    const QDeadlineTimer deadline(30'000);
    while (!deadline.hasExpired() && executor.activeCount() > 0)
        ScreenshotContext::settle(50);
    if (deadline.hasExpired())
        context.fail(Tr::tr("the client behind the proxy did not finish within 30 s"));
    ScreenshotContext::settle(300);
    // The client is done: a logical request whose last attempt failed ended there.
    proxy->finishObserved();
    view->refresh();
    // The tab has the window to itself, its lanes showing: the docks come back afterwards.
    auto *policyDock = context.part<QDockWidget>("policyDock");
    auto *requestDock = context.part<QDockWidget>("requestDock");
    policyDock->hide();
    const bool requestShown = requestDock->isVisible();
    requestDock->hide();
    window.showTab(Ui::MainWindow::Tab::Proxy);
    if (auto *lanes = view->findChild<QTabWidget *>(QStringLiteral("proxyLanes")))
        lanes->setCurrentIndex(0);
    if (auto *bottom = view->findChild<QTabWidget *>(QStringLiteral("proxyBottom")))
        bottom->setCurrentIndex(1);
    ScreenshotContext::settle(400);
    context.save(&window, QStringLiteral("proxy.png"));
    requestDock->setVisible(requestShown);
    policyDock->show();
    proxy->stop();
}

} // namespace RetryLab::App
