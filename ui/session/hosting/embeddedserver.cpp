#include "ui/session/hosting/embeddedserver.h"

#include "core/runtime/workerthread.h"
#include "core/util/exportfile.h"

#include <QDateTime>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QList>
#include <QLoggingCategory>
#include <QMutexLocker>
#include <QSslCertificate>
#include <QStandardPaths>
#include <QThread>

namespace {
Q_LOGGING_CATEGORY(lcEmbeddedServer, "retrylab.ui.embeddedserver")
} // namespace

namespace RetryLab::Ui {

EmbeddedServer::EmbeddedServer(QObject *parent) : QObject(parent)
{
    qRegisterMetaType<Core::ServerLogEntry>();
}

EmbeddedServer::~EmbeddedServer()
{
    stop();
}

bool EmbeddedServer::start(const Core::FaultServerOptions &options)
{
    stop();
    m_error.clear();
    m_options = options;

    auto *thread = new QThread;
    thread->setObjectName(QStringLiteral("fault-server"));
    auto *server = new Core::FaultServer(options);
    server->moveToThread(thread);
    // The server is deleted on its own thread, as the thread winds down.
    connect(thread, &QThread::finished, server, &QObject::deleteLater);
    bool listening = false;
    QString error;
    // Under a batch the server holds a thousand sockets: epoll, not a poll() of all at every turn.
    Core::startWorkerThread(*thread, server, [server, &listening, &error] {
        listening = server->listen();
        if (!listening)
            error = server->errorString();
    });

    if (!listening) {
        thread->quit();
        thread->wait();
        delete thread;
        m_error = error;
        qCWarning(lcEmbeddedServer) << "fault server did not start:" << error;
        return false;
    }

    m_thread = thread;
    m_server = server;
    // Handed over on the server's thread, taken here in batches (deliverHandled()).
    connect(
        server, &Core::FaultServer::requestHandled, this,
        [this](const Core::ServerLogEntry &entry) {
            bool first = false;
            {
                QMutexLocker lock(&m_relayMutex);
                first = m_relayed.empty();
                m_relayed.push_back(entry);
            }
            if (first)
                QMetaObject::invokeMethod(this, &EmbeddedServer::deliverHandled, Qt::QueuedConnection);
        },
        Qt::DirectConnection);
    qCDebug(lcEmbeddedServer) << "fault server listening on" << server->baseUrl().toString();
    writeCaFile();
    Q_EMIT runningChanged(true);
    return true;
}

void EmbeddedServer::deliverHandled()
{
    std::vector<Core::ServerLogEntry> entries;
    {
        QMutexLocker lock(&m_relayMutex);
        entries.swap(m_relayed);
    }
    for (const Core::ServerLogEntry &entry : entries)
        Q_EMIT requestHandled(entry);
}

void EmbeddedServer::stop()
{
    if (!m_thread)
        return;
    Q_EMIT aboutToStop();
    if (m_server) {
        disconnect(m_server, nullptr, this, nullptr);
        Core::FaultServer *server = m_server;
        QMetaObject::invokeMethod(
            server, [server] { server->close(); }, Qt::BlockingQueuedConnection);
    }
    m_thread->quit();
    m_thread->wait();
    delete m_thread;
    m_thread = nullptr;
    m_server = nullptr;
    qCDebug(lcEmbeddedServer) << "fault server stopped";
    Q_EMIT runningChanged(false);
}

QUrl EmbeddedServer::baseUrl() const
{
    return m_server ? m_server->baseUrl() : QUrl();
}

QUrl EmbeddedServer::httpsBaseUrl() const
{
    return m_server ? m_server->httpsBaseUrl() : QUrl();
}

bool EmbeddedServer::setHttpsPort(std::optional<quint16> port)
{
    Core::FaultServerOptions previous = m_options;
    if (m_server)
        previous.port = m_server->serverPort();
    Core::FaultServerOptions wanted = previous;
    wanted.httpsPort = port;
    if (start(wanted)) {
        m_httpsProblem.clear();
        return true;
    }
    const QString why = m_error;
    start(previous);
    m_error = why;
    return false;
}

bool EmbeddedServer::setHttpsCertificate(
    const QString &certificateFile, const QString &keyFile, const QByteArray &passphrase)
{
    Core::FaultServerOptions previous = m_options;
    if (m_server)
        previous.port = m_server->serverPort();
    Core::FaultServerOptions wanted = previous;
    if (!wanted.httpsPort)
        wanted.httpsPort = 0;
    wanted.tlsCertificateFile = certificateFile;
    wanted.tlsKeyFile = keyFile;
    wanted.tlsKeyPassphrase = passphrase;
    if (start(wanted)) {
        m_httpsProblem.clear();
        return true;
    }
    const QString why = m_error;
    start(previous);
    m_error = why;
    return false;
}

bool EmbeddedServer::startPreferringHttp(const Core::FaultServerOptions &options)
{
    m_httpsProblem.clear();
    if (start(options))
        return true;
    if (!options.httpsPort)
        return false;
    const QString first = m_error;
    if (!options.tlsCertificateFile.isEmpty() || !options.tlsKeyFile.isEmpty()) {
        Core::FaultServerOptions generated = options;
        generated.tlsCertificateFile.clear();
        generated.tlsKeyFile.clear();
        generated.tlsKeyPassphrase.clear();
        if (start(generated)) {
            m_httpsProblem
                = tr("Your certificate for the HTTPS port could not be used (%1); one was made for it.").arg(first);
            return true;
        }
    }
    Core::FaultServerOptions httpOnly = options;
    httpOnly.httpsPort.reset();
    if (!start(httpOnly)) {
        // Not HTTPS's fault: say the first reason.
        m_error = first;
        return false;
    }
    m_httpsProblem = tr("HTTPS could not start (%1); the server serves HTTP only.").arg(first);
    return true;
}

QString EmbeddedServer::defaultCaFilePath()
{
    return QDir(QStandardPaths::writableLocation(QStandardPaths::AppLocalDataLocation))
        .filePath(QStringLiteral("embedded-server-ca.pem"));
}

void EmbeddedServer::writeCaFile()
{
    m_caFile.clear();
    m_caFileError.clear();
    const QByteArray pem = m_server ? m_server->trustAnchorsPem() : QByteArray();
    if (pem.isEmpty())
        return;
    const QString path = defaultCaFilePath();
    QDir().mkpath(QFileInfo(path).absolutePath());

    // Other windows (and earlier starts) may have put their CA in the same file:
    // this one's comes first, the others stay (a request trusting the file keeps
    // working in every window open now), up to a few, never expired ones.
    QList<QSslCertificate> certificates = QSslCertificate::fromData(pem, QSsl::Pem);
    QFile existing(path);
    if (existing.open(QIODevice::ReadOnly)) {
        const QDateTime now = QDateTime::currentDateTimeUtc();
        for (const QSslCertificate &other : QSslCertificate::fromData(existing.readAll(), QSsl::Pem)) {
            if (certificates.size() >= maxTrustedCas)
                break;
            if (!certificates.contains(other) && other.expiryDate() > now)
                certificates.append(other);
        }
        existing.close();
    }
    QByteArray bundle;
    for (const QSslCertificate &certificate : std::as_const(certificates))
        bundle += certificate.toPem();
    if (const auto written = Core::ExportFile::write(path, bundle); !written) {
        m_caFileError
            = tr("The server's CA certificate could not be saved for requests to trust: %1").arg(written.error());
        qCWarning(lcEmbeddedServer).noquote() << m_caFileError;
        return;
    }
    m_caFile = path;
}

} // namespace RetryLab::Ui
