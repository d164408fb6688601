#pragma once

#include "core/faultserver/endpointcatalog.h"
#include "core/faultserver/faultinstruction.h"
#include "core/faultserver/oauthendpoints.h"
#include "core/faultserver/scriptedtests.h"
#include "core/faultserver/tlsfault.h"
#include "core/http/httprequestparser.h"
#include "core/http/serverlogentry.h"
#include "core/util/result.h"

#include <QByteArray>
#include <QHostAddress>
#include <QList>
#include <QObject>
#include <QSslCertificate>
#include <QString>
#include <QStringList>
#include <QUrl>

#include <functional>
#include <memory>
#include <optional>

namespace RetryLab::Core {

class Clock;
class FaultServerPrivate;

/// How a FaultServer listens and what it tolerates. Validated by listen().
struct FaultServerOptions
{
    /// Loopback by default; any other address needs allowNonLoopback.
    QHostAddress address = QHostAddress(QHostAddress::LocalHost);
    quint16 port = 0; ///< 0: an ephemeral port chosen by the system
    /// The server executes scripted faults for whoever connects: exposing it
    /// beyond this machine must be asked for, and is warned about.
    bool allowNonLoopback = false;
    /// Connections served at once (1-100000). Beyond that a connection gets
    /// "503 Service Unavailable" with Retry-After and is closed.
    int maxConnections = 2048;
    /// A connection with no request in progress is closed after this long
    /// (100 ms-1 h); a request left half-sent gets "408 Request Timeout". A TLS
    /// handshake that takes longer is dropped (logged as "tls-timeout").
    int idleTimeoutMs = 30'000;
    /// A request's header section must be complete this long after its first
    /// byte (100 ms-1 h), however steadily it trickles in: a client sending a
    /// byte every few seconds (slowloris) gets "408 Request Timeout" and a close.
    int headerTimeoutMs = 10'000;
    /// A body must arrive at this rate at least (bytes per second, 0: no
    /// minimum), measured over each period of headerTimeoutMs; slower gets 408.
    qint64 minBodyBytesPerSecond = 16 * 1024;
    /// Seed of the generator behind /fail?p=, /delay?dist= and friends.
    quint64 seed = 0x5EEDULL;
    /// Log entries kept for log() and GET /_control/log (1-1000000); older ones are dropped.
    int logCapacity = 10'000;
    /// Largest request body accepted (413 beyond it).
    qint64 maxBodyBytes = 8 * 1024 * 1024;
    /// Request bytes all connections together may hold before they are
    /// answered (64 KiB-64 GiB): beyond it, a connection that sends more gets
    /// "503 Service Unavailable" with Retry-After and is closed. Each
    /// connection holds at most maxBodyBytes plus a 64 KiB header section, and
    /// at most 1 MiB of answers its client has not read.
    qint64 maxHeldBytes = 256 * 1024 * 1024;
    /// Credentials in request targets (?token=, ?api_key=, user:password@) are
    /// masked in the log, requestHandled() and GET /_control/log, as
    /// core/redactor.h describes. Off only when asked for (retrylab serve --no-redact).
    bool redactLog = true;
    /// Scripted tests held at once (1-1000000); createTest() refuses more until
    /// some are deleted (deleteTest(), DELETE /_control/tests/{id}) or the server is reset.
    int maxTests = 10'000;
    /// Bytes the Cloud Storage API (/storage/v1, /upload/storage/v1) keeps for its
    /// objects and unfinished uploads together (1 MiB-64 GiB); beyond it an upload
    /// gets 507 (413 when it alone is larger). Retry tests (POST /retry_test)
    /// count against maxTests, apart from the scripted tests.
    qint64 maxStorageBytes = 64LL * 1024 * 1024;

