'use strict'
const path = require('path')
// Reading much of the world through a bot in one bridge call (mindpy/world/bulk.py). blockNamesJson, for the
// construction checker and the set-up check: positions [[x, y, z], ...] -> JSON list of block names (null where
// the bot has not loaded the chunk).

function blockNamesJson (bot, positionsJson) {
  const { Vec3 } = require('vec3')
  const positions = JSON.parse(positionsJson)
  const names = positions.map(([x, y, z]) => {
    const block = bot.blockAt(new Vec3(x, y, z))
    return block ? block.name : null
  })
  return JSON.stringify(names)
}

// Entities of the given kinds (e.g. ["cow", "pig"]) within `radius` blocks (x and z) of (x, z): JSON {kind: count}.
function entityCountsJson (bot, kindsJson, x, z, radius) {
  const kinds = new Set(JSON.parse(kindsJson))
  const counts = {}
  for (const entity of Object.values(bot.entities)) {
    if (!kinds.has(entity.name) || entity === bot.entity) continue
    if (Math.hypot(entity.position.x - x, entity.position.z - z) > radius) continue
    counts[entity.name] = (counts[entity.name] || 0) + 1
  }
  return JSON.stringify(counts)
}

// The names of the players in the bot's player list (itself included): JSON list.
function playerNamesJson (bot) {
  return JSON.stringify(Object.keys(bot.players))
}

// Another player's inventory, asked of the server with vanilla's `/data get entity NAME Inventory` (Paper and the
// embedded server answer it; the bot must be an operator): JSON {item: count}, or null when the server said no or
// did not answer within timeoutMs.
function playerInventoryJson (bot, name, timeoutMs) {
  const answer = `${name} has the following entity data: `
  return new Promise(resolve => {
    const onMessage = text => {
      if (text.startsWith(answer)) finish(JSON.stringify(countItems(text.slice(answer.length))))
      else if (/^No entity was found/.test(text)) finish('null')
    }
    const timer = setTimeout(() => finish('null'), timeoutMs)
    function finish (value) {
      clearTimeout(timer)
      bot.removeListener('messagestr', onMessage)
      resolve(value)
    }
    bot.on('messagestr', onMessage)
    bot.chat(`/data get entity ${name} Inventory`)
  })
}

// Item name -> count in an SNBT list of item compounds (mindpy/server/js/lib/snbt.js reads it).
function countItems (snbt) {
  const { itemEntries } = require(path.join(__dirname, '..', '..', 'server', 'js', 'lib', 'snbt.js'))
  const counts = {}
  for (const { id, count } of itemEntries(snbt)) counts[id] = (counts[id] || 0) + count
  return counts
}

module.exports = { blockNamesJson, entityCountsJson, playerNamesJson, playerInventoryJson, countItems }
