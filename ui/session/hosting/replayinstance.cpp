#include "ui/session/hosting/replayinstance.h"

#include "core/proxy/replayserver.h"

#include <QCoreApplication>

namespace RetryLab::Ui {

using namespace RetryLab::Core;

ReplayInstance::ReplayInstance(QObject *parent) : QObject(parent)
{
    m_thread.setObjectName(QStringLiteral("replay"));
}

ReplayInstance::~ReplayInstance()
{
    stop();
}

bool ReplayInstance::start(const QString &directory, bool recordedTiming)
{
    stop();
    auto recording = Recording::read(directory);
    if (!recording) {
        m_error = recording.error();
        return false;
    }
    m_recorded = int(recording->exchanges().size());
    ReplayServer::Options options;
    options.recordedTiming = recordedTiming;
    auto *server = new ReplayServer(std::move(recording).value(), options);
    if (!server->listen()) {
        m_error = server->errorString();
        delete server;
        return false;
    }
    m_error.clear();
    m_directory = server->recording().directory();
    m_baseUrl = server->baseUrl();
    connect(server, &ReplayServer::requestHandled, this, &ReplayInstance::requestHandled);
    m_server = server;
    m_thread.start();
    server->moveToThread(&m_thread);
    Q_EMIT runningChanged(true);
    return true;
}

void ReplayInstance::stop()
{
    if (!m_server)
        return;
    ReplayServer *server = m_server;
    QMetaObject::invokeMethod(
        server, [server] { delete server; }, Qt::BlockingQueuedConnection);
    m_server = nullptr;
    m_thread.quit();
    m_thread.wait();
    QCoreApplication::sendPostedEvents(this, QEvent::MetaCall);
    m_baseUrl.clear();
    Q_EMIT runningChanged(false);
}

} // namespace RetryLab::Ui
