#pragma once

#include <QCoreApplication>

namespace RetryLab::Core {

/// The translation context of the core library, for code outside a QObject:
/// Tr::tr("...") (Qt Creator's <plugin>tr.h idiom). lupdate files every string
/// of core/ under "RetryLab::Core".
struct Tr
{
    Q_DECLARE_TR_FUNCTIONS(RetryLab::Core)
};

} // namespace RetryLab::Core
