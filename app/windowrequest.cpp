#include "app/windowrequest.h"

#include "app/apptr.h"
#include "ui/fileopener.h"
#include "ui/mainwindow.h"
#include "ui/request/requestcomposer.h"

#include <QAction>
#include <QCommandLineParser>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QMessageBox>
#include <QMetaEnum>

namespace RetryLab::App {

namespace {

const QString newRequestAction = QStringLiteral("new-request");
const QString openRunAction = QStringLiteral("open-run");
const QString monitorsAction = QStringLiteral("monitors");

void logOpened(const QString &line)
{
    const QString path = qEnvironmentVariable("RETRYLAB_OPEN_LOG");
    if (path.isEmpty())
        return;
    QFile log(path);
    if (log.open(QIODevice::Append | QIODevice::Text))
        log.write(line.toUtf8() + '\n');
}

QJsonArray toArray(const QStringList &list)
{
    return QJsonArray::fromStringList(list);
}

QStringList toStringList(const QJsonValue &value)
{
    QStringList list;
    for (const QJsonValue &item : value.toArray())
        list.append(item.toString());
    return list;
}

} // namespace

QList<QCommandLineOption> WindowRequest::options()
{
    return {
        QCommandLineOption(newRequestAction, Tr::tr("Open the window at the request, its URL ready to type.")),
        QCommandLineOption(openRunAction, Tr::tr("Open the window and ask for a run (a JSON report) to open.")),
        QCommandLineOption(monitorsAction, Tr::tr("Open the window at the Monitors tab.")),
    };
}

WindowRequest WindowRequest::fromParser(const QCommandLineParser &parser)
{
    WindowRequest request;
    for (const QString &action : {newRequestAction, openRunAction, monitorsAction}) {
        if (parser.isSet(action))
            request.actions.append(action);
    }
    const QDir here = QDir::current();
    for (const QString &file : parser.positionalArguments())
        request.files.append(QDir::cleanPath(here.absoluteFilePath(file)));
    return request;
}

QByteArray WindowRequest::toJson() const
{
    return QJsonDocument(
        QJsonObject{{QStringLiteral("files"), toArray(files)}, {QStringLiteral("actions"), toArray(actions)}})
        .toJson(QJsonDocument::Compact);
}

std::optional<WindowRequest> WindowRequest::fromJson(const QByteArray &json)
{
    const QJsonDocument document = QJsonDocument::fromJson(json);
    if (!document.isObject())
        return std::nullopt;
    return WindowRequest{toStringList(document.object().value(QStringLiteral("files"))),
        toStringList(document.object().value(QStringLiteral("actions")))};
}

void WindowRequest::applyTo(Ui::MainWindow &window) const
{
    for (const QString &action : actions)
        logOpened(QStringLiteral("action\t") + action);
    if (actions.contains(monitorsAction))
        window.showTab(Ui::MainWindow::Tab::Monitors);
    if (actions.contains(newRequestAction)) {
        if (auto *dock = window.findChild<QDockWidget *>(QStringLiteral("requestDock"))) {
            dock->show();
            dock->raise();
        }
        if (auto *composer = window.findChild<Ui::RequestComposer *>(QStringLiteral("composer")))
            composer->focusUrl();
    }
    const QMetaEnum kinds = QMetaEnum::fromType<Ui::FileOpener::Kind>();
    for (const QString &file : files) {
        const auto opened = window.fileOpener()->open(file);
        if (opened) {
            logOpened(QString::fromLatin1(kinds.valueToKey(int(*opened))) + QLatin1Char('\t') + file);
            continue;
        }
        logOpened(QStringLiteral("error\t%1\t%2").arg(file, opened.error()));
        auto *box = new QMessageBox(QMessageBox::Warning, Tr::tr("File not opened"),
            Tr::tr("%1 was not opened: %2").arg(QDir::toNativeSeparators(file), opened.error()), QMessageBox::Ok,
            &window);
        box->setAttribute(Qt::WA_DeleteOnClose);
        box->open();
    }
    // Last: the file dialog of Open run is the one thing left waiting for the person.
    if (actions.contains(openRunAction)) {
        if (auto *open = window.findChild<QAction *>(QStringLiteral("openRun")))
            open->trigger();
    }
}

} // namespace RetryLab::App
