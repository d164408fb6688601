#include "app/importscreenshots.h"

#include "app/apptr.h"
#include "app/screenshotcontext.h"
#include "core/export/harexport.h"
#include "core/export/reportjson.h"
#include "ui/import/curlimportdialog.h"
#include "ui/import/harimportdialog.h"
#include "ui/import/postmanimportdialog.h"
#include "ui/importcontroller.h"
#include "ui/mainwindow.h"
#include "ui/openedrun.h"
#include "ui/run/timelineview.h"
#include "ui/session/run/runsession.h"

#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QWidget>

namespace RetryLab::App {

void saveImportScreenshots(ScreenshotContext &context)
{
    Ui::MainWindow &window = context.window();
    auto *imports = context.part<Ui::ImportController>("imports");

    // A command as documentation pages show it: continued lines, --retry flags,
    // an option curl has that RetryLab does not carry out, and one that only changes curl's output.
    Ui::CurlImportDialog *curl = imports->importCurl();
    curl->setCommandLine(QStringLiteral("curl -X POST https://api.example.com/v1/orders \\\n"
                                        "  -H 'Content-Type: application/json' \\\n"
                                        "  -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.demo' \\\n"
                                        "  -d '{\"sku\": \"A-1\", \"qty\": 2}' \\\n"
                                        "  --retry 5 --retry-delay 2 --retry-max-time 60 \\\n"
                                        "  --digest -sS --compressed"));
    curl->setAppliesPolicy(true);
    ScreenshotContext::settle(250);
    context.save(curl, QStringLiteral("import-curl.png"));
    curl->reject();

    // The demo run as a HAR file, as RetryLab's export writes it, picked from.
    const Core::RunRecord run = context.part<Ui::RunSession>("session")->runRecord();
    const QString har = context.scratchPath(QStringLiteral("demo-run.har"));
    if (const auto written = Core::HarExport::writeFile(har, run); !written) {
        context.fail(Tr::tr("could not write the demo HAR: %1").arg(written.error()));
    } else if (const auto dialog = imports->openHar(har); !dialog) {
        context.fail(Tr::tr("could not read the demo HAR back: %1").arg(dialog.error()));
    } else {
        Ui::HarImportDialog *picker = *dialog;
        picker->selectEntries({1, 3, 4});
        ScreenshotContext::settle(250);
        context.save(picker, QStringLiteral("import-har.png"));
        picker->reject();
        imports->importedDock()->hide();
    }

    // A small Postman collection with an environment that leaves one variable out.
    const QString collectionPath = context.scratchPath(QStringLiteral("shop.postman_collection.json"));
    const QString environmentPath = context.scratchPath(QStringLiteral("staging.postman_environment.json"));
    {
        QFile collection(collectionPath);
        QFile environment(environmentPath);
        if (collection.open(QIODevice::WriteOnly) && environment.open(QIODevice::WriteOnly)) {
            collection.write(R"PM({"info": {"name": "Shop API",
  "schema": "https://schema.getpostman.com/json/collection/v2.1.0/collection.json"},
  "variable": [{"key": "baseUrl", "value": "https://{{host}}/v2"}],
  "auth": {"type": "bearer", "bearer": [{"key": "token", "value": "{{token}}"}]},
  "item": [
    {"name": "Health", "request": {"method": "GET", "url": "{{baseUrl}}/health"}},
    {"name": "Orders", "item": [
      {"name": "List orders", "request": {"method": "GET", "url": "{{baseUrl}}/orders?page=1"}},
      {"name": "Create order", "request": {"method": "POST", "header": [{"key": "Idempotency-Key", "value": "{{orderKey}}"}],
        "body": {"mode": "raw", "raw": "{\"sku\": \"A-1\"}", "options": {"raw": {"language": "json"}}},
        "url": "{{baseUrl}}/orders"}},
      {"name": "Cancel order", "request": {"method": "DELETE", "url": "{{baseUrl}}/orders/7"}}]}]})PM");
            environment.write(R"PM({"name": "Staging", "values": [
  {"key": "host", "value": "staging.shop.example.com", "enabled": true},
  {"key": "token", "value": "t0k3n", "enabled": true}]})PM");
        }
    }
    if (const auto dialog = imports->openPostman(collectionPath); !dialog) {
        context.fail(Tr::tr("could not read the demo collection: %1").arg(dialog.error()));
    } else {
        Ui::PostmanImportDialog *picker = *dialog;
        if (const auto set = picker->setEnvironmentFile(environmentPath); !set)
            context.fail(Tr::tr("could not read the demo environment: %1").arg(set.error()));
        picker->selectRequests({1, 2});
        ScreenshotContext::settle(250);
        context.save(picker, QStringLiteral("import-postman.png"));
        picker->reject();
    }

    // The demo run's JSON report, opened: the views show it, with the banner.
    const QString report = context.scratchPath(QStringLiteral("demo-run.json"));
    auto *openedRun = context.part<Ui::OpenedRun>("openedRun");
    if (const auto written = Core::ReportJson::writeFile(report, run); !written) {
        context.fail(Tr::tr("could not write the demo report: %1").arg(written.error()));
    } else if (const auto opened = openedRun->open(report); !opened) {
        context.fail(Tr::tr("could not open the demo report: %1").arg(opened.error()));
    } else {
        auto *policyDock = context.part<QDockWidget>("policyDock");
        policyDock->hide();
        window.showTab(Ui::MainWindow::Tab::Timeline);
        context.part<Ui::TimelineView>("timeline")->zoomToFit();
        ScreenshotContext::settle(400);
        context.save(&window, QStringLiteral("openrun.png"));
        openedRun->close();
        policyDock->show();
    }
}

} // namespace RetryLab::App
