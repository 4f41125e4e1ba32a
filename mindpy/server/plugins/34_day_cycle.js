'use strict'
// The day cycle and the world's age, as vanilla keeps them.
// - flying-squid advances the time of day through its asynchronous 'changeTime' behaviour: the new time is
//   computed in the tick and applied a few microtasks later, so a `/time set` or a night skip that lands in the
//   same tick is undone by the stale value (seen as a night that did not end after everyone slept). The clock
//   advances synchronously here instead, every 20 ticks as before.
// - update_time packets carry the world's age in ticks (flying-squid sends 0), so a client's bot.time.age is the
//   game's own clock, as on Paper.

const TICKS_PER_UPDATE = 20

module.exports.server = function (serv) {
  serv.once('pluginsReady', () => {
    serv.doDaylightCycle = false // flying-squid's own step: replaced below
    serv.setTime = (time) => {
      serv.time = time
      serv._writeAll('update_time', { age: [0, serv.tickCount || 0], time: [0, serv.time] })
    }
  })

  serv.on('tick', (delta, count) => {
    if (count % TICKS_PER_UPDATE === 0) serv.setTime((serv.time + TICKS_PER_UPDATE) % 24000)
  })
}
