#include "app/importscreenshots.h"

#include "app/apptr.h"
#include "core/export/harexport.h"
#include "core/export/reportjson.h"
#include "ui/import/curlimportdialog.h"
#include "ui/import/harimportdialog.h"
#include "ui/importcontroller.h"
#include "ui/mainwindow.h"
#include "ui/openedrun.h"
#include "ui/run/timelineview.h"
#include "ui/session/runsession.h"

#include <QDir>
#include <QDockWidget>
#include <QWidget>

namespace RetryLab::App {

QStringList saveImportScreenshots(Ui::MainWindow &window, const QString &scratchDirectory,
    const std::function<void(QWidget *, const QString &)> &save, const std::function<void(int)> &settle)
{
    QStringList problems;
    const QDir scratch(scratchDirectory);

    // A command as documentation pages show it: continued lines, --retry flags,
    // an option curl has that RetryLab does not carry out, and one that only changes curl's output.
    Ui::CurlImportDialog *curl = window.imports()->importCurl();
    curl->setCommandLine(QStringLiteral("curl -X POST https://api.example.com/v1/orders \\\n"
                                        "  -H 'Content-Type: application/json' \\\n"
                                        "  -H 'Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.demo' \\\n"
                                        "  -d '{\"sku\": \"A-1\", \"qty\": 2}' \\\n"
                                        "  --retry 5 --retry-delay 2 --retry-max-time 60 \\\n"
                                        "  --digest -sS --compressed"));
    curl->setAppliesPolicy(true);
    settle(250);
    save(curl, QStringLiteral("import-curl.png"));
    curl->reject();

    // The demo run as a HAR file, as RetryLab's export writes it, picked from.
    const Core::RunRecord run = window.session()->runRecord();
    const QString har = scratch.filePath(QStringLiteral("demo-run.har"));
    if (const auto written = Core::HarExport::writeFile(har, run); !written) {
        problems.append(Tr::tr("could not write the demo HAR: %1").arg(written.error()));
    } else if (const auto dialog = window.imports()->openHar(har); !dialog) {
        problems.append(Tr::tr("could not read the demo HAR back: %1").arg(dialog.error()));
    } else {
        Ui::HarImportDialog *picker = *dialog;
        picker->selectEntries({1, 3, 4});
        settle(250);
        save(picker, QStringLiteral("import-har.png"));
        picker->reject();
        window.imports()->importedDock()->hide();
    }

    // The demo run's JSON report, opened: the views show it, with the banner.
    const QString report = scratch.filePath(QStringLiteral("demo-run.json"));
    if (const auto written = Core::ReportJson::writeFile(report, run); !written) {
        problems.append(Tr::tr("could not write the demo report: %1").arg(written.error()));
    } else if (const auto opened = window.openedRun()->open(report); !opened) {
        problems.append(Tr::tr("could not open the demo report: %1").arg(opened.error()));
    } else {
        window.policyDock()->hide();
        window.showTab(Ui::MainWindow::Tab::Timeline);
        window.timelineView()->zoomToFit();
        settle(400);
        save(&window, QStringLiteral("openrun.png"));
        window.openedRun()->close();
        window.policyDock()->show();
    }
    return problems;
}

} // namespace RetryLab::App
