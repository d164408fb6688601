#pragma once

#include <QByteArrayView>

namespace RetryLab::Core {

/// Whether two header field names (or other tokens: "close", "chunked") are the same in
/// any case: the answer of QByteArrayView::compare() with Qt::CaseInsensitive. Compared
/// in place, the lengths first: the proxies compare a dozen names a request, and
/// qstrnicmp() costs some 140 instructions a call where an ASCII name takes a few a byte.
inline bool sameFieldName(QByteArrayView name, QByteArrayView other)
{
    if (name.size() != other.size())
        return false;
    for (qsizetype i = 0; i < name.size(); ++i) {
        const char a = name[i];
        const char b = other[i];
        if (a == b)
            continue;
        const char lower = char(a | 0x20);
        if (lower == char(b | 0x20) && lower >= 'a' && lower <= 'z')
            continue;
        // Qt folds the letters of Latin-1 beyond ASCII as well: those are left to it.
        if ((static_cast<unsigned char>(a) | static_cast<unsigned char>(b)) >= 0x80)
            return name.sliced(i).compare(other.sliced(i), Qt::CaseInsensitive) == 0;
        return false;
    }
    return true;
}

} // namespace RetryLab::Core