    /// Serve HTTPS too, on this port of the same address (0: one the system
    /// chooses), with every endpoint of the HTTP port; and one more port per
    /// TlsFault, on ports the system chooses. Off when empty.
    std::optional<quint16> httpsPort;
    /// The certificate the HTTPS port presents: PEM files, the certificate
    /// first and then its chain, and its private key (decrypted with
    /// tlsKeyPassphrase when it is encrypted). Both empty: a certificate
    /// generated at each listen(), signed by a CA generated with it. Used only
    /// with httpsPort; listen() names the file when one cannot be used.
    QString tlsCertificateFile;
    QString tlsKeyFile;
    QByteArray tlsKeyPassphrase;
};

/// RetryLab's embedded HTTP/1.1 server that fails on purpose, so that retries
/// can be watched against real faults on loopback: chosen statuses, delays,
/// failures per key, rate limits, connection resets, empty and broken
/// responses, garbage, stalls, slow bodies, a read-modify-write resource and an
/// eventually consistent one, and scripted sequences of such steps per test id.
/// Built on QTcpServer/QTcpSocket because several faults need the raw socket.
///
/// The parts, along the seams of qBittorrent's src/base/http: this class
/// accepts connections, holds the options and answers for the threads; a
/// Connection per socket parses requests and executes ResponsePlans;
/// FaultEndpoints and ControlEndpoints turn requests into plans without a
/// socket; ScriptedTests and ServerLog keep the scripts and the log.
///
/// Endpoints (endpoints() has the full list with parameters; every number is
/// bounded and a bad one gets 400 with a message):
///   /status/{code}  /delay/{ms}  /fail/{n}?key=K  /fault/{reset,empty,stall,
///   broken,garbage,drip}  /ratelimit  /occ/{name}  /eventual/{name}
///   POST /_control/tests, GET|DELETE /_control/tests/{id}, GET /_control/log, POST /_control/reset
///   Cloud Storage's JSON API and retry test API (StorageEndpoints): /storage/v1/...,
///   /upload/storage/v1/..., POST /retry_test, GET|DELETE /retry_test/{id}
///   GET /_control/ca.pem, GET /_control/tls, POST|DELETE /_control/tls/handshakes
///   OAuth 2.0 (OAuthEndpoints): POST /oauth/token, GET /oauth/authorize,
///   GET /oauth/protected, GET /oauth/service-account-key
///
/// HTTPS (FaultServerOptions::httpsPort): a second port serves every endpoint
/// over TLS with a certificate made at listen() (CertificateFactory) and
/// signed by a CA made with it, which clients may trust on purpose
/// (caCertificate(), GET /_control/ca.pem). TLS faults happen before any HTTP,
/// so they are chosen per connection: each TlsFault has a port of its own
/// (tlsFaultUrl()), and the HTTPS port's handshake script
/// (setHandshakeScript()) gives its next connections chosen faults in order,
/// so that a client can be seen failing a handshake, retrying and succeeding.
///
/// Scripted tests: createTest() (or POST /_control/tests) stores a list of
/// FaultInstruction steps and returns an id; each request with the header
/// "X-Retry-Test-Id: <id>" uses the next step. When a request also carries
/// "X-Retry-Request-Id" and "X-Retry-Attempt" and that pair was served before,
/// it gets the same step again without using a new one: that is the client's
/// HTTP library resending the same attempt (Qt resends a request up to three
/// times when a connection closes before the status line), and counting it
/// would make scripts depend on the library's internals.
///
/// Threads: the object may live in a worker thread. listen(), close(),
/// setOptions(), setClock(), connectionCount() and peakConnectionCount() must
/// be called on the server's own thread; everything else (createTest(),
/// consumedInstructions(), testStatus(), reset(), log(), baseUrl(),
/// httpsBaseUrl(), tlsFaultUrl(), caCertificate(), setHandshakeScript(), ...)
/// is safe from any thread. requestHandled() is emitted on the server's thread.
class FaultServer final : public QObject
{
    Q_OBJECT

public:
    explicit FaultServer(QObject *parent = nullptr);
    explicit FaultServer(const FaultServerOptions &options, QObject *parent = nullptr);
    ~FaultServer() override;

    // --- server thread only ---
    /// Takes effect at the next listen().
    void setOptions(const FaultServerOptions &options);
    /// Time for log stamps, rate-limit refills, eventual visibility and
    /// Retry-After dates (waits themselves run on QTimer). Not owned; it must
    /// outlive the server. nullptr restores the steady clock.
    void setClock(const Clock *clock);
    /// Starts listening as the options say; false with errorString() on failure
    /// (invalid options, a non-loopback address without allowNonLoopback, bind
    /// errors, a TLS certificate or key file that cannot be used). With HTTPS it
    /// makes new certificates and keys first; on any failure nothing listens.
    bool listen();
    /// Stops listening (HTTP and HTTPS) and drops every connection.
    void close();
    int connectionCount() const;
    int peakConnectionCount() const;
    /// Connections served at once: FaultServerOptions::maxConnections, or
    /// fewer when the file descriptors left at listen() allow fewer.
    int connectionLimit() const;

