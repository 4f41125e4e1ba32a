'use strict'
// Diagnostics for operators:
// - `/mindpy_tps`: ticks per second over the last 10 s and how late the event loop ran (a server that
//   keeps up runs 20 ticks per second with little lag).
// - `/mindpy_fail`: makes a plugin throw outside any handler, to check that the server logs it and keeps
//   running (a broken plugin must not take the world down).

const WINDOW_MS = 10000

module.exports.server = function (serv) {
  const ticks = []
  const lags = []
  serv.on('tick', () => {
    const now = Date.now()
    ticks.push(now)
    while (ticks.length && ticks[0] < now - WINDOW_MS) ticks.shift()
  })
  let expected = Date.now() + 100
  setInterval(() => {
    const now = Date.now()
    lags.push(Math.max(0, now - expected))
    if (lags.length > 100) lags.shift()
    expected = now + 100
  }, 100).unref()

  serv.once('pluginsReady', () => {
    serv.commands.add({
      base: 'mindpy_tps',
      info: 'Ticks per second over the last 10 s, and event loop lag',
      usage: '/mindpy_tps',
      op: true,
      action () {
        const span = ticks.length > 1 ? (ticks[ticks.length - 1] - ticks[0]) / 1000 : 0
        const tps = span > 0 ? (ticks.length - 1) / span : 0
        const sorted = lags.slice().sort((a, b) => a - b)
        const p95 = sorted.length ? sorted[Math.floor(sorted.length * 0.95)] : 0
        return `TPS ${tps.toFixed(2)} over ${span.toFixed(1)} s; event loop lag p95 ${p95} ms; entities ${Object.keys(serv.entities).length}`
      }
    })
    serv.commands.add({
      base: 'mindpy_fail',
      info: 'Throw an error from a plugin (the server must log it and keep running)',
      usage: '/mindpy_fail',
      op: true,
      action () {
        setTimeout(() => { throw new Error('mindpy_fail: deliberate plugin error') }, 0)
        Promise.reject(new Error('mindpy_fail: deliberate rejected promise'))
        return 'Threw two errors from a plugin'
      }
    })
  })
}
