#include "app/cli/interruptwatcher.h"

#include <QSocketNotifier>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <iterator>

#if defined(Q_OS_UNIX)
#include <sys/socket.h>
#include <unistd.h>
#endif

namespace RetryLab::Cli {

namespace {

#if defined(Q_OS_UNIX)
// A signal handler may only do async-signal-safe things: it writes a byte
// that the notifier reads on the event loop.
int fds[2] = {-1, -1};
// The write end for noteOutOfMemory(), which any thread may call while the watcher goes.
std::atomic<int> memoryFd{-1};

// Ctrl+C, kill, and the terminal closing (SIGHUP, as when an ssh session drops): each
// ends the run as Ctrl+C does, with what was recorded printed and written.
constexpr int interruptions[] = {SIGINT, SIGTERM, SIGHUP};

constexpr char signalByte = 1;
constexpr char memoryByte = 2;

void forward(int)
{
    [[maybe_unused]] const auto written = ::write(fds[0], &signalByte, 1);
}

void restoreDefaults()
{
    struct sigaction action = {};
    action.sa_handler = SIG_DFL;
    sigemptyset(&action.sa_mask);
    for (int signal : interruptions)
        ::sigaction(signal, &action, nullptr);
}
#endif

} // namespace

InterruptWatcher::InterruptWatcher(QObject *parent) : QObject(parent)
{
#if defined(Q_OS_UNIX)
    if (fds[0] >= 0 || ::socketpair(AF_UNIX, SOCK_STREAM, 0, fds) != 0)
        return;
    auto *notifier = new QSocketNotifier(fds[1], QSocketNotifier::Read, this);
    connect(notifier, &QSocketNotifier::activated, this, [this, notifier] {
        char byte = 0;
        [[maybe_unused]] const auto got = ::read(fds[1], &byte, 1);
        m_outOfMemory = byte == memoryByte;
        notifier->setEnabled(false);
        restoreDefaults(); // the next Ctrl+C ends the process
        Q_EMIT interrupted();
    });
    struct sigaction action = {};
    action.sa_handler = forward;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_RESTART;
    m_active = std::all_of(std::begin(interruptions), std::end(interruptions),
        [&action](int signal) { return ::sigaction(signal, &action, nullptr) == 0; });
    memoryFd.store(fds[0]);
#endif
}

void InterruptWatcher::noteOutOfMemory()
{
#if defined(Q_OS_UNIX)
    if (const int fd = memoryFd.load(); fd >= 0) {
        [[maybe_unused]] const auto written = ::write(fd, &memoryByte, 1);
    }
#endif
}

InterruptWatcher::~InterruptWatcher()
{
#if defined(Q_OS_UNIX)
    if (fds[0] < 0)
        return;
    restoreDefaults();
    memoryFd.store(-1);
    ::close(fds[0]);
    ::close(fds[1]);
    fds[0] = fds[1] = -1;
#endif
}

} // namespace RetryLab::Cli
