'use strict'
// How drops are rolled, for the loot plugins (41_block_loot.js, 40_animals.js, 43_animal_products.js).
// - "random" (the default, as vanilla): every count and chance is rolled, and drops fly off in a random direction.
// - "expected": every roll gives its expected value (a count of 1-3 gives 2, 2-5 gives 4: halves round up; an item
//   with a chance under one half never drops, one of a half or more always does) and drops fall straight down.
//   Two plays of one task then hand the same items to the same players whatever the timing of their actions:
//   orders episodes, whose steps must replay identically, are set up with it.
// `/mindpy_loot random|expected` sets it (a task's set-up sends it; on another server the unknown command is
// answered with an error and nothing changes).

const RULES = ['random', 'expected']

module.exports.server = function (serv) {
  let rule = 'random'
  serv.mindpyLoot = {
    rule: () => rule,
    // a whole number from min to max
    count (min, max) {
      if (max <= min) return min
      return rule === 'expected' ? Math.round((min + max) / 2) : min + Math.floor(Math.random() * (max - min + 1))
    },
    // whether something dropped with probability `p` drops
    chance (p) {
      return rule === 'expected' ? p >= 0.5 : Math.random() < p
    },
    // a random number in [lo, hi), or its middle
    between (lo, hi) {
      return rule === 'expected' ? (lo + hi) / 2 : lo + Math.random() * (hi - lo)
    },
    // the sideways push of a drop, each of x and z in [-spread, spread): none with expected rolls
    spread (spread) {
      return rule === 'expected' ? 0 : (Math.random() * 2 - 1) * spread
    }
  }

  serv.once('pluginsReady', () => {
    const UserError = require('flying-squid').UserError
    serv.commands.add({
      base: 'mindpy_loot',
      info: 'How drops are rolled: random (vanilla) or expected (every roll its expected value)',
      usage: '/mindpy_loot [random|expected]',
      op: true,
      parse: str => str.trim(),
      action (text) {
        if (!text) return `Drops are rolled: ${rule}`
        if (!RULES.includes(text)) throw new UserError(`Unknown loot rule '${text}': use random or expected`)
        rule = text
        return `Drops are now rolled: ${rule}`
      }
    })
  })
}
