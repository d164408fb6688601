#pragma once

#include "core/herd/herdparameters.h"

namespace RetryLab::Bench {

// A million clients after an outage, the two ways users ask it: all of them
// reconnecting at once to a server that serves 100,000 a second, and a stream of
// 100,000 a second into a server that is down from 2 s to 12 s.
inline Core::HerdParameters millionClients(Core::HerdModel model)
{
    using namespace Core;
    HerdParameters p = HerdParameters::defaultsFor(model);
    p.clientCounts = {1'000'000};
    p.runs = 1;
    p.seed = 20261128;
    p.baseDelayMs = 100.0;
    p.jitterMs = 100.0;
    p.maxBackoffMs = 20'000.0;
    p.queueCapacity = 10'000;
    p.binMs = 100.0;
    if (model == HerdModel::Outage) {
        p.arrivals = ArrivalMode::Poisson;
        p.arrivalRatePerSec = 100'000.0;
        p.serviceRatePerSec = 150'000.0;
        p.outageStartMs = 2'000.0;
        p.outageEndMs = 12'000.0;
    } else {
        p.arrivals = ArrivalMode::Herd;
        p.serviceRatePerSec = 100'000.0;
    }
    return p;
}

} // namespace RetryLab::Bench
