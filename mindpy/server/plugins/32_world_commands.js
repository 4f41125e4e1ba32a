'use strict'
// /time and /weather with vanilla syntax and replies. flying-squid's /weather sends the game-state codes
// the wrong way round (its "rain" tells clients the rain stopped), forgets the weather for players who
// join later, and knows no thunder; its /time replies differ and knows no noon or midnight.

const TIME_NAMES = { day: 1000, noon: 6000, night: 13000, midnight: 18000 }
const TICKS_PER_UNIT = { d: 24000, s: 20, t: 1, '': 1 }
// game_state_change reasons (protocol): 1 start raining, 2 stop raining, 7 rain level, 8 thunder level
const START_RAIN = 1
const STOP_RAIN = 2
const RAIN_LEVEL = 7
const THUNDER_LEVEL = 8

module.exports.server = function (serv) {
  serv.mindpyWeather = 'clear'

  function weatherPackets (weather) {
    const wet = weather !== 'clear'
    return [
      { reason: wet ? START_RAIN : STOP_RAIN, gameMode: 0 },
      { reason: RAIN_LEVEL, gameMode: wet ? 1 : 0 },
      { reason: THUNDER_LEVEL, gameMode: weather === 'thunder' ? 1 : 0 }
    ]
  }

  serv.mindpySetWeather = (weather) => {
    serv.mindpyWeather = weather
    for (const packet of weatherPackets(weather)) serv._writeAll('game_state_change', packet)
  }

  serv.on('newPlayer', (player) => {
    player.once('spawned', () => {
      if (serv.mindpyWeather === 'clear') return
      for (const packet of weatherPackets(serv.mindpyWeather)) player._client.write('game_state_change', packet)
    })
  })

  serv.once('pluginsReady', () => {
    const { UserError } = serv.mindpyCommands

    function ticks (text) {
      if (text in TIME_NAMES) return TIME_NAMES[text]
      const match = text.match(/^(\d+(?:\.\d+)?)([dst]?)$/)
      if (!match) throw new UserError(`Invalid time '${text}'`)
      return Math.round(Number(match[1]) * TICKS_PER_UNIT[match[2]])
    }

    serv.commands.add({
      base: 'time',
      info: 'Set, add to or query the time of day',
      usage: '/time <set|add> <time> | /time query <daytime|gametime|day>',
      op: true,
      parse: str => { const a = str.trim().split(/\s+/); return a.length === 2 ? a : false },
      action ([action, value]) {
        if (action === 'query') {
          const day = Math.floor(serv.time / 24000)
          const answers = { daytime: serv.time % 24000, gametime: serv.tickCount, day }
          if (!(value in answers)) throw new UserError(`Unknown query '${value}'`)
          return `The time is ${answers[value]}`
        }
        if (action !== 'set' && action !== 'add') throw new UserError(`Unknown action '${action}'`)
        const time = (action === 'set' ? ticks(value) : serv.time + ticks(value)) % 24000
        serv.setTime(time)
        return `Set the time to ${time}`
      }
    })

    serv.commands.add({
      base: 'weather',
      info: 'Set the weather',
      usage: '/weather <clear|rain|thunder> [duration]',
      op: true,
      parse: str => { const a = str.trim().split(/\s+/); return a.length >= 1 && a.length <= 2 ? a : false },
      action ([weather]) {
        if (!['clear', 'rain', 'thunder'].includes(weather)) throw new UserError(`Unknown weather '${weather}'`)
        serv.mindpySetWeather(weather)
        return `Set the weather to ${weather === 'thunder' ? 'rain & thunder' : weather}`
      }
    })
  })
}
