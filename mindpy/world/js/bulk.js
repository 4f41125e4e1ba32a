'use strict'
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

module.exports = { blockNamesJson, entityCountsJson }
