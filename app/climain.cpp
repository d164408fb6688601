#include "app/cli/commandline.h"

// retrylab-cli: RetryLab's headless commands in a binary that links no Qt Gui,
// Widgets or Charts module, for machines without a display (CI containers).
int main(int argc, char *argv[])
{
    RetryLab::Cli::CommandLine line;
    line.program = QStringLiteral("retrylab-cli");
    return line.exec(argc, argv);
}
