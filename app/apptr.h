#pragma once

#include <QCoreApplication>

namespace RetryLab::App {

/// The translation context of the window application's own commands: Tr::tr("...").
struct Tr
{
    Q_DECLARE_TR_FUNCTIONS(RetryLab::App)
};

} // namespace RetryLab::App
