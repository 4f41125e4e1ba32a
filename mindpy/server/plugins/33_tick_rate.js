'use strict'
// How fast the server ticks, for benchmarks: `/mindpy_ticks` answers with one line of JSON after
// "mindpy_ticks " (`/mindpy_tps` in 99_diagnostics.js is the short human-readable summary):
//   {ticks, at, tps1, tps10, tickGapMaxMs, loopDelayP99Ms, loopDelayMaxMs, entities, animals, monsters, players}
// The tick count also goes to a file (config.tickFile, written every TICK_FILE_EVERY ticks) so that the process
// that started the server can read the game's clock without a bot: EmbeddedServer.ticks().
// `ticks` and `at` (ms) let a benchmark compute the rate over its own window; tps1 and tps10 are the
// rates over the last 1 and 10 seconds; the event-loop delay shows stalls between ticks (the server runs
// everything on one thread, so a slow handler delays the next tick). See benchmarks/bench_server_ticks.py.
//
// flying-squid ticks with setInterval, which starts each wait after the callback ran, so every late
// millisecond is lost for good (19.6 ticks per second on a busy machine). Like vanilla, tick on a fixed
// schedule instead: each tick is due at start + n * 50 ms, and a late tick shortens the next wait.

const fs = require('fs')
const { monitorEventLoopDelay, performance } = require('perf_hooks')

const WINDOW_S = 10
const MAX_BEHIND_MS = 1000 // further behind than this, give up catching up (vanilla: "Can't keep up!")
const TICK_FILE_EVERY = 5 // ticks: a quarter of a game second

module.exports.server = function (serv, settings) {
  const tickFile = settings?.mindpy?.tickFile
  if (tickFile) {
    serv.on('tick', (delta, count) => {
      if (count % TICK_FILE_EVERY !== 0) return
      try {
        fs.writeFileSync(tickFile + '.tmp', String(count))
        fs.renameSync(tickFile + '.tmp', tickFile) // a reader never sees a half-written number
      } catch (err) {}
    })
  }

  // tick.js defines serv.setTickInterval after our plugins load; replace it once every plugin has loaded
  serv.once('asap', () => {
    serv.setTickInterval = (ticksPerSecond) => {
      serv.stopTickInterval()
      const period = 1000 / ticksPerSecond
      let due = performance.now() + period
      const tick = () => {
        serv.tickCount++
        const now = Date.now()
        let delta = (now - serv.lastTickTime) / 1000
        if (delta > 100) delta = 0
        serv.emit('tick', delta, serv.tickCount)
        serv.lastTickTime = now
        due += period
        if (performance.now() - due > MAX_BEHIND_MS) due = performance.now()
        serv.tickInterval = setTimeout(tick, Math.max(0, due - performance.now()))
      }
      serv.tickInterval = setTimeout(tick, period)
    }
    serv.setTickInterval(20)
  })

  const tickTimes = [] // wall-clock ms of the ticks in the last WINDOW_S seconds
  let ticks = 0
  let lastTick = 0
  let maxGap = 0
  const loopDelay = monitorEventLoopDelay({ resolution: 10 })
  loopDelay.enable()

  serv.on('tick', () => {
    const now = Date.now()
    ticks++
    if (lastTick) maxGap = Math.max(maxGap, now - lastTick)
    lastTick = now
    tickTimes.push(now)
    while (tickTimes[0] < now - WINDOW_S * 1000) tickTimes.shift()
  })

  function rate (seconds) {
    const since = Date.now() - seconds * 1000
    let n = 0
    for (let i = tickTimes.length - 1; i >= 0 && tickTimes[i] >= since; i--) n++
    return n / seconds
  }

  const countMobs = (kind) => { let n = 0; for (const mob of serv.mindpyMobs || []) if (kind(mob)) n++; return n }

  serv.mindpyTickRate = (reset = false) => {
    const report = {
      ticks,
      at: Date.now(),
      tps1: rate(1),
      tps10: rate(WINDOW_S),
      tickGapMaxMs: maxGap,
      loopDelayP99Ms: loopDelay.percentile(99) / 1e6,
      loopDelayMaxMs: loopDelay.max / 1e6,
      entities: Object.keys(serv.entities).length,
      animals: countMobs(m => !m.mindpyMob.hostile),
      monsters: countMobs(m => m.mindpyMob.hostile),
      players: serv.players.length
    }
    if (reset) { // start a new measurement of the maxima
      maxGap = 0
      loopDelay.reset()
    }
    return report
  }

  serv.once('pluginsReady', () => {
    serv.commands.add({
      base: 'mindpy_ticks',
      info: 'Tick count, rate and event-loop delay as JSON; "reset" starts new maxima',
      usage: '/mindpy_ticks [reset]',
      op: true,
      parse: str => str.trim(),
      action: (arg) => 'mindpy_ticks ' + JSON.stringify(serv.mindpyTickRate(arg === 'reset'))
    })
  })
}
