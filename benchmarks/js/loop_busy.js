'use strict'
// How busy the event loop of this Node process has been: the share of wall time it spent running code (1.0: it
// never waited for anything, so whatever asks it something queues). CPU share alone cannot tell that on a loaded
// machine, where a saturated process gets less than a core.

const { performance } = require('perf_hooks')

let mark = performance.eventLoopUtilization()

// The share since the previous call (or since this file was loaded).
function loopBusySince () {
  const now = performance.eventLoopUtilization()
  const share = performance.eventLoopUtilization(now, mark).utilization
  mark = now
  return share
}

module.exports = { loopBusySince }
