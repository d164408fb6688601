#include "app/cli/headlessapplication.h"

#include "app/cli/interruptwatcher.h"
#include "core/runtime/memorylimit.h"

#include <new>

namespace RetryLab::Cli {

HeadlessApplication::HeadlessApplication(int &argc, char **argv) : QCoreApplication(argc, argv)
{
    // Without a limit an allocation hardly fails (Linux overcommits): nothing is set aside.
    if (Core::MemoryLimit::addressSpaceLimit() >= 0)
        Core::MemoryLimit::setReserve(reserveBytes);
}

bool HeadlessApplication::notify(QObject *receiver, QEvent *event)
{
    try {
        return QCoreApplication::notify(receiver, event);
    } catch (const std::bad_alloc &) {
        // The handler that failed is abandoned; the command winds down with the reserve.
        if (Core::MemoryLimit::noteExhausted())
            InterruptWatcher::noteOutOfMemory();
        return false;
    }
}

} // namespace RetryLab::Cli