    /// Sees each request before it is answered, except those to /_control/:
    /// the request and its log entry, whose hookTag it may set to find the
    /// entry again in requestHandled(). It may return the step that a request
    /// to any path but the endpoints' gets (instead of 404); the endpoints keep
    /// answering as they do, and a scripted test (X-Retry-Test-Id) still
    /// decides first. Called on the server's thread; it must not block.
    using RequestHook = std::function<std::optional<FaultInstruction>(const HttpRequest &, ServerLogEntry &)>;
    /// Replaces the hook; an empty function removes it.
    void setRequestHook(RequestHook hook);

    // --- any thread ---
    FaultServerOptions options() const;
    bool isListening() const;
    QString errorString() const;
    /// "http://127.0.0.1:PORT" (a wildcard address is reached through loopback).
    QUrl baseUrl() const;
    quint16 serverPort() const;

    /// "https://127.0.0.1:PORT"; empty while HTTPS is off.
    QUrl httpsBaseUrl() const;
    /// The base URL of the port of `fault` (TlsFault::Pass: httpsBaseUrl()); empty while HTTPS is off.
    QUrl tlsFaultUrl(TlsFault fault) const;
    /// The CA made at listen() that signs the HTTPS port's certificate (unless
    /// the options gave one) and those of the expired and wrong-host faults;
    /// null while HTTPS is off. A client that trusts it reaches the HTTPS port.
    QSslCertificate caCertificate() const;
    /// What GET /_control/ca.pem serves: the CA and, with a certificate given in
    /// the options, the last certificate of its file; empty while HTTPS is off.
    QByteArray trustAnchorsPem() const;
    /// Replaces the HTTPS port's handshake script: its next connections take the
    /// steps in order (TlsFaults names, "step*K" repeats), then get `pass`
    /// again. The script is shared by every client. An empty list clears it;
    /// the error names a bad step.
    Result<void> setHandshakeScript(const QStringList &steps);
    /// The steps of the handshake script not used yet.
    QStringList handshakeScript() const;

    /// Stores a script and returns its id, or why it was refused (a bad step,
    /// no step, the server full).
    Result<QString> createTest(const QStringList &instructions);
    /// Steps of the test used so far; -1 for an unknown id.
    int consumedInstructions(const QString &id) const;
    std::optional<ScriptedTestStatus> testStatus(const QString &id) const;
    /// Forgets a scripted test, so that its place and steps count no more; false for an unknown id.
    bool deleteTest(const QString &id);
    /// Scripted tests held now.
    int testCount() const;
    /// Reseeds the generator behind /fail?p=, /delay?dist= and friends (thread-safe):
    /// a run that reseeds the server with its own seed meets the same random
    /// answers when it is replayed with that seed.
    void reseed(quint64 seed);
    /// Forgets keys, scripts (the handshake script too), resources, rate-limit
    /// buckets and the log, and reseeds the generator. Connections stay open;
    /// sequence numbers go on; the certificates stay until the next listen().
    void reset();
    /// The clients the token endpoint (POST /oauth/token) knows, replacing
    /// OAuthEndpoints::defaultClients(); the error names a client without an id
    /// or one given twice.
    Result<void> setOAuthClients(const QList<OAuthClient> &clients);
    QList<OAuthClient> oauthClients() const;
    /// Trusts JWT bearer assertions issued by `clientEmail` and signed (RS256)
    /// by the key of `publicKeyPem` (PUBLIC KEY or CERTIFICATE): for a test
    /// that brings a service-account key of its own.
    Result<void> addServiceAccount(const QString &clientEmail, const QByteArray &publicKeyPem);
    /// A Google-format service-account key file (private key included) that
    /// the token endpoint accepts assertions of, its token_uri this server's
    /// /oauth/token (what GET /oauth/service-account-key serves). The key is
    /// made at the first call and kept for the server's life.
    Result<QByteArray> serviceAccountKeyFile() const;
    /// A snapshot of the log, oldest first.
    QList<ServerLogEntry> log() const;
    /// Requests handled since the server was made.
    quint64 handledCount() const;

    static QList<FaultServerEndpoint> endpoints();
    static QList<FaultInstruction::Syntax> instructionGrammar() { return FaultInstruction::grammar(); }
    /// Endpoints and instructions as plain text, for --help and GET /.
    static QString usageText();

Q_SIGNALS:
    /// One per request handled, and per connection turned away or cut off.
    void requestHandled(const RetryLab::Core::ServerLogEntry &entry);

private:
    friend class FaultServerPrivate;
    std::unique_ptr<FaultServerPrivate> m_d;
};

} // namespace RetryLab::Core
