#pragma once

#include <QCoreApplication>

namespace RetryLab::Cli {

/// The translation context of the command-line tools: Tr::tr("..."), filed by
/// lupdate under "RetryLab::Cli".
struct Tr
{
    Q_DECLARE_TR_FUNCTIONS(RetryLab::Cli)
};

} // namespace RetryLab::Cli
